// Relations of gather, scatter_elements, cumsum and topk (TVM's GatherRel,
// ScatterElementsRel, ScanopRel, TopKRel).
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {

// gather(data, indices, axis): the output has the indices' shape.
absl::StatusOr<const Type*> Gather(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 1));
  if (!indices->dtype().is_integral()) {
    return Error("indices must be integers, got {}", TypeToString(indices));
  }
  if (indices->rank() != data->rank()) {
    return Error("indices must have the data's rank {}, got {}", data->rank(), indices->rank());
  }
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> axis, AttrReader(call).OptInt("axis"));
  if (!axis) return Error("attribute 'axis' must be set");
  CARVE_RETURN_IF_ERROR(NormalizeAxis(*axis, data->rank()).status());
  return TensorTy(data->dtype(), indices->shape());
}

// scatter_elements(data, indices, updates): data's type; updates match the
// indices' shape.
absl::StatusOr<const Type*> ScatterElements(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* updates, TensorArg(call, 2));
  if (!indices->dtype().is_integral()) {
    return Error("indices must be integers, got {}", TypeToString(indices));
  }
  if (indices->rank() != data->rank() || updates->rank() != indices->rank()) {
    return Error("data, indices and updates must have one rank, got {}, {} and {}",
                 TypeToString(data), TypeToString(indices), TypeToString(updates));
  }
  if (updates->dtype() != data->dtype()) {
    return Error("updates must have the data's dtype {}, got {}", data->dtype().ToString(),
                 updates->dtype().ToString());
  }
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> axis, AttrReader(call).OptInt("axis"));
  CARVE_RETURN_IF_ERROR(NormalizeAxis(axis.value_or(0), data->rank()).status());
  return data;
}

// cumsum(data, axis, dtype, exclusive): data's shape (flattened to 1-D when
// axis is None), in `dtype` when set.
absl::StatusOr<const Type*> Scanop(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("dtype"));
  if (dtype.is_void()) dtype = data->dtype();
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> axis, attrs.OptInt("axis"));
  if (axis) {
    CARVE_RETURN_IF_ERROR(NormalizeAxis(*axis, data->rank()).status());
    return TensorTy(dtype, data->shape());
  }
  int64_t n = 1;
  for (const Dim& d : data->shape()) {
    if (d.is_any()) return TensorTy(dtype, Shape{Dim::Any()});
    n *= d.value;
  }
  return TensorTy(dtype, Shape{Dim{n, false}});
}

}  // namespace carve::rel

namespace carve::rel {

// topk(data, k, axis, ret_type, is_ascend, dtype): values and / or indices
// with the axis cut to k (the whole extent when k is None or < 1).
absl::StatusOr<const Type*> TopK(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> k, attrs.OptInt("k"));
  CARVE_ASSIGN_OR_RETURN(int64_t raw_axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(raw_axis, data->rank()));
  CARVE_ASSIGN_OR_RETURN(std::string_view ret, attrs.String("ret_type"));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("dtype"));
  // TVM's C++ default is null and its Python wrapper passes "int32": an
  // unset dtype reads as the wrapper's, as dyn.topk does.
  if (dtype.is_void()) dtype = DataType::Int(32);
  if (!dtype.is_integral()) {
    return Error("dtype must be an integer type, got {}", dtype.ToString());
  }
  Shape shape(data->shape().begin(), data->shape().end());
  if (k && *k >= 1) {
    if (!shape[axis].is_any() && *k > shape[axis].value) {
      return Error("k {} exceeds the extent {} of axis {}", *k, shape[axis].value, axis);
    }
    shape[axis] = D(*k);
  }
  const Type* values = TensorTy(data->dtype(), shape);
  const Type* indices = TensorTy(dtype, shape);
  if (ret == "values") return values;
  if (ret == "indices") return indices;
  if (ret != "both") return Error("ret_type must be both, values or indices, got \"{}\"", ret);
  return TupleTy(std::vector<const Type*>{values, indices});
}

}  // namespace carve::rel
