// Kernels of the dyn.* ops: the shape, size or count arguments are read
// from their tensors into the static op's attributes, the static op's
// relation types the result, and the static op's kernel computes it (TVM's
// DynamicToStatic pass does the same rewrite when the arguments are
// constants).
#include "interpreter/kernels/element_index.h"
#include "interpreter/kernels/index_value.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;
using Fields = std::vector<std::pair<std::string_view, AttrValue>>;

// The integer values of tensor `t`.
std::vector<int64_t> IntsOf(const NDArray& t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(IndexElement(t, i));
  return v;
}

AttrValue IntsValue(const std::vector<int64_t>& v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(AttrValue::Int(x));
  return AttrValue::Array(items);
}

// Runs `static_op` on `inputs` with the call's attributes (those the static
// schema has) overridden by `fields`.
Outputs RunStatic(const KernelContext& ctx, std::string_view static_op, std::vector<NDArray> inputs,
                  const Fields& fields) {
  const OpInfo* op = FindOp(static_op);
  KernelFn fn = FindKernel(static_op);
  if (op == nullptr || fn == nullptr || op->type_rel == nullptr) {
    return absl::InternalError(fmt::format("{}: needs {}", OpName(ctx), static_op));
  }
  const Attrs* attrs = op->attrs != nullptr ? DefaultAttrs(op->attrs) : nullptr;
  if (attrs != nullptr && ctx.attrs != nullptr) {
    for (const AttrEntry& e : ctx.attrs->entries()) {
      if (op->attrs->FieldIndex(e.key) >= 0) attrs = WithField(attrs, e.key, e.value);
    }
  }
  for (const auto& [k, v] : fields) attrs = WithField(attrs, k, v);
  std::vector<const Type*> types;
  for (const NDArray& t : inputs) {
    std::vector<Dim> dims;
    for (int64_t d : t.shape()) dims.push_back(Dim{d, false});
    types.push_back(TensorTy(t.dtype(), dims));
  }
  auto out_type = op->type_rel(TypeRelCall{op, types, attrs});
  if (!out_type.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", OpName(ctx), std::string(out_type.status().message())));
  }
  KernelContext sub = ctx;
  sub.op = op;
  sub.inputs = inputs;
  sub.attrs = attrs;
  sub.out_type = *out_type;
  return fn(sub);
}

Outputs DynReshape(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunStatic(ctx, "reshape", {ctx.inputs[0]},
                   {{"newshape", IntsValue(IntsOf(ctx.inputs[1]))}});
}

Outputs DynBroadcastTo(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunStatic(ctx, "broadcast_to", {ctx.inputs[0]},
                   {{"shape", IntsValue(IntsOf(ctx.inputs[1]))}});
}

Outputs DynExpandDims(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, ReadScalar<int64_t>(ctx, ctx.inputs[1], "axis"));
  return RunStatic(ctx, "expand_dims", {ctx.inputs[0]}, {{"axis", AttrValue::Int(axis)}});
}

Outputs DynFull(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  return RunStatic(ctx, "full", {ctx.inputs[0]},
                   {{"shape", IntsValue(IntsOf(ctx.inputs[1]))},
                    {"dtype", AttrValue::Str(out_t->dtype().ToString())}});
}

template <bool kOnes>
Outputs DynInit(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  return RunStatic(ctx, kOnes ? "ones" : "zeros", {},
                   {{"shape", IntsValue(IntsOf(ctx.inputs[0]))},
                    {"dtype", AttrValue::Str(out_t->dtype().ToString())}});
}

Outputs DynSqueeze(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunStatic(ctx, "squeeze", {ctx.inputs[0]}, {{"axis", IntsValue(IntsOf(ctx.inputs[1]))}});
}

Outputs DynStridedSlice(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  return RunStatic(ctx, "strided_slice", {ctx.inputs[0]},
                   {{"begin", IntsValue(IntsOf(ctx.inputs[1]))},
                    {"end", IntsValue(IntsOf(ctx.inputs[2]))},
                    {"strides", IntsValue(IntsOf(ctx.inputs[3]))}});
}

Outputs DynTile(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunStatic(ctx, "tile", {ctx.inputs[0]}, {{"reps", IntsValue(IntsOf(ctx.inputs[1]))}});
}

Outputs DynTopK(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  CARVE_ASSIGN_OR_RETURN(int64_t k, ReadScalar<int64_t>(ctx, ctx.inputs[1], "k"));
  return RunStatic(ctx, "topk", {ctx.inputs[0]}, {{"k", AttrValue::Int(k)}});
}

Outputs DynOneHot(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  CARVE_ASSIGN_OR_RETURN(int64_t depth, ReadScalar<int64_t>(ctx, ctx.inputs[3], "depth"));
  return RunStatic(ctx, "one_hot", {ctx.inputs[0], ctx.inputs[1], ctx.inputs[2]},
                   {{"depth", AttrValue::Int(depth)}});
}

// pad_width arrives as an (ndim, 2) tensor.
Outputs DynPad(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  std::vector<int64_t> flat = IntsOf(ctx.inputs[1]);
  std::vector<AttrValue> rows;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    rows.push_back(AttrValue::Ints({flat[i], flat[i + 1]}));
  }
  return RunStatic(ctx, "nn.pad", {ctx.inputs[0], ctx.inputs[2]},
                   {{"pad_width", AttrValue::Array(rows)}});
}

