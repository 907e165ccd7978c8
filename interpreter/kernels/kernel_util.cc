#include "interpreter/kernels/kernel_util.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace carve {

std::string_view OpName(const KernelContext& ctx) {
  return ctx.op != nullptr ? ctx.op->name : std::string_view("<kernel>");
}

absl::Status UnsupportedDType(const KernelContext& ctx, DataType dtype) {
  return KernelError(ctx, "unsupported dtype {}",
                     dtype.is_void() ? std::string("void") : dtype.ToString());
}

absl::Status CheckArity(const KernelContext& ctx, size_t n) {
  if (ctx.inputs.size() != n) {
    return KernelError(ctx, "expected {} input(s), got {}", n, ctx.inputs.size());
  }
  return absl::OkStatus();
}

absl::Status CheckMinArity(const KernelContext& ctx, size_t n) {
  if (ctx.inputs.size() < n) {
    return KernelError(ctx, "expected at least {} input(s), got {}", n, ctx.inputs.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> StaticShape(const TensorType* type) {
  std::vector<int64_t> shape;
  shape.reserve(type->rank());
  for (const Dim& d : type->shape()) {
    if (d.is_any() || d.value < 0) {
      return absl::InvalidArgumentError(
          fmt::format("cannot allocate a tensor of dynamic type {}", TypeToString(type)));
    }
    shape.push_back(d.value);
  }
  return shape;
}

absl::StatusOr<NDArray> AllocTensor(const Type* type) {
  const TensorType* t = DynCast<TensorType>(type);
  if (t == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("expected a tensor type, got {}", TypeToString(type)));
  }
  if (!IsSupportedTensorDType(t->dtype())) {
    return absl::InvalidArgumentError(
        fmt::format("unsupported tensor dtype in {}", TypeToString(type)));
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, StaticShape(t));
  return NDArray::Empty(t->dtype(), shape);
}

absl::StatusOr<const TensorType*> OutTensorType(const KernelContext& ctx, size_t i) {
  if (ctx.out_type == nullptr) return KernelError(ctx, "missing output type");
  if (const TensorType* t = DynCast<TensorType>(ctx.out_type)) {
    if (i == 0) return t;
  } else if (const TupleType* tt = DynCast<TupleType>(ctx.out_type)) {
    if (i < tt->fields().size()) {
      if (const TensorType* f = DynCast<TensorType>(tt->fields()[i])) return f;
    }
  }
  return KernelError(ctx, "output type {} has no tensor field {}", TypeToString(ctx.out_type), i);
}

const TensorType* StaticTensorType(DataType dtype, std::span<const int64_t> shape) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(Dim{d, false});
  return TensorTy(dtype, dims);
}

absl::StatusOr<NDArray> RunRegisteredKernel(
    const KernelContext& ctx, std::string_view op_name, std::vector<NDArray> inputs,
    const Type* out_type, std::initializer_list<std::pair<std::string_view, AttrValue>> fields,
    const Attrs* attrs) {
  const OpInfo* op = FindOp(op_name);
  KernelFn fn = FindKernel(op_name);
  if (op == nullptr || fn == nullptr) {
    return absl::InternalError(fmt::format("{}: needs the {} kernel", OpName(ctx), op_name));
  }
  if (attrs == nullptr && op->attrs != nullptr) attrs = DefaultAttrs(op->attrs);
  for (const auto& [key, value] : fields) attrs = WithField(attrs, key, value);
  KernelContext sub = ctx;
  sub.op = op;
  sub.inputs = inputs;
  sub.attrs = attrs;
  sub.out_type = out_type;
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> out, fn(sub));
  return std::move(out[0]);
}

NDArray TakeDestination(const KernelContext& ctx, DataType dtype, std::span<const int64_t> shape) {
  NDArray* dst = ctx.destination;
  if (dst == nullptr || !dst->defined() || dst->dtype() != dtype ||
      !std::ranges::equal(dst->shape(), shape)) {
    return NDArray();
  }
  return std::exchange(*dst, NDArray());
}

