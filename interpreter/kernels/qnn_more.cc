// Kernels of the QNN ops beyond the first registry, built from the
// registered qnn.quantize / qnn.dequantize / qnn.requantize kernels the way
// TVM's canonicalization and legalization build them from those ops:
//   qnn.<unary>      dequantize, the float op, quantize (TVM's lookup table
//                    holds exactly these values for every int8/uint8 input)
//   qnn.mul          (lhs - lhs_zp) * (rhs - rhs_zp) in int32, requantized
//                    from lhs_scale * rhs_scale to the output
//   qnn.subtract     both sides requantized to the output in int32,
//                    lhs - rhs + output_zp, narrowed
//   qnn.concatenate  every input requantized to the output, concatenated
//   qnn.batch_matmul (x - x_zp) . (y - y_zp) in int32
//   qnn.simulated_(de)quantize  topi's float simulation, dtype by code
#include <cmath>
#include <cstring>
#include <limits>

#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// dequantize -> `float_op` (a registered float kernel, or hardswish when
// null) -> quantize back to the input dtype.
Outputs QnnUnary(const KernelContext& ctx, const char* float_op) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  const NDArray& x = ctx.inputs[0];
  const TensorType* f32 = StaticTensorType(DataType::Float(32), x.shape());
  CARVE_ASSIGN_OR_RETURN(
      NDArray real, RunRegisteredKernel(ctx, "qnn.dequantize", {x, ctx.inputs[1], ctx.inputs[2]},
                                        f32, {{"out_dtype", AttrValue::Str("float32")}}));
  NDArray y;
  if (float_op != nullptr) {
    CARVE_ASSIGN_OR_RETURN(y, RunRegisteredKernel(ctx, float_op, {real}, f32, {}));
  } else {  // hardswish: x * relu6(x + 3) / 6
    y = real.Copy();
    float* v = y.data<float>();
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      v[i] = v[i] * std::min(std::max(v[i] + 3.0f, 0.0f), 6.0f) / 6.0f;
    }
  }
  CARVE_ASSIGN_OR_RETURN(
      NDArray q, RunRegisteredKernel(ctx, "qnn.quantize", {y, ctx.inputs[3], ctx.inputs[4]},
                                     StaticTensorType(x.dtype(), x.shape()),
                                     {{"out_dtype", AttrValue::Str(x.dtype().ToString())}}));
  return std::vector<NDArray>{q};
}

template <const char* kOp>
Outputs QnnUnaryOf(const KernelContext& ctx) {
  return QnnUnary(ctx, kOp);
}

constexpr char kTanh[] = "tanh", kExp[] = "exp", kSqrt[] = "sqrt", kRsqrt[] = "rsqrt",
               kErf[] = "erf", kSigmoid[] = "sigmoid", kLog[] = "log", kAbs[] = "abs";

// The flat offsets of `a` and `b` (numpy broadcasting) for every element of
// `out_shape`.
std::vector<std::pair<int64_t, int64_t>> BroadcastPairs(const std::vector<int64_t>& a,
                                                        const std::vector<int64_t>& b,
                                                        const std::vector<int64_t>& out) {
  auto offsets = [&](const std::vector<int64_t>& s, int64_t flat) {
    int64_t off = 0, stride = 1;
    for (size_t k = 0; k < s.size(); ++k) {
      size_t d = s.size() - 1 - k, od = out.size() - 1 - k;
      int64_t coord = (flat / ShapeProduct(out, od + 1, out.size())) % out[od];
      off += (s[d] == 1 ? 0 : coord) * stride;
      stride *= s[d];
    }
    return off;
  };
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t i = 0, n = ShapeProduct(out, 0, out.size()); i < n; ++i) {
    pairs.emplace_back(offsets(a, i), offsets(b, i));
  }
  return pairs;
}

int64_t Clamp(int64_t v, DataType dt) {
  int64_t lo = dt.is_uint() ? 0 : -(int64_t{1} << (dt.bits - 1));
  int64_t hi = dt.is_uint() ? (int64_t{1} << dt.bits) - 1 : (int64_t{1} << (dt.bits - 1)) - 1;
  return std::min(std::max(v, lo), hi);
}

// A rank-0 tensor.
NDArray Scalar(DataType dtype, double v) { return NDArray::Scalar(dtype, v); }

