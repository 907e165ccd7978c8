// dft and stft with topi's semantics (python/tvm/topi/signal.py at
// v0.16.0, called through the generic strategies, which pass stft's window
// as its second input):
//   dft: along the last axis, X[n] = sum_k x[k] * e^(-+2 pi i n k / N), each
//     term's angle (sign * -2 * pi * n / N) * k in float32 as TVM folds it;
//     the inverse scales by 1 / N.
//   stft: (batch, len) data; frame col, bin row sums window[w] * data[col *
//     hop + w] * (cos, -sin)(2 pi row w / win_length) for w < win_length
//     (the bin's angle divides by win_length, not n_fft), divided by
//     sqrt(n_fft) when normalized; onesided only decides how many bins.
#include <cmath>
#include <numbers>
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;

absl::StatusOr<std::vector<NDArray>> Dft(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& re = ctx.inputs[0];
  const NDArray& im = ctx.inputs[1];
  if (re.shape() != im.shape() || re.rank() == 0) {
    return KernelError(ctx, "expected real and imaginary parts of one shape (rank 1 or more), got "
                       "{} and {}", ShapeString(re.shape()), ShapeString(im.shape()));
  }
  const bool inverse = AttrBool(ctx, "inverse", false);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  if (outs.size() != 2) return KernelError(ctx, "expected two outputs, got {}", outs.size());
  const int64_t n_fft = re.shape().back();
  const int64_t rows = n_fft == 0 ? 0 : re.num_elements() / n_fft;
  const float sign = inverse ? -1.0f : 1.0f;
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, outs[0].dtype(), [&]<typename T>() -> absl::Status {
    using C = ComputeT<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> xr, Buffer<C>::Of(ctx, re));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> xi, Buffer<C>::Of(ctx, im));
    const C factor = inverse ? C(1.0 / double(n_fft)) : C(1);
    std::vector<C> out_re(size_t(re.num_elements())), out_im(size_t(re.num_elements()));
    for (int64_t r = 0; r < rows; ++r) {
      const C* a = xr.data() + r * n_fft;
      const C* b = xi.data() + r * n_fft;
      for (int64_t n = 0; n < n_fft; ++n) {
        const float base = sign * -2.0f * kPi * float(n) / float(n_fft);
        C sr = 0, si = 0;
        for (int64_t k = 0; k < n_fft; ++k) {
          const float w = base * float(k);
          const C c = C(std::cos(w)), s = C(std::sin(w));
          sr += a[k] * c - b[k] * s;
          si += a[k] * s + b[k] * c;
        }
        out_re[r * n_fft + n] = sr * factor;
        out_im[r * n_fft + n] = si * factor;
      }
    }
    CARVE_RETURN_IF_ERROR(Store(ctx, out_re.data(), outs[0]));
    return Store(ctx, out_im.data(), outs[1]);
  }));
  return outs;
}

absl::StatusOr<std::vector<NDArray>> Stft(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& window = ctx.inputs[1];
  // TVM's compute indexes data[batch, ...] and a 4-d output; a 1-d signal
  // gets a 3-d output type that the compute does not index correctly.
  if (data.rank() != 2) {
    return KernelError(ctx, "TVM's compute takes (batch, length) data, got {}",
                       ShapeString(data.shape()));
  }
  const int64_t n_fft = AttrInt(ctx, "n_fft", -1), hop = AttrInt(ctx, "hop_length", -1);
  const int64_t win = std::max<int64_t>(AttrInt(ctx, "win_length", -1), 0);
  const bool normalized = AttrBool(ctx, "normalized", false);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.rank() != 4 || out.shape()[3] != 2) {
    return KernelError(ctx, "unexpected output type {}", ShapeString(out.shape()));
  }
  const int64_t batch = out.shape()[0], bins = out.shape()[1], frames = out.shape()[2];
  const int64_t len = data.shape()[1];
  if (frames > 0 && win > 0 && ((frames - 1) * hop + win > len || window.num_elements() < win)) {
    return KernelError(ctx, "win_length {} reads past the data ({} samples, {} frames of hop {}) "
                       "or the window ({} values)", win, len, frames, hop, window.num_elements());
  }
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    using C = ComputeT<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> x, Buffer<C>::Of(ctx, data));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> wnd, Buffer<C>::Of(ctx, window));
    const C scale = C(std::sqrt(float(n_fft)));
    std::vector<C> result(size_t(out.num_elements()));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t row = 0; row < bins; ++row) {
        for (int64_t col = 0; col < frames; ++col) {
          C re = 0, im = 0;
          for (int64_t w = 0; w < win; ++w) {
            const float angle = 2.0f * kPi * float(row) * float(w) / float(win);
            const C v = wnd.data()[w] * x.data()[b * len + col * hop + w];
            re += v * C(std::cos(angle));
            im -= v * C(std::sin(angle));
          }
          if (normalized) {
            re /= scale;
            im /= scale;
          }
          C* dst = result.data() + ((b * bins + row) * frames + col) * 2;
          dst[0] = re;
          dst[1] = im;
        }
      }
    }
    return Store(ctx, result.data(), out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("dft", carve::nn_kernels::Dft);
CARVE_REGISTER_KERNEL("stft", carve::nn_kernels::Stft);