absl::StatusOr<NDArray> AllocOutput(const KernelContext& ctx) {
  if (!Isa<TensorType>(ctx.out_type)) {
    return KernelError(ctx, "expected a tensor output type, got {}", TypeToString(ctx.out_type));
  }
  if (ctx.destination != nullptr) {
    const TensorType* t = DynCast<TensorType>(ctx.out_type);
    if (absl::StatusOr<std::vector<int64_t>> shape = StaticShape(t); shape.ok()) {
      NDArray dst = TakeDestination(ctx, t->dtype(), *shape);
      if (dst.defined()) {
        std::memset(dst.raw_data(), 0, dst.nbytes());
        return dst;
      }
    }
  }
  auto out = AllocTensor(ctx.out_type);
  if (!out.ok()) return KernelError(ctx, "{}", std::string(out.status().message()));
  return out;
}

absl::StatusOr<std::vector<NDArray>> AllocOutputs(const KernelContext& ctx) {
  if (const TupleType* tt = DynCast<TupleType>(ctx.out_type)) {
    std::vector<NDArray> outs;
    outs.reserve(tt->fields().size());
    for (const Type* f : tt->fields()) {
      auto out = AllocTensor(f);
      if (!out.ok()) return KernelError(ctx, "{}", std::string(out.status().message()));
      outs.push_back(*std::move(out));
    }
    return outs;
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  return std::vector<NDArray>{std::move(out)};
}

namespace {
const AttrValue* FindAttr(const KernelContext& ctx, std::string_view key) {
  return ctx.attrs == nullptr ? nullptr : ctx.attrs->Find(key);
}
}  // namespace

int64_t AttrInt(const KernelContext& ctx, std::string_view key, int64_t fallback) {
  const AttrValue* v = FindAttr(ctx, key);
  if (v == nullptr) return fallback;
  switch (v->kind()) {
    case AttrValue::Kind::kInt:
    case AttrValue::Kind::kBool:
      return v->as_int();
    case AttrValue::Kind::kFloat:
      return static_cast<int64_t>(v->as_float());
    default:
      return fallback;
  }
}

bool AttrBool(const KernelContext& ctx, std::string_view key, bool fallback) {
  return AttrInt(ctx, key, fallback ? 1 : 0) != 0;
}

double AttrFloat(const KernelContext& ctx, std::string_view key, double fallback) {
  const AttrValue* v = FindAttr(ctx, key);
  if (v == nullptr) return fallback;
  switch (v->kind()) {
    case AttrValue::Kind::kInt:
    case AttrValue::Kind::kBool:
    case AttrValue::Kind::kFloat:
      return v->as_float();
    default:
      return fallback;
  }
}

std::string_view AttrString(const KernelContext& ctx, std::string_view key,
                            std::string_view fallback) {
  const AttrValue* v = FindAttr(ctx, key);
  if (v == nullptr || v->kind() != AttrValue::Kind::kString) return fallback;
  return v->as_string();
}

DataType AttrDType(const KernelContext& ctx, std::string_view key) {
  return DataType::Parse(AttrString(ctx, key, "")).value_or(DataType::Void());
}

std::optional<std::vector<int64_t>> AttrInts(const KernelContext& ctx, std::string_view key) {
  const AttrValue* v = FindAttr(ctx, key);
  if (v == nullptr) return std::nullopt;
  if (v->kind() == AttrValue::Kind::kInt) return std::vector<int64_t>{v->as_int()};
  return v->AsInts();
}

bool AttrIsNull(const KernelContext& ctx, std::string_view key) {
  const AttrValue* v = FindAttr(ctx, key);
  return v == nullptr || v->is_null();
}

absl::StatusOr<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return KernelError(ctx, "axis {} is out of range for rank {}", axis, rank);
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

int64_t ShapeProduct(std::span<const int64_t> shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) n *= shape[i];
  return n;
}

std::string ShapeString(std::span<const int64_t> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += fmt::format("{}", shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

}  // namespace carve
