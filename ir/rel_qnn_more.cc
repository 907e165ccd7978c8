// Relations of the QNN ops beyond the first registry (TVM's
// src/relay/qnn/op/*.cc): the unary elementwise ops, mul, subtract,
// leaky_relu, softmax, concatenate, avg_pool2d, batch_matmul,
// conv2d_transpose, contrib_dense_pack and the simulated (de)quantize ops,
// plus nn.contrib_dense_pack. Scales are float32 and zero points int32,
// scalars unless noted; the output follows the float op's rule.
#include "ir/rel_common.h"
#include "ir/rel_on_args.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

absl::Status ExpectQuantized(const TensorType* t, std::initializer_list<DataType> allowed,
                             std::string_view what) {
  for (DataType d : allowed) {
    if (t->dtype() == d) return absl::OkStatus();
  }
  std::string names;
  for (DataType d : allowed) names += (names.empty() ? "" : " or ") + d.ToString();
  return Error("{} must be {}, got {}", what, names, TypeToString(t));
}

// Scalar (scale, zero point) pairs at argument positions first, first + 1, ...
absl::Status ScalarPairs(const TypeRelCall& call, size_t first, size_t pairs) {
  for (size_t p = 0; p < pairs; ++p) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* s, TensorArg(call, first + 2 * p));
    CARVE_ASSIGN_OR_RETURN(const TensorType* z, TensorArg(call, first + 2 * p + 1));
    CARVE_RETURN_IF_ERROR(ExpectScalar(s, DataType::Float(32), ArgName(call, first + 2 * p)));
    CARVE_RETURN_IF_ERROR(ExpectScalar(z, DataType::Int(32), ArgName(call, first + 2 * p + 1)));
  }
  return absl::OkStatus();
}

const DataType kInt8 = DataType::Int(8), kUInt8 = DataType::UInt(8), kInt32 = DataType::Int(32);

}  // namespace

// qnn.{tanh,exp,sqrt,rsqrt,erf,sigmoid,hardswish,log,abs}(x, scale,
// zero_point, output_scale, output_zero_point): x's type (int8 / uint8).
absl::StatusOr<const Type*> QnnUnary(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(x, {kInt8, kUInt8}, "data"));
  CARVE_RETURN_IF_ERROR(ScalarPairs(call, 1, 2));
  return x;
}

// qnn.leaky_relu: as the unary ops, any quantized dtype.
absl::StatusOr<const Type*> QnnLeakyRelu(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(x, {kInt8, kUInt8, kInt32}, "data"));
  CARVE_RETURN_IF_ERROR(ScalarPairs(call, 1, 2));
  return x;
}

// qnn.softmax: int8 in, int8 of the same shape out.
absl::StatusOr<const Type*> QnnSoftmax(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(x, {kInt8}, "data"));
  CARVE_RETURN_IF_ERROR(ScalarPairs(call, 1, 2));
  return x;
}

// qnn.concatenate((x...), (scales...), (zero_points...), output_scale,
// output_zero_point): concatenate's type of the data tuple.
absl::StatusOr<const Type*> QnnConcatenate(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> data, TensorTupleArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> scales, TensorTupleArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> zps, TensorTupleArg(call, 2));
  if (scales.size() != data.size() || zps.size() != data.size()) {
    return Error("{} tensors need as many scales and zero points, got {} and {}", data.size(),
                 scales.size(), zps.size());
  }
  for (const TensorType* d : data) {
    CARVE_RETURN_IF_ERROR(ExpectQuantized(d, {kInt8, kUInt8, kInt32}, "data"));
  }
  for (size_t i = 0; i < data.size(); ++i) {
    if (scales[i]->dtype() != DataType::Float(32) || zps[i]->dtype() != kInt32) {
      return Error("input scales must be float32 and zero points int32, got {} and {}",
                   TypeToString(scales[i]), TypeToString(zps[i]));
    }
  }
  CARVE_RETURN_IF_ERROR(ScalarPairs(call, 3, 1));
  return OnArgs(call, {0}, &Concatenate);
}

// qnn.avg_pool2d(data, input_scale, input_zero_point, output_scale,
// output_zero_point): avg_pool2d's type.
absl::StatusOr<const Type*> QnnAvgPool2D(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(x, {kInt8, kUInt8}, "data"));
  CARVE_RETURN_IF_ERROR(ScalarPairs(call, 1, 2));
  return OnArgs(call, {0}, &Pool2D);
}