Outputs DynUpsampling(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  CARVE_ASSIGN_OR_RETURN(double sh, ReadScalar<double>(ctx, ctx.inputs[1], "scale_h"));
  CARVE_ASSIGN_OR_RETURN(double sw, ReadScalar<double>(ctx, ctx.inputs[2], "scale_w"));
  return RunStatic(ctx, "nn.upsampling", {ctx.inputs[0]},
                   {{"scale_h", AttrValue::Float(sh)}, {"scale_w", AttrValue::Float(sw)}});
}

Outputs DynUpsampling3D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  Fields scales;
  const char* names[] = {"scale_d", "scale_h", "scale_w"};
  for (int i = 0; i < 3; ++i) {
    CARVE_ASSIGN_OR_RETURN(double s, ReadScalar<double>(ctx, ctx.inputs[1 + i], names[i]));
    scales.emplace_back(names[i], AttrValue::Float(s));
  }
  return RunStatic(ctx, "nn.upsampling3d", {ctx.inputs[0]}, scales);
}

Outputs DynResize2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  std::vector<AttrValue> roi;
  for (int64_t i = 0; i < ctx.inputs[2].num_elements(); ++i) {
    roi.push_back(AttrValue::Float(ctx.inputs[2].GetAsDouble(i)));
  }
  return RunStatic(ctx, "image.resize2d", {ctx.inputs[0]},
                   {{"size", IntsValue(IntsOf(ctx.inputs[1]))}, {"roi", AttrValue::Array(roi)}});
}

// sparse_to_dense: default_value everywhere, then values[i] at the
// coordinates in row i of the indices (a scalar or 1-d indices name
// positions of a 1-d output; a scalar value applies to every index).
Outputs SparseToDense(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 3));
  const NDArray& idx = ctx.inputs[0];
  const NDArray& values = ctx.inputs[1];
  std::vector<int64_t> shape;
  if (ctx.inputs.size() == 4) {
    shape = IntsOf(ctx.inputs[3]);
  } else {
    CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
    CARVE_ASSIGN_OR_RETURN(shape, StaticShape(out_t));
  }
  for (int64_t d : shape) {
    if (d < 0) return KernelError(ctx, "output_shape {} has a negative extent", ShapeString(shape));
  }
  const int64_t rows = idx.rank() == 0 ? 1 : idx.shape()[0];
  const int64_t cols = idx.rank() < 2 ? 1 : idx.shape()[1];
  if (values.num_elements() != 1 && values.num_elements() < rows) {
    return KernelError(ctx, "{} sparse_values for {} indices", values.num_elements(), rows);
  }
  NDArray out = NDArray::Empty(values.dtype(), shape);
  // Values move as elements, not through double (an int64 above 2^53
  // would round).
  const NDArray& fill = ctx.inputs[2];
  const bool same_dtype = fill.dtype() == values.dtype();
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    if (same_dtype) {
      CopyElement(fill, 0, out, i);
    } else {
      out.SetFromDouble(i, fill.GetAsDouble(0));
    }
  }
  std::vector<int64_t> strides = RowMajorStrides(shape);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t v = IndexElement(idx, r * cols + c);
      if (c >= int64_t(shape.size()) || v < 0 || v >= shape[c]) {
        return KernelError(ctx, "index {} is out of range for {}", v, ShapeString(shape));
      }
      off += v * strides[c];
    }
    CopyElement(values, values.num_elements() == 1 ? 0 : r, out, off);
  }
  return std::vector<NDArray>{out};
}

}  // namespace

CARVE_REGISTER_KERNEL("dyn.reshape", DynReshape);
CARVE_REGISTER_KERNEL("dyn.broadcast_to", DynBroadcastTo);
CARVE_REGISTER_KERNEL("dyn.expand_dims", DynExpandDims);
CARVE_REGISTER_KERNEL("dyn.full", DynFull);
CARVE_REGISTER_KERNEL("dyn.ones", DynInit<true>);
CARVE_REGISTER_KERNEL("dyn.zeros", DynInit<false>);
CARVE_REGISTER_KERNEL("dyn.squeeze", DynSqueeze);
CARVE_REGISTER_KERNEL("dyn.strided_slice", DynStridedSlice);
CARVE_REGISTER_KERNEL("dyn.tile", DynTile);
CARVE_REGISTER_KERNEL("dyn.topk", DynTopK);
CARVE_REGISTER_KERNEL("dyn.one_hot", DynOneHot);
CARVE_REGISTER_KERNEL("dyn.nn.pad", DynPad);
CARVE_REGISTER_KERNEL("dyn.nn.upsampling", DynUpsampling);
CARVE_REGISTER_KERNEL("dyn.nn.upsampling3d", DynUpsampling3D);
CARVE_REGISTER_KERNEL("dyn.image.resize2d", DynResize2D);
CARVE_REGISTER_KERNEL("dyn.sparse_to_dense", SparseToDense);
CARVE_REGISTER_KERNEL("sparse_to_dense", SparseToDense);

}  // namespace carve
