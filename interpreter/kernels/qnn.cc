// Kernels for qnn.quantize, qnn.dequantize, qnn.requantize, qnn.conv2d,
// qnn.dense and qnn.add with the numerics of TVM's QNN canonicalization
// (ops.md §14): the int64 fixed-point requantize with TVM's UPWARD /
// TONEAREST rounding, the float requantize path, per-channel scales and
// zero points.

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "interpreter/kernels/broadcast.h"
#include "interpreter/kernels/conv.h"
#include "interpreter/kernels/dense.h"
#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// Maps a flat element index to its channel along one axis, for per-channel
// parameters with one value (broadcast) or one per channel.
struct ChannelMap {
  int64_t inner = 1, extent = 1;
  int64_t operator()(int64_t e) const { return e / inner % extent; }
};

absl::StatusOr<ChannelMap> ChannelsOf(const KernelContext& ctx, const NDArray& data, int64_t axis) {
  if (data.rank() == 0) return ChannelMap{};
  CARVE_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(ctx, axis, int64_t(data.rank())));
  const AxisView v = ViewAround(data.shape(), a);
  return ChannelMap{v.inner, v.extent};
}

// Reads a per-channel parameter: one value, or `channels` values.
template <typename V>
absl::StatusOr<std::vector<V>> PerChannel(const KernelContext& ctx, const NDArray& t,
                                          int64_t channels, std::string_view what) {
  if (t.num_elements() != 1 && t.num_elements() != channels) {
    return KernelError(ctx, "{} has {} values, expected 1 or {}", what, t.num_elements(), channels);
  }
  CARVE_ASSIGN_OR_RETURN(Buffer<V> b, Buffer<V>::Of(ctx, t));
  return std::vector<V>(b.data(), b.data() + b.size());
}

template <typename V>
V At(const std::vector<V>& v, int64_t c) {
  return v.size() == 1 ? v[0] : v[c];
}

// [qmin, qmax] of an integer dtype.
std::pair<int64_t, int64_t> QuantRange(DataType dt) {
  if (dt.is_uint()) return {0, dt.bits >= 64 ? INT64_MAX : (int64_t{1} << dt.bits) - 1};
  if (dt.bits >= 64) return {INT64_MIN, INT64_MAX};
  return {-(int64_t{1} << (dt.bits - 1)), (int64_t{1} << (dt.bits - 1)) - 1};
}

int32_t WrapInt32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

// TVM's fixed-point form of a real multiplier M = m * 2^e (0.5 <= m < 1):
// a Q31 multiplier f = round(m * 2^31) with a left shift max(e, 0) and a
// total right shift 31 + max(-e, 0).
struct FixedPoint {
  bool identity = true;  // s_in == s_out: the multiply is skipped
  int64_t multiplier = 0;
  int left_shift = 0;
  int right_shift = 31;
};

FixedPoint MakeFixedPoint(double m) {
  FixedPoint fp;
  if (m == 1.0) return fp;
  fp.identity = false;
  int e = 0;
  const double mant = std::frexp(m, &e);
  fp.multiplier = int64_t(std::round(mant * double(int64_t{1} << 31)));
  if (fp.multiplier == (int64_t{1} << 31)) {
    fp.multiplier = int64_t{1} << 30;
    ++e;
  }
  fp.left_shift = std::max(e, 0);
  fp.right_shift = 31 + std::max(-e, 0);
  return fp;
}

int64_t ApplyFixedPoint(int64_t x, const FixedPoint& fp, bool upward) {
  if (fp.identity) return x;
  const int64_t p = (x << fp.left_shift) * fp.multiplier;
  const int64_t half = int64_t{1} << (fp.right_shift - 1);
  const int64_t round = upward || p >= 0 ? half : half - 1;
  return (p + round) >> fp.right_shift;  // arithmetic shift
}

enum class ComputeKind { kInt64, kFloat32, kFloat64 };

