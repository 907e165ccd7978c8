// nn.deformable_conv2d with topi's semantics (python/tvm/topi/nn/
// deformable_conv2d.py at v0.16.0, the generic strategy's only computes):
// each tap (ky, kx) of output (y, x) reads the data bilinearly at
// (y * sh - pad_top + ky * dh + dy, x * sw - pad_left + kx * dw + dx), where
// (dy, dx) is the offset pair of the tap's deformable group, 0 outside the
// image (topi's bilinear_sample: out-of-image taps weigh nothing); the taps
// are summed against the weight in out_dtype. NCHW reads an OIHW weight and
// (N, dg * kh * kw * 2, OH, OW) offsets, NHWC an HWIO weight and (N, OH, OW,
// dg * kh * kw * 2) offsets; groups must be 1, as topi asserts.
#include <cmath>
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// topi's bilinear_sample_nchw / _nhwc at (y, x) of one plane, taps summed x
// outer, y inner, each as (wx * wy) * v; a caller has excluded points
// outside [0, h) x [0, w).
template <typename C, typename At>
C BilinearTaps(C y, C x, int64_t h, int64_t w, At at) {
  const int64_t y0 = int32_t(std::floor(y)), x0 = int32_t(std::floor(x));
  const C wy[2] = {C(1) - (y - C(y0)), y - C(y0)};
  const C wx[2] = {C(1) - (x - C(x0)), x - C(x0)};
  C v = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const int64_t yp = y0 + j, xp = x0 + i;
      if (yp >= 0 && yp <= h - 1 && xp >= 0 && xp <= w - 1) v += wx[i] * wy[j] * at(yp, xp);
    }
  }
  return v;
}

