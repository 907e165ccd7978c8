// Kernels for nn.batch_norm, nn.layer_norm, nn.instance_norm (inference
// forms of ops.md §9) and nn.softmax / nn.log_softmax / nn.fast_softmax
// (§6). Floating-point dtypes only; float16 computes in float.

#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "interpreter/kernels/alloc_uninitialized.h"
#include "interpreter/kernels/fast_math.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// Writes the compute-type values `src` (row-major, out's shape) into `out`,
// skipping the conversion when the dtypes agree.
template <typename C>
absl::Status StoreResult(const KernelContext& ctx, const C* src, NDArray& out) {
  if (out.dtype() == DTypeOf<C>()) {
    std::copy(src, src + out.num_elements(), out.data<C>());
    return absl::OkStatus();
  }
  return Store(ctx, src, out);
}

// epsilon as TVM applies it: cast to the data dtype first.
template <typename T>
ComputeT<T> EpsilonOf(const KernelContext& ctx) {
  return ConvertTo<ComputeT<T>>(ConvertTo<T>(AttrFloat(ctx, "epsilon", 1e-5)));
}

// A length-`n` per-channel vector (gamma, beta, ...) in compute type; ones or
// zeros when the flag that enables it is off.
template <typename C>
absl::StatusOr<std::vector<C>> ChannelVector(const KernelContext& ctx, size_t input, int64_t n,
                                             bool enabled, C disabled_value) {
  if (!enabled) return std::vector<C>(size_t(n), disabled_value);
  const NDArray& t = ctx.inputs[input];
  if (t.num_elements() != n) {
    return KernelError(ctx, "input {} has {} elements, expected {}", input, t.num_elements(), n);
  }
  CARVE_ASSIGN_OR_RETURN(Buffer<C> b, Buffer<C>::Of(ctx, t));
  return std::vector<C>(b.data(), b.data() + n);
}

absl::StatusOr<std::vector<NDArray>> BatchNorm(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 5));
  // Every element of the three outputs is written below (the normalised
  // data, element by element or by StoreResult; mean and var by
  // StoreResult), so they are not zero-filled first.
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputsUninitialized(ctx));
  const NDArray& data = ctx.inputs[0];
  if (outs.size() != 3 || outs[0].shape() != data.shape()) {
    return KernelError(ctx, "expected a 3-tuple output whose first field matches the data");
  }
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 1), int64_t(data.rank())));
  const AxisView v = ViewAround(data.shape(), axis);
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, data.dtype(), [&]<typename T>() -> absl::Status {
    using C = ComputeT<T>;
    // SimplifyInference's form, in its operation order: out = x * s + t with
    // s = (1 / sqrt(var + eps)) * gamma and t = (-mean) * s + beta.
    CARVE_ASSIGN_OR_RETURN(auto gamma,
                           ChannelVector<C>(ctx, 1, v.extent, AttrBool(ctx, "scale", true), 1));
    CARVE_ASSIGN_OR_RETURN(auto beta,
                           ChannelVector<C>(ctx, 2, v.extent, AttrBool(ctx, "center", true), 0));
    CARVE_ASSIGN_OR_RETURN(auto mean, ChannelVector<C>(ctx, 3, v.extent, true, 0));
    CARVE_ASSIGN_OR_RETURN(auto var, ChannelVector<C>(ctx, 4, v.extent, true, 0));
    const C eps = EpsilonOf<T>(ctx);
    std::vector<C> s(static_cast<size_t>(v.extent)), t(static_cast<size_t>(v.extent));
    for (int64_t c = 0; c < v.extent; ++c) {
      s[c] = (C(1) / std::sqrt(var[c] + eps)) * gamma[c];
      t[c] = (-mean[c]) * s[c] + beta[c];
    }
    CARVE_ASSIGN_OR_RETURN(Buffer<C> x, Buffer<C>::Of(ctx, data));
    // Straight into the output when it holds compute-type values (no copy).
    const bool direct = outs[0].dtype() == DTypeOf<C>();
    std::unique_ptr<C[]> temp(direct ? nullptr : new C[std::max<int64_t>(x.size(), 1)]);
    C* y = direct ? outs[0].data<C>() : temp.get();
    for (int64_t o = 0; o < v.outer; ++o) {
      for (int64_t c = 0; c < v.extent; ++c) {
        const int64_t base = (o * v.extent + c) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) y[base + i] = x.data()[base + i] * s[c] + t[c];
      }
    }
    if (!direct) CARVE_RETURN_IF_ERROR(StoreResult(ctx, y, outs[0]));
    CARVE_RETURN_IF_ERROR(StoreResult(ctx, mean.data(), outs[1]));
    return StoreResult(ctx, var.data(), outs[2]);
  }));
  return outs;
}