// Resolved qnn.requantize parameters for one input tensor.
struct Requantizer {
  std::vector<double> in_scale;
  std::vector<int64_t> in_zp;
  double out_scale = 1;
  int64_t out_zp = 0;
  bool upward = true;
  ComputeKind compute = ComputeKind::kInt64;
  std::vector<FixedPoint> fixed;  // per in_scale entry

  void Prepare() {
    fixed.clear();
    for (double s : in_scale) {
      fixed.push_back(s == out_scale ? FixedPoint{} : MakeFixedPoint(s / out_scale));
    }
  }

  // The requantized value of q (channel c) as int32, before narrowing.
  int32_t operator()(int64_t q, int64_t c) const {
    if (compute == ComputeKind::kInt64) {
      const int64_t x = int64_t(WrapInt32(q)) - At(in_zp, c);
      return WrapInt32(int64_t(WrapInt32(ApplyFixedPoint(x, At(fixed, c), upward))) + out_zp);
    }
    // The float path casts the input itself to F (an int64 input is not
    // first narrowed to int32 as in the fixed-point path).
    const double m = At(in_scale, c) / out_scale;
    return compute == ComputeKind::kFloat32 ? RoundFloat<float>(q, At(in_zp, c), m)
                                            : RoundFloat<double>(q, At(in_zp, c), m);
  }

  // v = (F(q) - F(zp_in)) * F(M) + F(zp_out), rounded, as TVM's float path.
  template <typename F>
  int32_t RoundFloat(int64_t q, int64_t zp_in, double m) const {
    const F v = (F(q) - F(zp_in)) * F(m) + F(out_zp);
    return ConvertTo<int32_t>(upward ? std::floor(v + F(0.5)) : std::round(v));
  }
};

// Narrows an int32 result to `dt` with clamping (int32 results pass through).
int64_t Narrow(int64_t v, DataType dt) {
  if (dt == DataType::Int(32)) return v;
  auto [lo, hi] = QuantRange(dt);
  return std::clamp(v, lo, hi);
}

// Writes int64 values into an integer tensor.
absl::Status StoreInts(const KernelContext& ctx, const std::vector<int64_t>& v, NDArray& out) {
  return Store(ctx, v.data(), out);
}

absl::StatusOr<std::vector<NDArray>> Quantize(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (!out.dtype().is_integral()) return UnsupportedDType(ctx, out.dtype());
  CARVE_ASSIGN_OR_RETURN(ChannelMap ch, ChannelsOf(ctx, data, AttrInt(ctx, "axis", -1)));
  CARVE_ASSIGN_OR_RETURN(auto scale, PerChannel<float>(ctx, ctx.inputs[1], ch.extent, "scale"));
  CARVE_ASSIGN_OR_RETURN(auto zp, PerChannel<int64_t>(ctx, ctx.inputs[2], ch.extent, "zero point"));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> x, Buffer<float>::Of(ctx, data));
  auto [qmin, qmax] = QuantRange(out.dtype());
  std::vector<int64_t> q(size_t(x.size()));
  for (int64_t e = 0; e < x.size(); ++e) {
    const int64_t c = ch(e);
    // float32 throughout: round(x / s) + zp, clamped, then cast.
    const float v = std::round(x.data()[e] / At(scale, c)) + float(At(zp, c));
    q[e] = ConvertTo<int64_t>(std::clamp(v, float(qmin), float(qmax)));
  }
  CARVE_RETURN_IF_ERROR(StoreInts(ctx, q, out));
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<std::vector<NDArray>> Dequantize(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(ChannelMap ch, ChannelsOf(ctx, data, AttrInt(ctx, "axis", -1)));
  CARVE_ASSIGN_OR_RETURN(auto scale, PerChannel<float>(ctx, ctx.inputs[1], ch.extent, "scale"));
  CARVE_ASSIGN_OR_RETURN(auto zp, PerChannel<int64_t>(ctx, ctx.inputs[2], ch.extent, "zero point"));
  CARVE_ASSIGN_OR_RETURN(Buffer<int64_t> q, Buffer<int64_t>::Of(ctx, data));
  // float16 results are clipped to its finite range before the cast.
  const float limit =
      out.dtype() == DataType::Float(16) ? 65504.0f : std::numeric_limits<float>::max();
  std::vector<float> x(size_t(q.size()));
  for (int64_t e = 0; e < q.size(); ++e) {
    const int64_t c = ch(e);
    const float v = float(WrapInt32(int64_t(WrapInt32(q.data()[e])) - At(zp, c))) * At(scale, c);
    x[e] = std::clamp(v, -limit, limit);
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, x.data(), out));
  return std::vector<NDArray>{std::move(out)};
}

