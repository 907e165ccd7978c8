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
#include <vector>

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

// The extents of one deformable convolution and the element strides of its
// operands in their layout.
struct DeformableGeometry {
  bool nhwc = false;
  int64_t batch = 0, channels = 0, h = 0, w = 0, out_channels = 0, kh = 0, kw = 0;
  int64_t dgroups = 1, per_dgroup = 0, offset_channels = 0, oh = 0, ow = 0;
  std::vector<int64_t> strides, dilation, pad;
  // Data (c, y, x), offset (channel, y, x) and weight (o, i, ky, kx).
  int64_t dc = 0, dy = 0, dx = 0, oc_ = 0, oy_ = 0, ox_ = 0, wo = 0, wi = 0, wky = 0, wkx = 0;

  // Fills the element strides from the extents.
  void SetStrides() {
    dc = nhwc ? 1 : h * w;
    dy = nhwc ? w * channels : w;
    dx = nhwc ? channels : 1;
    oc_ = nhwc ? 1 : oh * ow;
    oy_ = nhwc ? ow * offset_channels : ow;
    ox_ = nhwc ? offset_channels : 1;
    wo = nhwc ? 1 : channels * kh * kw;
    wi = nhwc ? out_channels : kh * kw;
    wky = nhwc ? kw * channels * out_channels : kw;
    wkx = nhwc ? channels * out_channels : 1;
  }
};

// The layouts and groups topi has a compute for; whether the layout is NHWC.
absl::StatusOr<bool> CheckDeformableLayouts(const KernelContext& ctx) {
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
  return nhwc;
}

// The data and weight extents, the deformable groups and the window
// attributes (before the output is allocated).
absl::Status ReadDeformableOperands(const KernelContext& ctx, DeformableGeometry& g) {
  const NDArray& data = ctx.inputs[0];
  const NDArray& offset = ctx.inputs[1];
  const NDArray& weight = ctx.inputs[2];
  if (data.rank() != 4 || offset.rank() != 4 || weight.rank() != 4) {
    return KernelError(ctx, "expected 4-d data, offset and weight, got {}, {}, {}",
                       ShapeString(data.shape()), ShapeString(offset.shape()),
                       ShapeString(weight.shape()));
  }
  const bool nhwc = g.nhwc;
  g.batch = data.shape()[0];
  g.channels = data.shape()[nhwc ? 3 : 1];
  g.h = data.shape()[nhwc ? 1 : 2];
  g.w = data.shape()[nhwc ? 2 : 3];
  g.out_channels = weight.shape()[nhwc ? 3 : 0];
  g.kh = weight.shape()[nhwc ? 0 : 2];
  g.kw = weight.shape()[nhwc ? 1 : 3];
  g.dgroups = AttrInt(ctx, "deformable_groups", 1);
  if (weight.shape()[nhwc ? 2 : 1] != g.channels || g.dgroups <= 0 ||
      g.channels % g.dgroups != 0) {
    return KernelError(ctx, "weight {} and deformable_groups {} do not fit {} input channels",
                       ShapeString(weight.shape()), g.dgroups, g.channels);
  }
  CARVE_ASSIGN_OR_RETURN(g.strides, SpatialInts(ctx, "strides", 2, 1));
  CARVE_ASSIGN_OR_RETURN(g.dilation, SpatialInts(ctx, "dilation", 2, 1));
  CARVE_ASSIGN_OR_RETURN(
      g.pad, ExpandPadding(ctx, AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0, 0}), 2));
  return absl::OkStatus();
}

// The output extents, and the offset shape they require.
absl::Status CheckDeformableOffset(const KernelContext& ctx, const NDArray& out,
                                   DeformableGeometry& g) {
  const NDArray& offset = ctx.inputs[1];
  g.oh = out.shape()[g.nhwc ? 1 : 2];
  g.ow = out.shape()[g.nhwc ? 2 : 3];
  g.offset_channels = g.dgroups * g.kh * g.kw * 2;
  const std::vector<int64_t> want_offset =
      g.nhwc ? std::vector<int64_t>{g.batch, g.oh, g.ow, g.offset_channels}
             : std::vector<int64_t>{g.batch, g.offset_channels, g.oh, g.ow};
  if (offset.shape() != want_offset) {
    return KernelError(ctx, "offset must be {}, got {}", ShapeString(want_offset),
                       ShapeString(offset.shape()));
  }
  g.per_dgroup = g.channels / g.dgroups;
  g.SetStrides();
  return absl::OkStatus();
}