Outputs QnnMul(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 8));
  const NDArray& lhs = ctx.inputs[0];
  const NDArray& rhs = ctx.inputs[1];
  for (int i = 2; i < 8; ++i) {
    if (ctx.inputs[i].num_elements() != 1) {
      return KernelError(ctx, "per-channel parameters are not supported (TVM's mul needs scalars)");
    }
  }
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, StaticShape(out_t));
  const double lzp = ctx.inputs[3].GetAsDouble(0), rzp = ctx.inputs[5].GetAsDouble(0);
  NDArray prod = NDArray::Empty(DataType::Int(32), shape);
  auto pairs = BroadcastPairs(lhs.shape(), rhs.shape(), shape);
  for (size_t i = 0; i < pairs.size(); ++i) {
    int64_t l = int64_t(lhs.GetAsDouble(pairs[i].first) - lzp);
    int64_t r = int64_t(rhs.GetAsDouble(pairs[i].second) - rzp);
    prod.data<int32_t>()[i] = int32_t(uint32_t(l * r));
  }
  // TVM multiplies the two float32 scales as float32 constants.
  const float scale = float(ctx.inputs[2].GetAsDouble(0)) * float(ctx.inputs[4].GetAsDouble(0));
  CARVE_ASSIGN_OR_RETURN(
      NDArray out,
      RunRegisteredKernel(ctx, "qnn.requantize",
                          {prod, Scalar(DataType::Float(32), scale), Scalar(DataType::Int(32), 0),
                           ctx.inputs[6], ctx.inputs[7]},
                          out_t, {{"out_dtype", AttrValue::Str(out_t->dtype().ToString())}}));
  return std::vector<NDArray>{out};
}

// `t` requantized from (scale, zp) to the output parameters, in int32.
absl::StatusOr<NDArray> ToOutputInt32(const KernelContext& ctx, const NDArray& t,
                                      const NDArray& scale, const NDArray& zp,
                                      const NDArray& out_scale, const NDArray& out_zp) {
  return RunRegisteredKernel(ctx, "qnn.requantize", {t, scale, zp, out_scale, out_zp},
                             StaticTensorType(DataType::Int(32), t.shape()),
                             {{"out_dtype", AttrValue::Str("int32")}});
}

Outputs QnnSubtract(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 8));
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, StaticShape(out_t));
  CARVE_ASSIGN_OR_RETURN(NDArray l, ToOutputInt32(ctx, ctx.inputs[0], ctx.inputs[2], ctx.inputs[3],
                                                  ctx.inputs[6], ctx.inputs[7]));
  CARVE_ASSIGN_OR_RETURN(NDArray r, ToOutputInt32(ctx, ctx.inputs[1], ctx.inputs[4], ctx.inputs[5],
                                                  ctx.inputs[6], ctx.inputs[7]));
  const int64_t out_zp = int64_t(ctx.inputs[7].GetAsDouble(0));
  NDArray out = NDArray::Empty(out_t->dtype(), shape);
  auto pairs = BroadcastPairs(l.shape(), r.shape(), shape);
  for (size_t i = 0; i < pairs.size(); ++i) {
    int64_t v = int64_t(l.data<int32_t>()[pairs[i].first]) -
                int64_t(r.data<int32_t>()[pairs[i].second]) + out_zp;
    out.SetFromDouble(int64_t(i), double(Clamp(int64_t(int32_t(uint32_t(v))), out.dtype())));
  }
  return std::vector<NDArray>{out};
}

// Inputs: n data tensors, n scales, n zero points, output scale and zero
// point (the tuples arrive flattened).
Outputs QnnConcatenate(const KernelContext& ctx) {
  if (ctx.inputs.size() < 5 || (ctx.inputs.size() - 2) % 3 != 0) {
    return KernelError(ctx, "expected n tensors, n scales, n zero points and the output's pair");
  }
  const size_t n = (ctx.inputs.size() - 2) / 3;
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  std::vector<NDArray> parts;
  for (size_t i = 0; i < n; ++i) {
    const NDArray& t = ctx.inputs[i];
    CARVE_ASSIGN_OR_RETURN(
        NDArray q, RunRegisteredKernel(ctx, "qnn.requantize",
                                       {t, ctx.inputs[n + i], ctx.inputs[2 * n + i],
                                        ctx.inputs[3 * n], ctx.inputs[3 * n + 1]},
                                       StaticTensorType(out_t->dtype(), t.shape()),
                                       {{"out_dtype", AttrValue::Str(out_t->dtype().ToString())}}));
    parts.push_back(q);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out,
                         RunRegisteredKernel(ctx, "concatenate", parts, out_t,
                                             {{"axis", AttrValue::Int(AttrInt(ctx, "axis", 0))}}));
  return std::vector<NDArray>{out};
}