absl::StatusOr<std::vector<NDArray>> DeformableConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  const NDArray& offset = ctx.inputs[1];
  const NDArray& weight = ctx.inputs[2];
  const std::string_view layout = AttrString(ctx, "data_layout", "NCHW");
  const std::string_view kernel_layout = AttrString(ctx, "kernel_layout", "OIHW");
  const bool nhwc = layout == "NHWC";
  if (!((layout == "NCHW" && kernel_layout == "OIHW") || (nhwc && kernel_layout == "HWIO"))) {
    return absl::UnimplementedError(fmt::format(
        "{}: layouts {} / {} have no compute in TVM (NCHW reads the weight as OIHW, NHWC as "
        "HWIO)", OpName(ctx), layout, kernel_layout));
  }
  if (AttrInt(ctx, "groups", 1) != 1) {
    return absl::UnimplementedError(
        fmt::format("{}: groups > 1 has no compute in TVM (topi asserts groups == 1)", OpName(ctx)));
  }
  if (data.rank() != 4 || offset.rank() != 4 || weight.rank() != 4) {
    return KernelError(ctx, "expected 4-d data, offset and weight, got {}, {}, {}",
                       ShapeString(data.shape()), ShapeString(offset.shape()),
                       ShapeString(weight.shape()));
  }
  const int64_t batch = data.shape()[0], channels = data.shape()[nhwc ? 3 : 1];
  const int64_t h = data.shape()[nhwc ? 1 : 2], w = data.shape()[nhwc ? 2 : 3];
  const int64_t out_channels = weight.shape()[nhwc ? 3 : 0];
  const int64_t kh = weight.shape()[nhwc ? 0 : 2], kw = weight.shape()[nhwc ? 1 : 3];
  const int64_t dgroups = AttrInt(ctx, "deformable_groups", 1);
  if (weight.shape()[nhwc ? 2 : 1] != channels || dgroups <= 0 || channels % dgroups != 0) {
    return KernelError(ctx, "weight {} and deformable_groups {} do not fit {} input channels",
                       ShapeString(weight.shape()), dgroups, channels);
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialInts(ctx, "strides", 2, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, SpatialInts(ctx, "dilation", 2, 1));
  CARVE_ASSIGN_OR_RETURN(
      std::vector<int64_t> pad,
      ExpandPadding(ctx, AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0, 0}), 2));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t oh = out.shape()[nhwc ? 1 : 2], ow = out.shape()[nhwc ? 2 : 3];
  const int64_t offset_channels = dgroups * kh * kw * 2;
  const std::vector<int64_t> want_offset =
      nhwc ? std::vector<int64_t>{batch, oh, ow, offset_channels}
           : std::vector<int64_t>{batch, offset_channels, oh, ow};
  if (offset.shape() != want_offset) {
    return KernelError(ctx, "offset must be {}, got {}", ShapeString(want_offset),
                       ShapeString(offset.shape()));
  }
  const int64_t per_dgroup = channels / dgroups;
  // Element strides of data (c, y, x), offset (channel, y, x) and weight
  // (o, i, ky, kx) in the layout.
  const int64_t dc = nhwc ? 1 : h * w, dy = nhwc ? w * channels : w, dx = nhwc ? channels : 1;
  const int64_t oc_ = nhwc ? 1 : oh * ow, oy_ = nhwc ? ow * offset_channels : ow,
                ox_ = nhwc ? offset_channels : 1;
  const int64_t wo = nhwc ? 1 : channels * kh * kw, wi = nhwc ? out_channels : kh * kw,
                wky = nhwc ? kw * channels * out_channels : kw,
                wkx = nhwc ? channels * out_channels : 1;
  return DispatchFloat(ctx, out.dtype(), [&]<typename O>() -> absl::StatusOr<std::vector<NDArray>> {
    using C = ComputeT<O>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> in, Buffer<C>::Of(ctx, data));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> off, Buffer<C>::Of(ctx, offset));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> wt, Buffer<C>::Of(ctx, weight));
    // The deformed samples of one output position: [c][ky][kx].
    std::vector<C> sample(size_t(channels * kh * kw));
    std::vector<C> result(size_t(out.num_elements()));
    for (int64_t n = 0; n < batch; ++n) {
      const C* image = in.data() + n * channels * h * w;
      const C* offs = off.data() + n * offset_channels * oh * ow;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          for (int64_t c = 0; c < channels; ++c) {
            auto at = [&](int64_t yp, int64_t xp) { return image[c * dc + yp * dy + xp * dx]; };
            for (int64_t ky = 0; ky < kh; ++ky) {
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t oc = c / per_dgroup * (kh * kw * 2) + (ky * kw + kx) * 2;
                const C* o = offs + y * oy_ + x * ox_;
                const C sy = C(y * strides[0] - pad[0] + ky * dilation[0]) + o[oc * oc_];
                const C sx = C(x * strides[1] - pad[1] + kx * dilation[1]) + o[(oc + 1) * oc_];
                // A NaN coordinate is neither inside nor outside; TVM converts it
                // to an undefined index.
                if (std::isnan(sy) || std::isnan(sx)) {
                  return KernelError(ctx, "offset at ({}, {}) of batch {} is NaN", y, x, n);
                }
                const bool outside = sy < 0 || sx < 0 || sy >= C(h) || sx >= C(w);
                sample[(c * kh + ky) * kw + kx] = outside ? C(0) : BilinearTaps(sy, sx, h, w, at);
              }
            }
          }
          for (int64_t f = 0; f < out_channels; ++f) {
            C acc = 0;
            auto term = [&](int64_t c, int64_t ky, int64_t kx) {
              acc += sample[(c * kh + ky) * kw + kx] * wt.data()[f * wo + c * wi + ky * wky + kx * wkx];
            };
            // topi's reduction order: rc, ry, rx (NCHW); ry, rx, rc (NHWC).
            if (nhwc) {
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx)
                  for (int64_t c = 0; c < channels; ++c) term(c, ky, kx);
              result[((n * oh + y) * ow + x) * out_channels + f] = acc;
            } else {
              for (int64_t c = 0; c < channels; ++c)
                for (int64_t ky = 0; ky < kh; ++ky)
                  for (int64_t kx = 0; kx < kw; ++kx) term(c, ky, kx);
              result[((n * out_channels + f) * oh + y) * ow + x] = acc;
            }
          }
        }
      }
    }
    CARVE_RETURN_IF_ERROR(Store(ctx, result.data(), out));
    return std::vector<NDArray>{std::move(out)};
  });
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.deformable_conv2d", carve::nn_kernels::DeformableConv2D);
