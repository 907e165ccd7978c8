// Relations of TVM's dyn.* ops (src/relay/op/dyn/): the static op's
// relation with a shape, size or count that arrives as a tensor, so the
// dims it decides are `?` (TVM's relations give Any there too); the rank
// comes from the shape tensor's static extent.
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// The static extent of the 1-d tensor argument `i` (a shape or a list of
// axes), or an error.
absl::StatusOr<int64_t> VectorLength(const TypeRelCall& call, size_t i) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, i));
  if (t->rank() != 1 || t->shape()[0].is_any()) {
    return Error("{} must be a 1-d tensor of static extent, got {}", ArgName(call, i),
                 TypeToString(t));
  }
  if (!t->dtype().is_integral()) {
    return Error("{} must hold integers, got {}", ArgName(call, i), TypeToString(t));
  }
  return t->shape()[0].value;
}

const TensorType* AnyShape(DataType dtype, int64_t rank) {
  return TensorTy(dtype, Shape(size_t(rank), Dim::Any()));
}

// `data` with the dims at `positions` replaced by `?`.
const TensorType* AnyAt(const TensorType* data, std::initializer_list<size_t> positions) {
  Shape out(data->shape().begin(), data->shape().end());
  for (size_t p : positions) out[p] = Dim::Any();
  return TensorTy(data->dtype(), out);
}

}  // namespace

// dyn.reshape(data, newshape), dyn.broadcast_to(data, shape): a shape of
// newshape's length.
absl::StatusOr<const Type*> DynReshape(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t n, VectorLength(call, 1));
  return AnyShape(data->dtype(), n);
}

// dyn.full(fill_value, shape): `dtype` (fill_value's when unset).
absl::StatusOr<const Type*> DynFull(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* fill, TensorArg(call, 0));
  if (fill->rank() != 0) return Error("fill_value must be a scalar, got {}", TypeToString(fill));
  CARVE_ASSIGN_OR_RETURN(int64_t n, VectorLength(call, 1));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("dtype"));
  return AnyShape(dtype.is_void() ? fill->dtype() : dtype, n);
}

// dyn.zeros(shape), dyn.ones(shape).
absl::StatusOr<const Type*> DynInitOp(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(int64_t n, VectorLength(call, 0));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("dtype"));
  return AnyShape(dtype.is_void() ? DataType::Float(32) : dtype, n);
}

// dyn.expand_dims(data, axis): num_newaxis more dims, all `?`.
absl::StatusOr<const Type*> DynExpandDims(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 1).status());
  CARVE_ASSIGN_OR_RETURN(int64_t n, AttrReader(call).Int("num_newaxis"));
  if (n < 0) return Error("num_newaxis must be non-negative, got {}", n);
  return AnyShape(data->dtype(), int64_t(data->rank()) + n);
}

// dyn.squeeze(data, axes): axes' length fewer dims, all `?`.
absl::StatusOr<const Type*> DynSqueeze(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t n, VectorLength(call, 1));
  if (n > int64_t(data->rank())) return Error("{} axes for a rank-{} input", n, data->rank());
  return AnyShape(data->dtype(), int64_t(data->rank()) - n);
}

// dyn.strided_slice(data, begin, end, strides), dyn.nn.pad(data,
// pad_width, pad_val): the data's rank, all `?`.
absl::StatusOr<const Type*> DynSameRank(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  for (size_t i = 1; i < call.args.size(); ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  return AnyShape(data->dtype(), int64_t(data->rank()));
}

// dyn.tile(data, reps): rank max(ndim, len(reps)), all `?`.
absl::StatusOr<const Type*> DynTile(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t n, VectorLength(call, 1));
  return AnyShape(data->dtype(), std::max(int64_t(data->rank()), n));
}

// dyn.topk(data, k): topk's type with the axis' extent `?`.
absl::StatusOr<const Type*> DynTopK(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* k, TensorArg(call, 1));
  if (k->rank() != 0 || !k->dtype().is_integral()) {
    return Error("k must be an integer scalar, got {}", TypeToString(k));
  }
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, data->rank()));
  CARVE_ASSIGN_OR_RETURN(std::string_view ret, attrs.String("ret_type"));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("dtype"));
  if (dtype.is_void()) dtype = DataType::Int(32);
  const TensorType* values = AnyAt(data, {size_t(axis)});
  const TensorType* indices = TensorTy(dtype, values->shape());
  if (ret == "values") return values;
  if (ret == "indices") return indices;
  if (ret != "both") return Error("ret_type must be both, values or indices, got \"{}\"", ret);
  return TupleTy(std::vector<const Type*>{values, indices});
}

// dyn.one_hot(indices, on_value, off_value, depth): indices' shape with a
// `?` axis inserted at `axis`, in `dtype`.
absl::StatusOr<const Type*> DynOneHot(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 0));
  for (size_t i = 1; i < 4; ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("dtype"));
  if (dtype.is_void()) return Error("attribute 'dtype' must be set");
  const int64_t rank = int64_t(indices->rank()) + 1;
  int64_t at = axis == -1 ? rank - 1 : axis;
  if (at < 0 || at >= rank) return Error("axis {} is out of range for rank {}", axis, rank);
  Shape out(indices->shape().begin(), indices->shape().end());
  out.insert(out.begin() + at, Dim::Any());
  return TensorTy(dtype, out);
}

// dyn.sparse_to_dense(indices, values, default_value, output_shape) and
// sparse_to_dense with the shape attribute: the values' dtype.
absl::StatusOr<const Type*> DynSparseToDense(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(TensorArg(call, 0).status());
  CARVE_ASSIGN_OR_RETURN(const TensorType* values, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 2).status());
  CARVE_ASSIGN_OR_RETURN(int64_t n, VectorLength(call, 3));
  return AnyShape(values->dtype(), n);
}

absl::StatusOr<const Type*> SparseToDense(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(TensorArg(call, 0).status());
  CARVE_ASSIGN_OR_RETURN(const TensorType* values, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(TensorArg(call, 2).status());
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, AttrReader(call).Ints("output_shape"));
  Shape out;
  for (int64_t d : shape) out.push_back(D(d));
  return TensorTy(values->dtype(), out);
}

// dyn.image.resize2d(data, size, roi), dyn.nn.upsampling(data, scale_h,
// scale_w): the spatial H and W extents `?`.
absl::StatusOr<const Type*> DynResizeHW(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  for (size_t i = 1; i < call.args.size(); ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, AttrReader(call).String("layout"));
  size_t h = layout.find('H'), w = layout.find('W');
  if (layout.size() != data->rank() || h == layout.npos || w == layout.npos) {
    return Error("layout {} does not fit {}", layout, TypeToString(data));
  }
  return AnyAt(data, {h, w});
}

// dyn.nn.upsampling3d(data, scale_d, scale_h, scale_w): D, H, W `?`.
absl::StatusOr<const Type*> DynResizeDHW(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  for (size_t i = 1; i < call.args.size(); ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  CARVE_ASSIGN_OR_RETURN(std::string_view layout, AttrReader(call).String("layout"));
  size_t d = layout.find('D'), h = layout.find('H'), w = layout.find('W');
  if (layout.size() != data->rank() || d == layout.npos || h == layout.npos || w == layout.npos) {
    return Error("layout {} does not fit {}", layout, TypeToString(data));
  }
  return AnyAt(data, {d, h, w});
}

}  // namespace carve::rel