// (x - x_zp) . (y - y_zp) over the last two axes, batches broadcast from 1.
Outputs QnnBatchMatmul(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 6));
  const NDArray& x = ctx.inputs[0];
  const NDArray& y = ctx.inputs[1];
  if (x.rank() != 3 || y.rank() != 3) return KernelError(ctx, "x and y must be 3-d");
  const bool ta = AttrBool(ctx, "transpose_a", false), tb = AttrBool(ctx, "transpose_b", false);
  const int64_t xzp = int64_t(ctx.inputs[2].GetAsDouble(0));
  const int64_t yzp = int64_t(ctx.inputs[3].GetAsDouble(0));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t batch = out.shape()[0], m = out.shape()[1], n = out.shape()[2];
  const int64_t k = ta ? x.shape()[1] : x.shape()[2];
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t bx = x.shape()[0] == 1 ? 0 : b, by = y.shape()[0] == 1 ? 0 : b;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          int64_t xv = int64_t(x.GetAsDouble(bx * x.shape()[1] * x.shape()[2] +
                                             (ta ? p * x.shape()[2] + i : i * x.shape()[2] + p)));
          int64_t yv = int64_t(y.GetAsDouble(by * y.shape()[1] * y.shape()[2] +
                                             (tb ? j * y.shape()[2] + p : p * y.shape()[2] + j)));
          acc += (xv - xzp) * (yv - yzp);
        }
        out.data<int32_t>()[(b * m + i) * n + j] = int32_t(uint32_t(acc));
      }
    }
  }
  return std::vector<NDArray>{out};
}

// The (min, max) of the dtype with topi's SQNN code, or nullopt for
// "disable" (0).
absl::StatusOr<std::optional<std::pair<double, double>>> SqnnRange(const KernelContext& ctx,
                                                                   const NDArray& code) {
  CARVE_ASSIGN_OR_RETURN(int64_t c, ReadScalar<int64_t>(ctx, code, "the dtype code"));
  switch (c) {
    case 0:
      return std::nullopt;
    case 1:
      return std::make_pair(-128.0, 127.0);
    case 2:
      return std::make_pair(0.0, 255.0);
    case 3:
      return std::make_pair(double(std::numeric_limits<int32_t>::min()),
                            double(std::numeric_limits<int32_t>::max()));
    default:
      return KernelError(ctx, "unknown dtype code {} (0 disable, 1 int8, 2 uint8, 3 int32)", c);
  }
}

// The value at element `e` of a per-axis (or scalar) parameter.
double PerAxis(const NDArray& p, const NDArray& data, int64_t axis, int64_t e) {
  if (p.num_elements() == 1 || data.rank() == 0) return p.GetAsDouble(0);
  const int64_t inner = ShapeProduct(data.shape(), size_t(axis) + 1, data.rank());
  return p.GetAsDouble((e / inner) % data.shape()[axis] % p.num_elements());
}

template <bool kQuantize>
Outputs Simulated(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  const NDArray& x = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(auto range, SqnnRange(ctx, ctx.inputs[1]));
  NDArray out = x.Copy();
  if (!range) return std::vector<NDArray>{out};
  int64_t axis = 0;
  if (x.rank() > 0) {
    CARVE_ASSIGN_OR_RETURN(axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", -1), int64_t(x.rank())));
  }
  for (int64_t e = 0; e < x.num_elements(); ++e) {
    const double s = PerAxis(ctx.inputs[2], x, axis, e), z = PerAxis(ctx.inputs[3], x, axis, e);
    const double v = x.GetAsDouble(e);
    out.SetFromDouble(e, kQuantize ? std::clamp(std::round(v / s) + z, range->first, range->second)
                                   : (v - z) * s);
  }
  return std::vector<NDArray>{out};
}

}  // namespace

CARVE_REGISTER_KERNEL("qnn.tanh", QnnUnaryOf<kTanh>);
CARVE_REGISTER_KERNEL("qnn.exp", QnnUnaryOf<kExp>);
CARVE_REGISTER_KERNEL("qnn.sqrt", QnnUnaryOf<kSqrt>);
CARVE_REGISTER_KERNEL("qnn.rsqrt", QnnUnaryOf<kRsqrt>);
CARVE_REGISTER_KERNEL("qnn.erf", QnnUnaryOf<kErf>);
CARVE_REGISTER_KERNEL("qnn.sigmoid", QnnUnaryOf<kSigmoid>);
CARVE_REGISTER_KERNEL("qnn.log", QnnUnaryOf<kLog>);
CARVE_REGISTER_KERNEL("qnn.abs", QnnUnaryOf<kAbs>);
CARVE_REGISTER_KERNEL("qnn.hardswish", [](const KernelContext& c) { return QnnUnary(c, nullptr); });
CARVE_REGISTER_KERNEL("qnn.mul", QnnMul);
CARVE_REGISTER_KERNEL("qnn.subtract", QnnSubtract);
CARVE_REGISTER_KERNEL("qnn.concatenate", QnnConcatenate);
CARVE_REGISTER_KERNEL("qnn.batch_matmul", QnnBatchMatmul);
CARVE_REGISTER_KERNEL("qnn.simulated_quantize", Simulated<true>);
CARVE_REGISTER_KERNEL("qnn.simulated_dequantize", Simulated<false>);

}  // namespace carve