// Resolves rounding / compute_dtype ("None" -> UPWARD / int64).
absl::Status ResolveConfig(const KernelContext& ctx, Requantizer& r) {
  const std::string_view rounding = AttrString(ctx, "rounding", "None");
  const std::string_view compute = AttrString(ctx, "compute_dtype", "None");
  if (rounding != "None" && rounding != "UPWARD" && rounding != "TONEAREST") {
    return KernelError(ctx, "unsupported rounding \"{}\"", rounding);
  }
  r.upward = rounding != "TONEAREST";
  if (compute == "None" || compute == "int64") {
    r.compute = ComputeKind::kInt64;
  } else if (compute == "float32") {
    r.compute = ComputeKind::kFloat32;
  } else if (compute == "float64") {
    r.compute = ComputeKind::kFloat64;
  } else {
    return KernelError(ctx, "unsupported compute_dtype \"{}\"", compute);
  }
  return absl::OkStatus();
}

// Reads a requantizer for `data` from inputs [first, first + 4): input
// scale, input zero point (per channel along `axis`), output scale, output
// zero point (scalars).
absl::StatusOr<Requantizer> ReadRequantizer(const KernelContext& ctx, const NDArray& data,
                                            size_t first, const ChannelMap& ch) {
  Requantizer r;
  CARVE_ASSIGN_OR_RETURN(auto in_scale,
                         PerChannel<float>(ctx, ctx.inputs[first], ch.extent, "input scale"));
  r.in_scale.assign(in_scale.begin(), in_scale.end());
  CARVE_ASSIGN_OR_RETURN(
      r.in_zp, PerChannel<int64_t>(ctx, ctx.inputs[first + 1], ch.extent, "input zero point"));
  CARVE_ASSIGN_OR_RETURN(auto out_scale,
                         PerChannel<float>(ctx, ctx.inputs[first + 2], 1, "output scale"));
  r.out_scale = out_scale[0];
  CARVE_ASSIGN_OR_RETURN(auto out_zp,
                         PerChannel<int64_t>(ctx, ctx.inputs[first + 3], 1, "output zero point"));
  r.out_zp = out_zp[0];
  r.Prepare();
  return r;
}

absl::StatusOr<std::vector<NDArray>> Requantize(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (!data.dtype().is_integral() || !out.dtype().is_integral()) {
    return UnsupportedDType(ctx, data.dtype().is_integral() ? out.dtype() : data.dtype());
  }
  CARVE_ASSIGN_OR_RETURN(ChannelMap ch, ChannelsOf(ctx, data, AttrInt(ctx, "axis", -1)));
  CARVE_ASSIGN_OR_RETURN(Requantizer r, ReadRequantizer(ctx, data, 1, ch));
  CARVE_RETURN_IF_ERROR(ResolveConfig(ctx, r));
  CARVE_ASSIGN_OR_RETURN(Buffer<int64_t> q, Buffer<int64_t>::Of(ctx, data));
  std::vector<int64_t> y(size_t(q.size()));
  for (int64_t e = 0; e < q.size(); ++e) y[e] = Narrow(r(q.data()[e], ch(e)), out.dtype());
  CARVE_RETURN_IF_ERROR(StoreInts(ctx, y, out));
  return std::vector<NDArray>{std::move(out)};
}

