#include "ir/rel_common.h"

#include <algorithm>
#include <string>
#include <vector>

namespace carve::rel {
namespace {

absl::Status WrongKind(std::string_view name, std::string_view expected, const AttrValue& v) {
  return Error("attribute '{}' must be {}, got {}", name, expected, AttrValueToString(v));
}

bool IsIntLike(const AttrValue& v) {
  return v.kind() == AttrValue::Kind::kInt || v.kind() == AttrValue::Kind::kBool;
}

bool IsNumber(const AttrValue& v) { return IsIntLike(v) || v.kind() == AttrValue::Kind::kFloat; }

}  // namespace

// ---- Arguments ----------------------------------------------------------

std::string ArgName(const TypeRelCall& call, size_t i) {
  if (call.op != nullptr && i < call.op->arg_names.size()) {
    return std::string(call.op->arg_names[i]);
  }
  return fmt::format("argument {}", i);
}

absl::StatusOr<const TensorType*> TensorArg(const TypeRelCall& call, size_t i) {
  if (i >= call.args.size()) return Error("missing argument {} ({})", i, ArgName(call, i));
  const TensorType* t = DynCast<TensorType>(call.args[i]);
  if (t == nullptr) {
    return Error("expected {} to be a tensor, got {}", ArgName(call, i),
                 TypeToString(call.args[i]));
  }
  return t;
}

absl::StatusOr<std::vector<const TensorType*>> TensorTupleArg(const TypeRelCall& call, size_t i) {
  if (i >= call.args.size()) return Error("missing argument {} ({})", i, ArgName(call, i));
  const TupleType* tuple = DynCast<TupleType>(call.args[i]);
  if (tuple == nullptr) {
    return Error("expected a tuple of tensors, got {}", TypeToString(call.args[i]));
  }
  if (tuple->fields().empty()) return Error("expected a non-empty tuple of tensors, got ()");
  std::vector<const TensorType*> out;
  for (size_t k = 0; k < tuple->fields().size(); ++k) {
    const TensorType* t = DynCast<TensorType>(tuple->fields()[k]);
    if (t == nullptr) {
      return Error("expected tuple field {} to be a tensor, got {}", k,
                   TypeToString(tuple->fields()[k]));
    }
    out.push_back(t);
  }
  return out;
}

absl::Status ExpectType(const TensorType* actual, DataType dtype, std::span<const Dim> shape,
                        std::string_view what) {
  bool ok = actual->dtype() == dtype && actual->rank() == shape.size();
  for (size_t i = 0; ok && i < shape.size(); ++i) ok = DimMatches(actual->shape()[i], shape[i]);
  if (ok) return absl::OkStatus();
  return Error("expected {} of type {}, got {}", what, TypeToString(TensorTy(dtype, shape)),
               TypeToString(actual));
}

absl::Status ExpectScalarOrVector(const TensorType* actual, DataType dtype, Dim extent,
                                  std::string_view what) {
  if (actual->dtype() != dtype) {
    return Error("expected {} of dtype {}, got {}", what, DTypeName(dtype), TypeToString(actual));
  }
  if (actual->rank() == 0) return absl::OkStatus();
  Dim shape[] = {extent};
  if (actual->rank() == 1 && DimMatches(actual->shape()[0], extent)) return absl::OkStatus();
  return Error("expected {} to be a scalar or of type {}, got {}", what,
               TypeToString(TensorTy(dtype, shape)), TypeToString(actual));
}

absl::Status ExpectScalar(const TensorType* actual, DataType dtype, std::string_view what) {
  if (actual->rank() == 0 && actual->dtype() == dtype) return absl::OkStatus();
  return Error("expected {} to be a scalar {}, got {}", what, DTypeName(dtype),
               TypeToString(actual));
}

// ---- Attributes ---------------------------------------------------------

AttrValue AttrReader::Raw(std::string_view name) const {
  if (call_.attrs != nullptr) {
    if (const AttrValue* v = call_.attrs->Find(name)) return *v;
  }
  if (call_.op != nullptr && call_.op->attrs != nullptr) {
    int index = call_.op->attrs->FieldIndex(name);
    if (index >= 0) return call_.op->attrs->fields[index].default_value;
  }
  return AttrValue();
}

absl::StatusOr<int64_t> AttrReader::Int(std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return Error("attribute '{}' must be set", name);
  if (!IsIntLike(v)) return WrongKind(name, "an integer", v);
  return v.as_int();
}

absl::StatusOr<bool> AttrReader::Bool(std::string_view name) const {
  AttrValue v = Raw(name);
  if (!IsIntLike(v)) return WrongKind(name, "a bool", v);
  return v.as_bool();
}

absl::StatusOr<double> AttrReader::Double(std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return Error("attribute '{}' must be set", name);
  if (!IsNumber(v)) return WrongKind(name, "a number", v);
  return v.as_float();
}

absl::StatusOr<std::string_view> AttrReader::String(std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return Error("attribute '{}' must be set", name);
  if (v.kind() != AttrValue::Kind::kString) return WrongKind(name, "a string", v);
  return v.as_string();
}

absl::StatusOr<DataType> AttrReader::DType(std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return DataType::Void();
  if (v.kind() != AttrValue::Kind::kString) return WrongKind(name, "a dtype string", v);
  std::optional<DataType> dtype = DataType::Parse(v.as_string());
  if (!dtype) return Error("attribute '{}' has invalid dtype \"{}\"", name, v.as_string());
  return *dtype;
}

absl::StatusOr<std::vector<int64_t>> AttrReader::Ints(std::string_view name) const {
  CARVE_ASSIGN_OR_RETURN(MaybeInts v, OptInts(name));
  if (!v) return Error("attribute '{}' must be set", name);
  return std::move(v.values);
}

absl::StatusOr<MaybeInts> AttrReader::OptInts(std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return MaybeInts();
  std::optional<std::vector<int64_t>> ints = v.AsInts();
  if (!ints) return WrongKind(name, "a list of integers", v);
  return MaybeInts{true, std::move(*ints)};
}

absl::StatusOr<std::optional<int64_t>> AttrReader::OptInt(std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return std::optional<int64_t>();
  if (!IsIntLike(v)) return WrongKind(name, "an integer", v);
  return std::optional<int64_t>(v.as_int());
}

absl::StatusOr<std::vector<std::vector<int64_t>>> AttrReader::IntsArray(
    std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return Error("attribute '{}' must be set", name);
  if (v.kind() != AttrValue::Kind::kArray) return WrongKind(name, "a list of integer lists", v);
  std::vector<std::vector<int64_t>> out;
  for (const AttrValue& item : v.as_array()) {
    std::optional<std::vector<int64_t>> ints = item.AsInts();
    if (!ints) return WrongKind(name, "a list of integer lists", v);
    out.push_back(std::move(*ints));
  }
  return out;
}

absl::StatusOr<std::optional<std::vector<double>>> AttrReader::OptDoubles(
    std::string_view name) const {
  AttrValue v = Raw(name);
  if (v.is_null()) return std::optional<std::vector<double>>();
  if (v.kind() != AttrValue::Kind::kArray) return WrongKind(name, "a list of numbers", v);
  std::vector<double> out;
  for (const AttrValue& item : v.as_array()) {
    if (!IsNumber(item)) return WrongKind(name, "a list of numbers", v);
    out.push_back(item.as_float());
  }
  return std::optional<std::vector<double>>(std::move(out));
}

// ---- Dims and shapes ----------------------------------------------------

Dim Computed(int64_t v, std::initializer_list<Dim> from) {
  bool wide = std::any_of(from.begin(), from.end(), [](Dim d) { return d.wide; });
  return Dim{v, wide};
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

absl::StatusOr<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return Error("shape arithmetic {} * {} overflows int64", a, b);
  return r;
}

absl::StatusOr<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return Error("shape arithmetic {} + {} overflows int64", a, b);
  return r;
}