// Normalises x over groups of elements: group_of(e) names the statistics
// group of flat element e and channel_of(e) its gamma/beta index. Mean and
// biased variance are accumulated in double.
template <typename T, typename GroupOf, typename ChannelOf>
absl::StatusOr<std::vector<NDArray>> NormalizeGroups(const KernelContext& ctx, int64_t groups,
                                                     int64_t channels, GroupOf group_of,
                                                     ChannelOf channel_of) {
  using C = ComputeT<T>;
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(auto gamma,
                         ChannelVector<C>(ctx, 1, channels, AttrBool(ctx, "scale", true), 1));
  CARVE_ASSIGN_OR_RETURN(auto beta,
                         ChannelVector<C>(ctx, 2, channels, AttrBool(ctx, "center", true), 0));
  CARVE_ASSIGN_OR_RETURN(Buffer<C> x, Buffer<C>::Of(ctx, ctx.inputs[0]));
  const int64_t n = x.size();
  std::vector<double> sum(static_cast<size_t>(groups)), sq(static_cast<size_t>(groups));
  std::vector<int64_t> count(static_cast<size_t>(groups));
  for (int64_t e = 0; e < n; ++e) {
    sum[group_of(e)] += double(x.data()[e]);
    ++count[group_of(e)];
  }
  for (int64_t gi = 0; gi < groups; ++gi) sum[gi] /= double(std::max<int64_t>(count[gi], 1));
  for (int64_t e = 0; e < n; ++e) {
    const double d = double(x.data()[e]) - sum[group_of(e)];
    sq[group_of(e)] += d * d;
  }
  const C eps = EpsilonOf<T>(ctx);
  std::vector<C> mean(static_cast<size_t>(groups)), denom(static_cast<size_t>(groups));
  for (int64_t gi = 0; gi < groups; ++gi) {
    mean[gi] = C(sum[gi]);
    denom[gi] = std::sqrt(C(sq[gi] / double(std::max<int64_t>(count[gi], 1))) + eps);
  }
  std::unique_ptr<C[]> y(new C[std::max<int64_t>(n, 1)]);
  for (int64_t e = 0; e < n; ++e) {
    const int64_t gi = group_of(e), c = channel_of(e);
    y[e] = (x.data()[e] - mean[gi]) / denom[gi] * gamma[c] + beta[c];
  }
  CARVE_RETURN_IF_ERROR(StoreResult(ctx, y.get(), out));
  return std::vector<NDArray>{std::move(out)};
}

// Statistics over the single axis `axis`, per position of all other axes.
absl::StatusOr<std::vector<NDArray>> LayerNorm(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", -1), int64_t(data.rank())));
  const AxisView v = ViewAround(data.shape(), axis);
  std::vector<NDArray> result;
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, data.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(
        result, NormalizeGroups<T>(
                    ctx, v.outer * v.inner, v.extent,
                    [&](int64_t e) { return e / (v.extent * v.inner) * v.inner + e % v.inner; },
                    [&](int64_t e) { return e / v.inner % v.extent; }));
    return absl::OkStatus();
  }));
  return result;
}

