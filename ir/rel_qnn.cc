// QNN relations (TVM's src/relay/qnn/op/*.cc): dtype checks, the shapes of
// scales (float32) and zero points (int32), which are scalars or per-axis
// vectors, then the float op's shape rule.
//
// Argument positions follow the call order built by the qnn `_make`
// functions, not the registry's arg names (which TVM lists in a different
// order for qnn.conv2d and qnn.dense).
#include <initializer_list>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

absl::Status ExpectDType(DataType actual, std::initializer_list<DataType> allowed,
                         std::string_view what) {
  std::string names;
  for (DataType d : allowed) {
    if (d == actual) return absl::OkStatus();
    names += names.empty() ? DTypeName(d) : ", " + DTypeName(d);
  }
  return Error("expected {} dtype in ({}), got {}", what, names, DTypeName(actual));
}

// The extent a per-axis scale or zero point must have: data.shape[axis]
// (axis normalised; a rank-0 input counts as one channel).
absl::StatusOr<Dim> AxisExtent(const TensorType* data, int64_t axis) {
  int64_t rank = data->rank();
  if (rank == 0) {
    if (axis > 0) return Error("axis {} is out of range for a scalar input", axis);
    return D(1);
  }
  CARVE_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis, rank));
  return data->shape()[a];
}

// Checks a (scale, zero point) pair at argument positions `scale`, `zp`.
absl::Status ExpectQParams(const TypeRelCall& call, size_t scale, size_t zp, Dim extent,
                           std::string_view scale_name, std::string_view zp_name) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* s, TensorArg(call, scale));
  CARVE_ASSIGN_OR_RETURN(const TensorType* z, TensorArg(call, zp));
  CARVE_RETURN_IF_ERROR(ExpectScalarOrVector(s, kF32, extent, scale_name));
  return ExpectScalarOrVector(z, kI32, extent, zp_name);
}

absl::Status ExpectScalarQParams(const TypeRelCall& call, size_t scale, size_t zp,
                                 std::string_view scale_name, std::string_view zp_name) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* s, TensorArg(call, scale));
  CARVE_ASSIGN_OR_RETURN(const TensorType* z, TensorArg(call, zp));
  CARVE_RETURN_IF_ERROR(ExpectScalar(s, kF32, scale_name));
  return ExpectScalar(z, kI32, zp_name);
}

// The float relation `rel` applied to the first two arguments.
absl::StatusOr<const Type*> OnFirstTwo(const TypeRelCall& call, TypeRelation rel) {
  if (call.args.size() < 2) return Error("missing arguments");
  TypeRelCall inner{call.op, call.args.subspan(0, 2), call.attrs};
  return rel(inner);
}

// The extent of qnn.conv2d's per-channel kernel scale (TVM's rule): the
// weight's O dim for groups == 1; for depthwise weight.I * weight.O; for
// other grouped convs `channels`.
absl::StatusOr<Dim> KernelScaleExtent(const TypeRelCall& call, const TensorType* data,
                                      const TensorType* weight) {
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t groups, attrs.Int("groups"));
  CARVE_ASSIGN_OR_RETURN(std::string_view kernel_layout, attrs.String("kernel_layout"));
  CARVE_ASSIGN_OR_RETURN(std::string_view data_layout, attrs.String("data_layout"));
  size_t o = kernel_layout.find('O'), i = kernel_layout.find('I'), c = data_layout.find('C');
  if (o == std::string_view::npos || i == std::string_view::npos || o >= weight->rank() ||
      i >= weight->rank()) {
    return Error("kernel_layout {} does not locate O and I in weight {}", kernel_layout,
                 TypeToString(weight));
  }
  if (groups == 1) return weight->shape()[o];
  if (c == std::string_view::npos || c >= data->rank()) {
    return Error("data_layout {} does not locate C in input {}", data_layout, TypeToString(data));
  }
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> channels, attrs.OptInt("channels"));
  if (!channels) return Error("channels must be set when groups > 1");
  Dim wi = weight->shape()[i], wo = weight->shape()[o];
  if (DimIs(data->shape()[c], groups) && DimIs(wi, *channels)) {
    if (wi.is_any() || wo.is_any()) return Dim::Any();
    CARVE_ASSIGN_OR_RETURN(int64_t product, CheckedMul(wi.value, wo.value));
    return Computed(product, {wi, wo});
  }
  return D(*channels);
}

}  // namespace

absl::StatusOr<const Type*> QnnQuantize(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectDType(data->dtype(), {kF32}, "input"));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(Dim extent, AxisExtent(data, axis));
  CARVE_RETURN_IF_ERROR(ExpectQParams(call, 1, 2, extent, "output_scale", "output_zero_point"));
  CARVE_ASSIGN_OR_RETURN(DataType out, attrs.DType("out_dtype"));
  CARVE_RETURN_IF_ERROR(ExpectDType(
      out, {DataType::Int(8), DataType::UInt(8), DataType::Int(16), DataType::UInt(16), kI32},
      "out_dtype"));
  return TensorTy(out, data->shape());
}