absl::StatusOr<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return Error("shape arithmetic {} - {} overflows int64", a, b);
  return r;
}

std::string StatusText(const absl::Status& status) {
  return std::string(status.message().data(), status.message().size());
}

std::string DTypeName(DataType dtype) { return dtype.is_void() ? "void" : dtype.ToString(); }

std::string IntsToString(std::span<const int64_t> v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : ", ") + std::to_string(v[i]);
  return out + "]";
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t ndim, std::string_view what) {
  if (axis < -ndim || axis >= ndim) {
    return Error("{} {} is out of range for rank {}", what, axis, ndim);
  }
  return axis < 0 ? axis + ndim : axis;
}

absl::StatusOr<Shape> BroadcastShapes(std::span<const Dim> sa, std::span<const Dim> sb) {
  size_t n = std::max(sa.size(), sb.size());
  Shape out(n);
  for (size_t k = 0; k < n; ++k) {
    bool ha = k < sa.size();
    bool hb = k < sb.size();
    Dim da = ha ? sa[sa.size() - 1 - k] : Dim{};
    Dim db = hb ? sb[sb.size() - 1 - k] : Dim{};
    Dim r;
    if (!hb) {
      r = da;
    } else if (!ha) {
      r = db;
    } else if (DimIs(da, 1)) {
      r = db;
    } else if (DimIs(db, 1)) {
      r = da;
    } else if (da.is_any()) {
      r = db;
    } else if (db.is_any()) {
      r = da;
    } else if (da.value == db.value) {
      r = da;
    } else {
      return Error("cannot broadcast {} and {}", ShapeToString(sa), ShapeToString(sb));
    }
    out[n - 1 - k] = r;
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> PaddingTotals(std::span<const int64_t> padding, int spatial) {
  std::vector<int64_t> totals(spatial);
  size_t n = padding.size();
  for (int i = 0; i < spatial; ++i) {
    if (n == 1) {
      CARVE_ASSIGN_OR_RETURN(totals[i], CheckedMul(2, padding[0]));
    } else if (n == static_cast<size_t>(spatial)) {
      CARVE_ASSIGN_OR_RETURN(totals[i], CheckedMul(2, padding[i]));
    } else if (n == static_cast<size_t>(2 * spatial)) {
      CARVE_ASSIGN_OR_RETURN(totals[i], CheckedAdd(padding[i], padding[i + spatial]));
    } else {
      std::string forms =
          spatial == 1 ? "1 or 2" : fmt::format("1, {} or {}", spatial, 2 * spatial);
      return Error("padding must have {} values, got {}", forms, IntsToString(padding));
    }
  }
  return totals;
}

absl::Status ExpectCount(std::span<const int64_t> values, size_t n, std::string_view what,
                         bool positive) {
  if (values.size() != n) {
    return Error("{} must have {} values, got {}", what, n, IntsToString(values));
  }
  if (positive) {
    for (int64_t v : values) {
      if (v <= 0) return Error("{} must be positive, got {}", what, IntsToString(values));
    }
  }
  return absl::OkStatus();
}

// ---- Layouts ------------------------------------------------------------

namespace {

absl::StatusOr<BijectiveLayout> ParseLayoutTo(std::string_view layout, std::string_view canonical,
                                              std::string_view what) {
  absl::StatusOr<Layout> parsed = Layout::Parse(layout);
  if (!parsed.ok()) return Error("{}: {}", what, StatusText(parsed.status()));
  absl::StatusOr<Layout> canon = Layout::Parse(canonical);
  if (!canon.ok()) return canon.status();
  if (!parsed->SamePrimalAxes(*canon)) {
    return Error("{} {} is not convertible to {}", what, layout.empty() ? "\"\"" : layout,
                 canonical);
  }
  return BijectiveLayout::Make(*parsed, *canon);
}

}  // namespace

// Memoized per thread: a graph has a handful of distinct layouts, and every
// conv2d asks for three (parsing them was about 15k instructions per call).
absl::StatusOr<BijectiveLayout> LayoutTo(std::string_view layout, std::string_view canonical,
                                         std::string_view what) {
  struct Entry {
    std::string layout, canonical, what;
    absl::StatusOr<BijectiveLayout> result;
  };
  constexpr size_t kMaxEntries = 32;
  thread_local std::vector<Entry> cache;
  for (const Entry& e : cache) {
    if (e.layout == layout && e.canonical == canonical && e.what == what) return e.result;
  }
  absl::StatusOr<BijectiveLayout> result = ParseLayoutTo(layout, canonical, what);
  if (cache.size() < kMaxEntries) {
    cache.push_back(
        Entry{std::string(layout), std::string(canonical), std::string(what), result});
  }
  return result;
}

absl::StatusOr<Shape> ToCanonical(const TensorType* t, const BijectiveLayout& bij,
                                  std::string_view what) {
  if (t->rank() != bij.src().ndim()) {
    return Error("expected {}-d {} in layout {}, got {}", bij.src().ndim(), what, bij.src().name(),
                 ShapeToString(t->shape()));
  }
  absl::StatusOr<Shape> shape = bij.ForwardShape(t->shape());
  if (!shape.ok()) return Error("{}: {}", what, StatusText(shape.status()));
  return shape;
}

}  // namespace carve::rel