// The deformed samples of output (y, x) of batch n: sample[c][ky][kx].
template <typename C>
absl::Status SampleTaps(const KernelContext& ctx, const DeformableGeometry& g, const C* image,
                        const C* offs, int64_t n, int64_t y, int64_t x, std::vector<C>& sample) {
  const int64_t kh = g.kh, kw = g.kw;
  for (int64_t c = 0; c < g.channels; ++c) {
    auto at = [&](int64_t yp, int64_t xp) { return image[c * g.dc + yp * g.dy + xp * g.dx]; };
    for (int64_t ky = 0; ky < kh; ++ky) {
      for (int64_t kx = 0; kx < kw; ++kx) {
        const int64_t oc = c / g.per_dgroup * (kh * kw * 2) + (ky * kw + kx) * 2;
        const C* o = offs + y * g.oy_ + x * g.ox_;
        const C sy = C(y * g.strides[0] - g.pad[0] + ky * g.dilation[0]) + o[oc * g.oc_];
        const C sx = C(x * g.strides[1] - g.pad[1] + kx * g.dilation[1]) + o[(oc + 1) * g.oc_];
        // A NaN coordinate is neither inside nor outside; TVM converts it
        // to an undefined index.
        if (std::isnan(sy) || std::isnan(sx)) {
          return KernelError(ctx, "offset at ({}, {}) of batch {} is NaN", y, x, n);
        }
        const bool outside = sy < 0 || sx < 0 || sy >= C(g.h) || sx >= C(g.w);
        sample[(c * kh + ky) * kw + kx] = outside ? C(0) : BilinearTaps(sy, sx, g.h, g.w, at);
      }
    }
  }
  return absl::OkStatus();
}

// Output (y, x) of batch n for every output channel: the samples summed
// against the weight in topi's reduction order.
template <typename C>
void ReduceTaps(const DeformableGeometry& g, const std::vector<C>& sample, const C* wt, int64_t n,
                int64_t y, int64_t x, std::vector<C>& result) {
  const int64_t kh = g.kh, kw = g.kw, channels = g.channels;
  for (int64_t f = 0; f < g.out_channels; ++f) {
    C acc = 0;
    auto term = [&](int64_t c, int64_t ky, int64_t kx) {
      acc += sample[(c * kh + ky) * kw + kx] * wt[f * g.wo + c * g.wi + ky * g.wky + kx * g.wkx];
    };
    // topi's reduction order: rc, ry, rx (NCHW); ry, rx, rc (NHWC).
    if (g.nhwc) {
      for (int64_t ky = 0; ky < kh; ++ky)
        for (int64_t kx = 0; kx < kw; ++kx)
          for (int64_t c = 0; c < channels; ++c) term(c, ky, kx);
      result[((n * g.oh + y) * g.ow + x) * g.out_channels + f] = acc;
    } else {
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) term(c, ky, kx);
      result[((n * g.out_channels + f) * g.oh + y) * g.ow + x] = acc;
    }
  }
}

absl::StatusOr<std::vector<NDArray>> DeformableConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  DeformableGeometry g;
  CARVE_ASSIGN_OR_RETURN(g.nhwc, CheckDeformableLayouts(ctx));
  CARVE_RETURN_IF_ERROR(ReadDeformableOperands(ctx, g));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(CheckDeformableOffset(ctx, out, g));
  return DispatchFloat(ctx, out.dtype(), [&]<typename O>() -> absl::StatusOr<std::vector<NDArray>> {
    using C = ComputeT<O>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> in, Buffer<C>::Of(ctx, ctx.inputs[0]));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> off, Buffer<C>::Of(ctx, ctx.inputs[1]));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> wt, Buffer<C>::Of(ctx, ctx.inputs[2]));
    std::vector<C> sample(size_t(g.channels * g.kh * g.kw));
    std::vector<C> result(size_t(out.num_elements()));
    for (int64_t n = 0; n < g.batch; ++n) {
      const C* image = in.data() + n * g.channels * g.h * g.w;
      const C* offs = off.data() + n * g.offset_channels * g.oh * g.ow;
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t x = 0; x < g.ow; ++x) {
          CARVE_RETURN_IF_ERROR(SampleTaps(ctx, g, image, offs, n, y, x, sample));
          ReduceTaps(g, sample, wt.data(), n, y, x, result);
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
