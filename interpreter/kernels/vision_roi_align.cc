// vision.roi_align with the semantics of TVM's CPU computes (v0.16.0):
// topi/x86/roi_align.py for NCHW and topi/vision/rcnn/roi_align.py for NHWC.
// Per ROI [batch, x1, y1, x2, y2] (scaled by spatial_scale, at least 1x1)
// and output bin, a grid of sample_ratio (or ceil(bin size)) points per axis
// is sampled bilinearly (a point beyond one pixel outside the image reads 0;
// others are clamped into it) and averaged (mode "avg") or maxed ("max").
// Arithmetic is float32; the NCHW form sums the four taps as the x86
// compute does, the NHWC form as topi's bilinear_sample_nhwc.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::vision_kernels {
namespace {

using nn_kernels::Buffer;
using nn_kernels::Store;

struct RoiAlignParams {
  int64_t pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1;
  int64_t sample_ratio = -1;
  bool max_mode = false;
  bool x86_order = true;  // NCHW: TVM's x86 compute
};

// One bilinear sample point: four taps and weights (all zero when the
// point is outside).
struct Tap4 {
  int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
  float w[4] = {0, 0, 0, 0};  // (y0,x0), (y0,x1), (y1,x0), (y1,x1)
};

Tap4 BilinearTaps(float y, float x, int64_t height, int64_t width) {
  Tap4 t;
  if (y < -1.0f || y > float(height) || x < -1.0f || x > float(width)) return t;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  t.y0 = int32_t(y);
  t.x0 = int32_t(x);
  t.y1 = t.y0 + 1;
  t.x1 = t.x0 + 1;
  if (t.y0 >= height - 1) {
    t.y0 = t.y1 = height - 1;
    y = float(t.y0);
  }
  if (t.x0 >= width - 1) {
    t.x0 = t.x1 = width - 1;
    x = float(t.x0);
  }
  const float ly = y - float(t.y0), lx = x - float(t.x0);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  return t;
}

// The value at `t` of a plane read through `at(y, x)`.
template <typename At>
float TapValue(const Tap4& t, bool x86_order, At at) {
  if (x86_order) {
    return t.w[0] * at(t.y0, t.x0) + t.w[1] * at(t.y0, t.x1) + t.w[2] * at(t.y1, t.x0) +
           t.w[3] * at(t.y1, t.x1);
  }
  // topi's bilinear_sample: x outer, y inner, each term wx * wy * v; a tap
  // past the last row or column (weight 0 there) is skipped.
  float v = 0;
  v += t.w[0] * at(t.y0, t.x0);
  v += t.w[2] * at(t.y1, t.x0);
  v += t.w[1] * at(t.y0, t.x1);
  v += t.w[3] * at(t.y1, t.x1);
  return v;
}

// The sample points of one ROI, bin by bin.
struct RoiGrid {
  int64_t batch = 0, grid_h = 1, grid_w = 1;
  std::vector<Tap4> taps;  // [ph][pw][iy][ix]
};

RoiGrid MakeGrid(const float* roi, const RoiAlignParams& p, int64_t height, int64_t width) {
  RoiGrid g;
  g.batch = int32_t(roi[0]);
  const float start_w = roi[1] * p.spatial_scale, start_h = roi[2] * p.spatial_scale;
  const float end_w = roi[3] * p.spatial_scale, end_h = roi[4] * p.spatial_scale;
  const float roi_h = std::max(end_h - start_h, 1.0f), roi_w = std::max(end_w - start_w, 1.0f);
  const float bin_h = roi_h / float(p.pooled_h), bin_w = roi_w / float(p.pooled_w);
  if (p.sample_ratio > 0) {
    g.grid_h = g.grid_w = p.sample_ratio;
  } else {
    g.grid_h = int32_t(std::ceil(bin_h));
    g.grid_w = int32_t(std::ceil(bin_w));
  }
  for (int64_t ph = 0; ph < p.pooled_h; ++ph) {
    for (int64_t pw = 0; pw < p.pooled_w; ++pw) {
      for (int64_t iy = 0; iy < g.grid_h; ++iy) {
        const float y = start_h + float(ph) * bin_h + (float(iy) + 0.5f) * bin_h / float(g.grid_h);
        for (int64_t ix = 0; ix < g.grid_w; ++ix) {
          const float x =
              start_w + float(pw) * bin_w + (float(ix) + 0.5f) * bin_w / float(g.grid_w);
          g.taps.push_back(BilinearTaps(y, x, height, width));
        }
      }
    }
  }
  return g;
}

// Pools bin `bin` of `g` over a plane read through `at(y, x)`.
template <typename At>
float PoolBin(const RoiGrid& g, int64_t bin, const RoiAlignParams& p, At at) {
  const int64_t count = g.grid_h * g.grid_w;
  const Tap4* taps = g.taps.data() + bin * count;
  float acc = p.max_mode ? -std::numeric_limits<float>::infinity() : 0.0f;
  for (int64_t s = 0; s < count; ++s) {
    const float v = TapValue(taps[s], p.x86_order, at);
    acc = p.max_mode ? std::max(acc, v) : acc + v / float(count);
  }
  return acc;
}

absl::StatusOr<RoiAlignParams> ReadParams(const KernelContext& ctx) {
  RoiAlignParams p;
  std::optional<std::vector<int64_t>> pooled = AttrInts(ctx, "pooled_size");
  if (!pooled || pooled->empty() || pooled->size() > 2) {
    return KernelError(ctx, "pooled_size must hold one or two sizes");
  }
  p.pooled_h = (*pooled)[0];
  p.pooled_w = pooled->size() == 2 ? (*pooled)[1] : p.pooled_h;
  if (p.pooled_h < 1 || p.pooled_w < 1) return KernelError(ctx, "pooled_size must be positive");
  p.spatial_scale = float(AttrFloat(ctx, "spatial_scale", 1.0));
  p.sample_ratio = AttrInt(ctx, "sample_ratio", -1);
  const std::string_view mode = AttrString(ctx, "mode", "avg");
  if (mode != "avg" && mode != "max") {
    return KernelError(ctx, "mode must be \"avg\" or \"max\", got \"{}\"", mode);
  }
  p.max_mode = mode == "max";
  return p;
}

absl::StatusOr<std::vector<NDArray>> RoiAlign(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const std::string_view layout = AttrString(ctx, "layout", "NCHW");
  if (layout != "NCHW" && layout != "NHWC") {
    return absl::UnimplementedError(
        fmt::format("{}: only layouts NCHW and NHWC have a compute in TVM", OpName(ctx)));
  }
  const NDArray& data = ctx.inputs[0];
  const NDArray& rois = ctx.inputs[1];
  if (data.rank() != 4 || rois.rank() != 2 || rois.shape()[1] != 5) {
    return KernelError(ctx, "expected 4-d data and rois (num_roi, 5)");
  }
  CARVE_ASSIGN_OR_RETURN(RoiAlignParams p, ReadParams(ctx));
  const bool nchw = layout == "NCHW";
  p.x86_order = nchw;
  const int64_t batch = data.shape()[0];
  const int64_t channels = data.shape()[nchw ? 1 : 3];
  const int64_t height = data.shape()[nchw ? 2 : 1], width = data.shape()[nchw ? 3 : 2];
  CARVE_ASSIGN_OR_RETURN(Buffer<float> in, Buffer<float>::Of(ctx, data));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> roi_buf, Buffer<float>::Of(ctx, rois));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t num_rois = rois.shape()[0], bins = p.pooled_h * p.pooled_w;
  std::vector<float> result(std::max<int64_t>(num_rois * channels * bins, 1));
  for (int64_t r = 0; r < num_rois; ++r) {
    const RoiGrid g = MakeGrid(roi_buf.data() + r * 5, p, height, width);
    if (g.batch < 0 || g.batch >= batch) {
      return KernelError(ctx, "roi {} names batch {}, outside the {} images of data", r, g.batch,
                         batch);
    }
    const float* image = in.data() + g.batch * channels * height * width;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t b = 0; b < bins; ++b) {
        if (nchw) {
          const float* plane = image + c * height * width;
          result[(r * channels + c) * bins + b] =
              PoolBin(g, b, p, [&](int64_t y, int64_t x) { return plane[y * width + x]; });
        } else {
          result[(r * bins + b) * channels + c] = PoolBin(
              g, b, p, [&](int64_t y, int64_t x) { return image[(y * width + x) * channels + c]; });
        }
      }
    }
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, result.data(), out));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::vision_kernels

CARVE_REGISTER_KERNEL("vision.roi_align", carve::vision_kernels::RoiAlign);