// qnn.add: both operands requantized to the output parameters in int32
// (just widened when their parameters already match), added, the output
// zero point subtracted once, then narrowed to the lhs dtype.
absl::StatusOr<std::vector<NDArray>> QnnAdd(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 8));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<int64_t> widened[2];
  int64_t out_zp = 0;
  for (int side = 0; side < 2; ++side) {
    const NDArray& t = ctx.inputs[side];
    CARVE_ASSIGN_OR_RETURN(
        ChannelMap ch, ChannelsOf(ctx, t, AttrInt(ctx, side == 0 ? "lhs_axis" : "rhs_axis", -1)));
    // Inputs 2..7 are (lhs_scale, lhs_zp, rhs_scale, rhs_zp, out_scale,
    // out_zp); gather this side's four in requantize order.
    const NDArray params[4] = {ctx.inputs[2 + 2 * side], ctx.inputs[3 + 2 * side], ctx.inputs[6],
                               ctx.inputs[7]};
    KernelContext sub = ctx;
    sub.inputs = std::span<const NDArray>(params, 4);
    CARVE_ASSIGN_OR_RETURN(Requantizer r, ReadRequantizer(sub, t, 0, ch));
    out_zp = r.out_zp;
    const bool same = r.in_scale.size() == 1 && r.in_zp.size() == 1 &&
                      float(r.in_scale[0]) == float(r.out_scale) && r.in_zp[0] == r.out_zp;
    CARVE_ASSIGN_OR_RETURN(Buffer<int64_t> q, Buffer<int64_t>::Of(ctx, t));
    widened[side].resize(size_t(q.size()));
    for (int64_t e = 0; e < q.size(); ++e) {
      widened[side][e] = same ? WrapInt32(q.data()[e]) : r(q.data()[e], ch(e));
    }
  }
  CARVE_ASSIGN_OR_RETURN(
      BroadcastPlan plan,
      BroadcastPlan::Make(out.shape(), {ctx.inputs[0].shape(), ctx.inputs[1].shape()}));
  std::vector<int64_t> sum(size_t(out.num_elements()));
  plan.ForEachRun([&](int64_t o, const int64_t* off, int64_t n, const int64_t* stride) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = int64_t(WrapInt32(widened[0][off[0] + i * stride[0]] +
                                          widened[1][off[1] + i * stride[1]])) -
                        out_zp;
      sum[o + i] = Narrow(WrapInt32(s), out.dtype());
    }
  });
  CARVE_RETURN_IF_ERROR(StoreInts(ctx, sum, out));
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<std::vector<NDArray>> QnnConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 6));
  ConvZeroPoints zp;
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> data_zp, ToInt64s(ctx, ctx.inputs[2]));
  if (data_zp.size() != 1) return KernelError(ctx, "input zero point must be a scalar");
  zp.data = data_zp[0];
  CARVE_ASSIGN_OR_RETURN(zp.kernel, ToInt64s(ctx, ctx.inputs[3]));
  return RunConv(ctx, 2, &zp);
}

absl::StatusOr<std::vector<NDArray>> QnnDense(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 6));
  DenseZeroPoints zp;
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> data_zp, ToInt64s(ctx, ctx.inputs[2]));
  if (data_zp.size() != 1) return KernelError(ctx, "input zero point must be a scalar");
  zp.data = data_zp[0];
  CARVE_ASSIGN_OR_RETURN(zp.weight, ToInt64s(ctx, ctx.inputs[3]));
  return RunDense(ctx, &zp);
}

}  // namespace
}  // namespace carve::nn_kernels

namespace nk = carve::nn_kernels;
CARVE_REGISTER_KERNEL("qnn.quantize", nk::Quantize);
CARVE_REGISTER_KERNEL("qnn.dequantize", nk::Dequantize);
CARVE_REGISTER_KERNEL("qnn.requantize", nk::Requantize);
CARVE_REGISTER_KERNEL("qnn.add", nk::QnnAdd);
CARVE_REGISTER_KERNEL("qnn.conv2d", nk::QnnConv2D);
CARVE_REGISTER_KERNEL("qnn.dense", nk::QnnDense);
