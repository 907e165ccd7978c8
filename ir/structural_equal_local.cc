#include "ir/structural_equal_local.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "fmt/format.h"

namespace carve::structural_equal_internal {

const char* KindName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kVar:
      return "a variable";
    case ExprKind::kGlobalVar:
      return "a global";
    case ExprKind::kConstant:
      return "a constant";
    case ExprKind::kOp:
      return "an operator";
    case ExprKind::kCall:
      return "a call";
    case ExprKind::kTuple:
      return "a tuple";
    case ExprKind::kTupleGetItem:
      return "a projection";
    case ExprKind::kLet:
      return "a let";
    case ExprKind::kIf:
      return "an if";
    case ExprKind::kFunction:
      return "a function";
    case ExprKind::kRefCreate:
      return "a ref";
    case ExprKind::kRefRead:
      return "a ref_read";
    case ExprKind::kRefWrite:
      return "a ref_write";
    case ExprKind::kConstructor:
      return "a constructor";
    case ExprKind::kMatch:
      return "a match";
  }
  return "an expression";
}

bool IsGraphNode(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kVar:
    case ExprKind::kCall:
    case ExprKind::kLet:
    case ExprKind::kIf:
    case ExprKind::kFunction:
    case ExprKind::kRefCreate:  // TVM marks references graph nodes too
    case ExprKind::kRefRead:
    case ExprKind::kRefWrite:
    case ExprKind::kMatch:
      return true;
    case ExprKind::kTuple:
      return !Cast<Tuple>(e)->fields().empty();
    default:
      return false;
  }
}

std::string VarName(const Expr* v) { return fmt::format("%{}", Cast<Var>(v)->name()); }

namespace {

std::string DescribeSchema(const Attrs* attrs) {
  if (attrs == nullptr || attrs->schema() == nullptr) return "a dictionary";
  return std::string(attrs->schema()->type_key);
}

AttrType FieldType(const Attrs* attrs, size_t i) {
  return attrs->schema() ? attrs->schema()->fields[i].type : AttrType::kAny;
}

}  // namespace

std::optional<LocalDiff> AttrsDiff(const Attrs* a, const Attrs* b) {
  if (a == b) return std::nullopt;
  bool a_none = a == nullptr || (a->schema() == nullptr && a->empty());
  bool b_none = b == nullptr || (b->schema() == nullptr && b->empty());
  if (a_none && b_none) return std::nullopt;
  if (a_none || b_none || a->schema() != b->schema()) {
    return LocalDiff{".attrs", fmt::format("attribute types differ: {} vs {}",
                                           a_none ? "none" : DescribeSchema(a),
                                           b_none ? "none" : DescribeSchema(b))};
  }
  if (a->schema() != nullptr) {
    // Schema instances hold every field, in declaration order.
    for (size_t i = 0; i < a->entries().size() && i < b->entries().size(); ++i) {
      const AttrEntry& x = a->entries()[i];
      const AttrEntry& y = b->entries()[i];
      if (x.value == y.value) continue;
      return LocalDiff{fmt::format(".attrs.{}", x.key),
                       fmt::format("attribute {} differs: {} vs {}", x.key,
                                   AttrValueToString(x.value, FieldType(a, i)),
                                   AttrValueToString(y.value, FieldType(b, i)))};
    }
    return std::nullopt;
  }
  for (const AttrEntry& x : a->entries()) {
    const AttrValue* y = b->Find(x.key);
    if (y == nullptr) {
      return LocalDiff{fmt::format(".attrs.{}", x.key),
                       fmt::format("attribute {} is missing on the right", x.key)};
    }
    if (!(x.value == *y)) {
      return LocalDiff{fmt::format(".attrs.{}", x.key),
                       fmt::format("attribute {} differs: {} vs {}", x.key,
                                   AttrValueToString(x.value), AttrValueToString(*y))};
    }
  }
  for (const AttrEntry& y : b->entries()) {
    if (a->Find(y.key) == nullptr) {
      return LocalDiff{fmt::format(".attrs.{}", y.key),
                       fmt::format("attribute {} is missing on the left", y.key)};
    }
  }
  return std::nullopt;
}

namespace {

std::string DimsToString(const std::vector<int64_t>& shape) {
  std::vector<Dim> dims;
  dims.reserve(shape.size());
  for (int64_t d : shape) dims.push_back(Dim{d, false});
  return ShapeToString(dims);
}

}  // namespace

std::optional<LocalDiff> ConstantDiff(const Constant* a, const Constant* b) {
  const NDArray& x = a->data();
  const NDArray& y = b->data();
  if (x.dtype() != y.dtype()) {
    return LocalDiff{".data", fmt::format("constant dtypes differ: {} vs {}", x.dtype().ToString(),
                                          y.dtype().ToString())};
  }
  if (x.shape() != y.shape()) {
    return LocalDiff{".data", fmt::format("constant shapes differ: {} vs {}",
                                          DimsToString(x.shape()), DimsToString(y.shape()))};
  }
  if (x.BitwiseEqual(y)) return std::nullopt;
  // Name the first differing element: that is what a reader looks for.
  int64_t n = x.num_elements();
  size_t width = size_t(x.dtype().bytes());
  auto* px = static_cast<const uint8_t*>(x.raw_data());
  auto* py = static_cast<const uint8_t*>(y.raw_data());
  for (int64_t i = 0; i < n; ++i) {
    if (std::memcmp(px + i * width, py + i * width, width) != 0) {
      return LocalDiff{".data", fmt::format("constant values differ at element {}: {} vs {}", i,
                                            x.GetAsDouble(i), y.GetAsDouble(i))};
    }
  }
  return LocalDiff{".data", "constant values differ"};
}

}  // namespace carve::structural_equal_internal