absl::StatusOr<const Type*> QnnDequantize(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectDType(
      data->dtype(),
      {DataType::Int(8), DataType::UInt(8), DataType::Int(16), DataType::UInt(16), kI32}, "input"));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(Dim extent, AxisExtent(data, axis));
  CARVE_RETURN_IF_ERROR(ExpectQParams(call, 1, 2, extent, "input_scale", "input_zero_point"));
  CARVE_ASSIGN_OR_RETURN(DataType out, attrs.DType("out_dtype"));
  CARVE_RETURN_IF_ERROR(ExpectDType(out, {kF32, DataType::Float(16)}, "out_dtype"));
  return TensorTy(out, data->shape());
}

absl::StatusOr<const Type*> QnnRequantize(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectDType(
      data->dtype(),
      {DataType::Int(8), DataType::UInt(8), DataType::Int(16), kI32, DataType::Int(64)}, "input"));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(Dim extent, AxisExtent(data, axis));
  CARVE_RETURN_IF_ERROR(ExpectQParams(call, 1, 2, extent, "input_scale", "input_zero_point"));
  CARVE_RETURN_IF_ERROR(ExpectScalarQParams(call, 3, 4, "output_scale", "output_zero_point"));
  CARVE_ASSIGN_OR_RETURN(DataType out, attrs.DType("out_dtype"));
  CARVE_RETURN_IF_ERROR(ExpectDType(
      out, {DataType::Int(8), DataType::UInt(8), DataType::Int(16), kI32}, "out_dtype"));
  return TensorTy(out, data->shape());
}

absl::StatusOr<const Type*> QnnConv2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  const auto q = {DataType::Int(8), DataType::UInt(8), DataType::Int(16)};
  CARVE_RETURN_IF_ERROR(ExpectDType(data->dtype(), q, "input"));
  CARVE_RETURN_IF_ERROR(ExpectDType(weight->dtype(), q, "weight"));
  CARVE_ASSIGN_OR_RETURN(DataType out, AttrReader(call).DType("out_dtype"));
  CARVE_RETURN_IF_ERROR(
      ExpectDType(out, {DataType::Int(16), kI32, DataType::Int(64)}, "out_dtype"));
  // Call order: data, weight, input_zero_point, kernel_zero_point,
  // input_scale, kernel_scale.
  CARVE_RETURN_IF_ERROR(ExpectScalarQParams(call, 4, 2, "input_scale", "input_zero_point"));
  CARVE_ASSIGN_OR_RETURN(Dim extent, KernelScaleExtent(call, data, weight));
  CARVE_RETURN_IF_ERROR(ExpectQParams(call, 5, 3, extent, "kernel_scale", "kernel_zero_point"));
  return OnFirstTwo(call, &Conv2D);
}

absl::StatusOr<const Type*> QnnDense(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectDType(
      data->dtype(), {DataType::Int(8), DataType::UInt(8), DataType::Int(16), DataType::UInt(16)},
      "input"));
  CARVE_RETURN_IF_ERROR(
      ExpectDType(weight->dtype(), {DataType::Int(8), DataType::UInt(8)}, "weight"));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(DataType out, attrs.DType("out_dtype"));
  CARVE_RETURN_IF_ERROR(ExpectDType(out, {kI32, DataType::Int(64)}, "out_dtype"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> units, attrs.OptInt("units"));
  // units=None (TVM's Python default): the weight's rows, as Dense reads them.
  if (!units && weight->rank() == 0) return Error("the weight must have rank 2");
  const Dim rows = units ? D(*units) : weight->shape()[0];
  CARVE_RETURN_IF_ERROR(ExpectScalarQParams(call, 4, 2, "input_scale", "input_zero_point"));
  CARVE_RETURN_IF_ERROR(ExpectQParams(call, 5, 3, rows, "kernel_scale", "kernel_zero_point"));
  return OnFirstTwo(call, &Dense);
}

absl::StatusOr<const Type*> QnnAdd(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* lhs, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* rhs, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t lhs_axis, attrs.Int("lhs_axis"));
  CARVE_ASSIGN_OR_RETURN(int64_t rhs_axis, attrs.Int("rhs_axis"));
  CARVE_ASSIGN_OR_RETURN(Dim lhs_extent, AxisExtent(lhs, lhs_axis));
  CARVE_ASSIGN_OR_RETURN(Dim rhs_extent, AxisExtent(rhs, rhs_axis));
  CARVE_RETURN_IF_ERROR(ExpectQParams(call, 2, 3, lhs_extent, "lhs_scale", "lhs_zero_point"));
  CARVE_RETURN_IF_ERROR(ExpectQParams(call, 4, 5, rhs_extent, "rhs_scale", "rhs_zero_point"));
  CARVE_RETURN_IF_ERROR(ExpectScalarQParams(call, 6, 7, "output_scale", "output_zero_point"));
  return OnFirstTwo(call, &Broadcast);
}

}  // namespace carve::rel