// Statistics over every axis except 0 and `axis`, per (batch, channel).
absl::StatusOr<std::vector<NDArray>> InstanceNorm(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  if (data.rank() < 2) return KernelError(ctx, "data must have rank >= 2");
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 1), int64_t(data.rank())));
  const AxisView v = ViewAround(data.shape(), axis);
  const int64_t batch = data.shape()[0];
  const int64_t batch_stride = ShapeProduct(data.shape(), 1, data.rank());
  std::vector<NDArray> result;
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, data.dtype(), [&]<typename T>() -> absl::Status {
    auto channel_of = [&](int64_t e) { return e / v.inner % v.extent; };
    CARVE_ASSIGN_OR_RETURN(
        result,
        NormalizeGroups<T>(
            ctx, batch * v.extent, v.extent,
            [&](int64_t e) { return e / batch_stride * v.extent + channel_of(e); }, channel_of));
    return absl::OkStatus();
  }));
  return result;
}

// kFastSoftmax is TOPI's softmax with fast_exp (fast_math.h) for float32.
enum class SoftmaxKind { kSoftmax, kLogSoftmax, kFastSoftmax };

template <typename C>
C SoftmaxExp(C v, SoftmaxKind kind) {
  if constexpr (std::is_same_v<C, float>) {
    if (kind == SoftmaxKind::kFastSoftmax) return fast_math::FastExp(v);
  }
  return std::exp(v);
}

// Numerically stable softmax along one axis: each outer block is processed
// as `extent` rows of `inner` contiguous lanes, so any axis vectorises.
template <typename C>
void SoftmaxBlock(const C* x, C* y, int64_t extent, int64_t inner, SoftmaxKind kind) {
  // An empty axis has no first row to start the maxima from, and nothing to
  // normalise; reading one would run past the (empty) block.
  if (extent == 0) return;
  std::vector<C> max(x, x + inner), sum(size_t(inner), C(0));
  for (int64_t r = 1; r < extent; ++r) {
    for (int64_t i = 0; i < inner; ++i) max[i] = std::max(max[i], x[r * inner + i]);
  }
  for (int64_t r = 0; r < extent; ++r) {
    for (int64_t i = 0; i < inner; ++i) {
      const C e = SoftmaxExp<C>(x[r * inner + i] - max[i], kind);
      y[r * inner + i] = e;
      sum[i] += e;
    }
  }
  for (int64_t r = 0; r < extent; ++r) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t k = r * inner + i;
      y[k] = kind != SoftmaxKind::kLogSoftmax ? y[k] / sum[i] : x[k] - max[i] - std::log(sum[i]);
    }
  }
}

template <SoftmaxKind kKind>
absl::StatusOr<std::vector<NDArray>> Softmax(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", -1), int64_t(data.rank())));
  const AxisView v = ViewAround(data.shape(), axis);
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, data.dtype(), [&]<typename T>() -> absl::Status {
    using C = ComputeT<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> x, Buffer<C>::Of(ctx, data));
    std::unique_ptr<C[]> y(new C[std::max<int64_t>(x.size(), 1)]);
    const int64_t block = v.extent * v.inner;
    // TVM approximates exp only for float32 (float16 fast_softmax is exact).
    const SoftmaxKind kind = kKind == SoftmaxKind::kFastSoftmax && !std::is_same_v<T, float>
                                 ? SoftmaxKind::kSoftmax
                                 : kKind;
    ParallelFor(ctx.device, v.outer, double(block) * 20, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        SoftmaxBlock<C>(x.data() + o * block, y.get() + o * block, v.extent, v.inner, kind);
      }
    });
    return StoreResult(ctx, y.get(), out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

namespace nk = carve::nn_kernels;
CARVE_REGISTER_KERNEL("nn.batch_norm", nk::BatchNorm);
CARVE_REGISTER_KERNEL("nn.layer_norm", nk::LayerNorm);
CARVE_REGISTER_KERNEL("nn.instance_norm", nk::InstanceNorm);
CARVE_REGISTER_KERNEL("nn.softmax", nk::Softmax<nk::SoftmaxKind::kSoftmax>);
CARVE_REGISTER_KERNEL("nn.fast_softmax", nk::Softmax<nk::SoftmaxKind::kFastSoftmax>);
CARVE_REGISTER_KERNEL("nn.log_softmax", nk::Softmax<nk::SoftmaxKind::kLogSoftmax>);
