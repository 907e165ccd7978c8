// Kernels of the QNN ops that TVM v0.16 runs only through a rewrite into
// integer Relay ops (src/relay/qnn/op/*.cc canonicalizations and
// python/tvm/relay/qnn/op/legalizations.py), following each rewrite step
// by step so the integers are TVM's:
//   qnn.leaky_relu        x requantized to the output (int32), then for
//                         x < input_zp: alpha * x' + (1 - alpha) * out_zp in
//                         fixed point; clipped to x's dtype
//   qnn.softmax           the integer-only softmax of arXiv 2207.01405
//                         (Algorithm 1, m = 30, 8 bits), requantized from
//                         scale 1/128 to the output as int8
//   qnn.avg_pool2d        x requantized to the output (int32), nn.avg_pool2d
//                         on int32, clipped to the output dtype
//   qnn.conv2d_transpose  data and weight widened to int16 less their zero
//                         points, nn.conv2d_transpose in out_dtype
// Requantize, fixed_point_multiply, avg_pool2d and conv2d_transpose are the
// registered kernels of those ops.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "interpreter/kernels/nn_util.h"
#include "ir/attrs.h"
#include "ir/op.h"

namespace carve::nn_kernels {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// A scalar parameter's value (rank 0 or one element).
absl::StatusOr<double> ScalarOf(const KernelContext& ctx, const NDArray& t, std::string_view what) {
  if (t.num_elements() != 1) return KernelError(ctx, "{} must be a scalar", what);
  return t.GetAsDouble(0);
}

NDArray CastTo(const NDArray& t, DataType dtype) {
  NDArray out = NDArray::Empty(dtype, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) out.SetFromDouble(i, t.GetAsDouble(i));
  return out;
}

// TVM's RequantizeOrUpcast: a cast to int32 when the input and output
// parameters are equal, else qnn.requantize to int32 (config rounding).
absl::StatusOr<NDArray> RequantizeOrUpcast(const KernelContext& ctx, const NDArray& data,
                                           size_t first_param) {
  CARVE_ASSIGN_OR_RETURN(double in_scale, ScalarOf(ctx, ctx.inputs[first_param], "input_scale"));
  CARVE_ASSIGN_OR_RETURN(double in_zp, ScalarOf(ctx, ctx.inputs[first_param + 1], "input_zero_point"));
  CARVE_ASSIGN_OR_RETURN(double out_scale, ScalarOf(ctx, ctx.inputs[first_param + 2], "output_scale"));
  CARVE_ASSIGN_OR_RETURN(double out_zp, ScalarOf(ctx, ctx.inputs[first_param + 3], "output_zero_point"));
  if (in_scale == out_scale && in_zp == out_zp) return CastTo(data, DataType::Int(32));
  return RunRegisteredKernel(ctx, "qnn.requantize",
                             {data, ctx.inputs[first_param], ctx.inputs[first_param + 1],
                              ctx.inputs[first_param + 2], ctx.inputs[first_param + 3]},
                             StaticTensorType(DataType::Int(32), data.shape()),
                             {{"out_dtype", AttrValue::Str("int32")}});
}

// TVM's GetFixedPointMultiplierShift: m = f * 2^(shift - 31), f a Q31
// significand.
std::pair<int64_t, int64_t> FixedPointOf(double m) {
  if (m == 0.0) return {0, 0};
  int exponent = 0;
  const double significand = std::frexp(m, &exponent);
  int64_t f = int64_t(std::round(significand * double(int64_t{1} << 31)));
  if (f == (int64_t{1} << 31)) {
    f /= 2;
    ++exponent;
  }
  return {f, exponent};
}

// fixed_point_multiply(t, m) through its registered kernel.
absl::StatusOr<NDArray> FixedPointMultiply(const KernelContext& ctx, const NDArray& t, double m) {
  const auto [multiplier, shift] = FixedPointOf(m);
  return RunRegisteredKernel(
      ctx, "fixed_point_multiply", {t}, StaticTensorType(DataType::Int(32), t.shape()),
      {{"multiplier", AttrValue::Int(multiplier)}, {"shift", AttrValue::Int(shift)}});
}

int64_t ClipTo(int64_t v, DataType dt) {
  const double lo = dt.is_uint() ? 0.0 : -std::ldexp(1.0, dt.bits - 1);
  const double hi = dt.is_uint() ? std::ldexp(1.0, dt.bits) - 1 : std::ldexp(1.0, dt.bits - 1) - 1;
  return std::clamp(v, int64_t(lo), int64_t(hi));
}

// int32 arithmetic as TVM's lowered code does it: wrapping.
int32_t Wrap(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

Outputs QnnLeakyRelu(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  const NDArray& x = ctx.inputs[0];
  if (!x.dtype().is_integral() || x.dtype().bits > 32) return UnsupportedDType(ctx, x.dtype());
  const double alpha = AttrFloat(ctx, "alpha", 0.25);
  const NDArray data = CastTo(x, DataType::Int(32));
  CARVE_ASSIGN_OR_RETURN(NDArray requantized, RequantizeOrUpcast(ctx, data, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray prod, FixedPointMultiply(ctx, requantized, alpha));
  CARVE_ASSIGN_OR_RETURN(double out_zp, ScalarOf(ctx, ctx.inputs[4], "output_zero_point"));
  CARVE_ASSIGN_OR_RETURN(double in_zp, ScalarOf(ctx, ctx.inputs[2], "input_zero_point"));
  CARVE_ASSIGN_OR_RETURN(
      NDArray scaled_z,
      FixedPointMultiply(ctx, NDArray::Scalar(DataType::Int(32), double(Wrap(int64_t(out_zp)))),
                         1 - alpha));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int32_t z = scaled_z.data<int32_t>()[0];
  const int32_t izp = Wrap(int64_t(in_zp));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const int32_t v = data.data<int32_t>()[i];
    const int32_t y = v < izp ? Wrap(int64_t(prod.data<int32_t>()[i]) + z)
                              : requantized.data<int32_t>()[i];
    out.SetFromDouble(i, double(ClipTo(y, out.dtype())));
  }
  return std::vector<NDArray>{std::move(out)};
}

Outputs QnnSoftmax(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  const NDArray& x = ctx.inputs[0];
  if (x.dtype() != DataType::Int(8)) return UnsupportedDType(ctx, x.dtype());
  CARVE_ASSIGN_OR_RETURN(double scale_d, ScalarOf(ctx, ctx.inputs[1], "scale"));
  CARVE_ASSIGN_OR_RETURN(double zp_d, ScalarOf(ctx, ctx.inputs[2], "zero_point"));
  const float scale = float(scale_d);
  if (!(scale > 0.0f && scale <= 1.0f)) {
    return KernelError(ctx, "TVM's integer softmax needs an input scale in (0, 1], got {}", scale);
  }
  const float x0_f = std::round(1.0f / scale);
  if (x0_f >= 2147483648.0f) return KernelError(ctx, "the input scale {} is too small", scale);
  const int32_t x0 = int32_t(x0_f);
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", -1), int64_t(x.rank())));
  const AxisView view = ViewAround(x.shape(), axis);
  const int32_t zp = Wrap(int64_t(zp_d));
  const int8_t* in = x.data<int8_t>();
  NDArray scaled = NDArray::Empty(DataType::Int(32), x.shape());
  int32_t* out = scaled.data<int32_t>();
  std::vector<int32_t> xp(size_t(view.extent)), q(size_t(view.extent)), exps(size_t(view.extent));
  for (int64_t o = 0; o < view.outer; ++o) {
    for (int64_t i = 0; i < view.inner; ++i) {
      const auto at = [&](int64_t k) { return (o * view.extent + k) * view.inner + i; };
      int32_t max = std::numeric_limits<int32_t>::min();
      for (int64_t k = 0; k < view.extent; ++k) max = std::max(max, Wrap(int64_t(in[at(k)]) - zp));
      int32_t max_q = std::numeric_limits<int32_t>::min();
      for (int64_t k = 0; k < view.extent; ++k) {
        const int32_t d = Wrap(int64_t(Wrap(int64_t(in[at(k)]) - zp)) - max);
        // x + x / 2 - x / 16 with arithmetic shifts: x * log2(e), approx.
        xp[k] = Wrap(int64_t(Wrap(int64_t(d) + (d >> 1))) - (d >> 4));
        q[k] = std::clamp(xp[k] / -x0, 0, 20);
        max_q = std::max(max_q, q[k]);
      }
      int32_t sum = 0;
      for (int64_t k = 0; k < view.extent; ++k) {
        const int32_t r = Wrap(int64_t(xp[k]) - int64_t(Wrap(int64_t(q[k]) * -int64_t(x0))));
        const int32_t xb = Wrap(int64_t(r >> 1) + x0);
        exps[k] = int32_t(uint32_t(xb) << (max_q - q[k]));
        sum = Wrap(int64_t(sum) + exps[k]);
      }
      if (sum == 0) return KernelError(ctx, "the integer exponentials sum to 0 (TVM divides by it)");
      const int32_t factor = (int32_t{1} << 30) / sum;
      for (int64_t k = 0; k < view.extent; ++k) {
        out[at(k)] = Wrap(int64_t(factor) * exps[k]) >> (30 - 7);
      }
    }
  }
  CARVE_ASSIGN_OR_RETURN(
      NDArray y,
      RunRegisteredKernel(ctx, "qnn.requantize",
                          {scaled, NDArray::Scalar(DataType::Float(32), 1.0 / 128),
                           NDArray::Scalar(DataType::Int(32), 0), ctx.inputs[3], ctx.inputs[4]},
                          StaticTensorType(DataType::Int(8), x.shape()),
                          {{"out_dtype", AttrValue::Str("int8")}, {"axis", AttrValue::Int(0)}}));
  return std::vector<NDArray>{std::move(y)};
}

Outputs QnnAvgPool2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  CARVE_ASSIGN_OR_RETURN(NDArray requantized, RequantizeOrUpcast(ctx, ctx.inputs[0], 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(
      NDArray pooled,
      RunRegisteredKernel(ctx, "nn.avg_pool2d", {requantized},
                          StaticTensorType(DataType::Int(32), out.shape()), {}, ctx.attrs));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    out.SetFromDouble(i, double(ClipTo(pooled.data<int32_t>()[i], out.dtype())));
  }
  return std::vector<NDArray>{std::move(out)};
}

// x - zp in int16 (both cast to int16 first, wrapping); a zero point with
// a shape is a bias along axis 1, as TVM's legalization adds it.
absl::StatusOr<NDArray> ShiftInt16(const KernelContext& ctx, const NDArray& x, const NDArray& zp,
                                   std::string_view what) {
  NDArray out = NDArray::Empty(DataType::Int(16), x.shape());
  int64_t inner = 1, extent = 1;
  if (zp.rank() > 0) {
    if (x.rank() < 2 || zp.num_elements() != x.shape()[1]) {
      return KernelError(ctx, "{} zero point has {} values for axis 1 of extent {}", what,
                         zp.num_elements(), x.rank() < 2 ? 0 : x.shape()[1]);
    }
    const AxisView v = ViewAround(x.shape(), 1);
    inner = v.inner;
    extent = v.extent;
  }
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const int16_t a = int16_t(uint16_t(int64_t(x.GetAsDouble(i))));
    const int16_t b = int16_t(uint16_t(int64_t(zp.GetAsDouble(zp.rank() > 0 ? i / inner % extent : 0))));
    out.data<int16_t>()[i] = int16_t(uint16_t(int32_t(a) - int32_t(b)));
  }
  return out;
}

Outputs QnnConv2DTranspose(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 6));
  CARVE_ASSIGN_OR_RETURN(NDArray data, ShiftInt16(ctx, ctx.inputs[0], ctx.inputs[2], "input"));
  CARVE_ASSIGN_OR_RETURN(NDArray weight, ShiftInt16(ctx, ctx.inputs[1], ctx.inputs[3], "kernel"));
  CARVE_ASSIGN_OR_RETURN(
      NDArray out,
      RunRegisteredKernel(ctx, "nn.conv2d_transpose", {data, weight}, ctx.out_type, {}, ctx.attrs));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("qnn.leaky_relu", carve::nn_kernels::QnnLeakyRelu);
CARVE_REGISTER_KERNEL("qnn.softmax", carve::nn_kernels::QnnSoftmax);
CARVE_REGISTER_KERNEL("qnn.avg_pool2d", carve::nn_kernels::QnnAvgPool2D);
CARVE_REGISTER_KERNEL("qnn.conv2d_transpose", carve::nn_kernels::QnnConv2DTranspose);