// qnn.batch_matmul(x, y, x_zero_point, y_zero_point, x_scale, y_scale):
// batch_matmul's type in int32.
absl::StatusOr<const Type*> QnnBatchMatmul(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* y, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(x, {kInt8, kUInt8}, "x"));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(y, {kInt8, kUInt8}, "y"));
  CARVE_ASSIGN_OR_RETURN(DataType out, AttrReader(call).DType("out_dtype"));
  if (out != kInt32) return Error("out_dtype must be int32, got {}", DTypeName(out));
  for (size_t i = 2; i < 6; ++i) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, i));
    CARVE_RETURN_IF_ERROR(
        ExpectScalar(t, i < 4 ? kInt32 : DataType::Float(32), i < 4 ? "zero point" : "scale"));
  }
  return OnArgs(call, {0, 1}, &BatchMatmul);
}

// qnn.conv2d_transpose(data, weight, input_zero_point, kernel_zero_point,
// input_scale, kernel_scale): conv2d_transpose's type in out_dtype.
absl::StatusOr<const Type*> QnnConv2DTranspose(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* w, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(x, {kInt8, kUInt8, DataType::Int(16)}, "data"));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(w, {kInt8, kUInt8, DataType::Int(16)}, "weight"));
  CARVE_ASSIGN_OR_RETURN(const TensorType* izp, TensorArg(call, 2));
  CARVE_ASSIGN_OR_RETURN(const TensorType* iscale, TensorArg(call, 4));
  CARVE_RETURN_IF_ERROR(ExpectScalar(izp, kInt32, "input_zero_point"));
  CARVE_RETURN_IF_ERROR(ExpectScalar(iscale, DataType::Float(32), "input_scale"));
  return OnArgs(call, {0, 1}, &Conv2DTranspose);
}

// nn.contrib_dense_pack(data (..., K), weight (N/n, K, n)): (..., N) in
// out_dtype (the data's when unset).
absl::StatusOr<const Type*> DensePack(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  if (data->rank() < 1 || weight->rank() != 3) {
    return Error("expected data of rank >= 1 and a packed 3-d weight, got {} and {}",
                 TypeToString(data), TypeToString(weight));
  }
  if (!DimMatches(data->shape().back(), weight->shape()[1])) {
    return Error("data's last dim must match the weight's dim 1, got {} and {}", TypeToString(data),
                 TypeToString(weight));
  }
  CARVE_ASSIGN_OR_RETURN(DataType out, AttrReader(call).DType("out_dtype"));
  Shape shape(data->shape().begin(), data->shape().end());
  Dim a = weight->shape()[0], b = weight->shape()[2];
  shape.back() = a.is_any() || b.is_any() ? Dim::Any() : D(a.value * b.value);
  return TensorTy(out.is_void() ? data->dtype() : out, shape);
}

// qnn.contrib_dense_pack(data (M, K), weight (N / n, K / k, n, k),
// input_zero_point, kernel_zero_point, input_scale, kernel_scale): TVM's
// QnnDensePackRel, (M, N) in out_dtype, which must be set.
absl::StatusOr<const Type*> QnnDensePack(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* w, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectQuantized(x, {kInt8, kUInt8}, "data"));
  if (x->rank() != 2 || w->rank() != 4) {
    return Error("expected 2-d data and a 4-d packed weight, got {} and {}", TypeToString(x),
                 TypeToString(w));
  }
  CARVE_ASSIGN_OR_RETURN(DataType out, AttrReader(call).DType("out_dtype"));
  if (out.is_void()) return Error("attribute 'out_dtype' must be set");
  Dim a = w->shape()[0], b = w->shape()[2];
  return TensorTy(
      out, Shape{x->shape()[0], a.is_any() || b.is_any() ? Dim::Any() : D(a.value * b.value)});
}

// qnn.simulated_quantize(data, out_dtype, scale, zero_point) and
// qnn.simulated_dequantize(data, in_dtype, scale, zero_point): data's type
// (the dtype arrives as a runtime int32 code).
absl::StatusOr<const Type*> QnnSimulated(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* x, TensorArg(call, 0));
  for (size_t i = 1; i < 4; ++i) CARVE_RETURN_IF_ERROR(TensorArg(call, i).status());
  return x;
}

}  // namespace carve::rel
