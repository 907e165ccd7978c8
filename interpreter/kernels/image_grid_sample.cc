// image.grid_sample with topi's semantics (python/tvm/topi/image/
// grid_sample.py at v0.16.0): data NCHW (grid (N, 2, H', W'), x first) or
// NCDHW (grid (N, 3, D', H', W')); the grid's [-1, 1] coordinates are mapped
// to pixels (align_corners: -1 and 1 are the corner pixels' centres), then
// padded (zeros: reads outside the image are 0; border: coordinates clipped;
// reflection: reflected, then clipped) and sampled (bilinear / trilinear,
// nearest with round-half-to-even, or 2-d bicubic with a = -0.75 whose taps
// are padded as integers). Arithmetic is float32 in topi's term order.
#include <cmath>
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

enum class Padding { kZeros, kBorder, kReflection };

struct GridParams {
  std::string method;
  Padding padding = Padding::kZeros;
  bool align_corners = true;
};

// One spatial axis of the data: its extent and the mapping rules.
struct GridAxis {
  int64_t size;
  const GridParams* p;

  float Unnormalize(float g) const {
    if (p->align_corners) return (g + 1.0f) * float(size - 1) / 2.0f;
    return -0.5f + (g + 1.0f) * float(size) / 2.0f;
  }
  float Clip(float x) const { return std::fmin(std::fmax(x, 0.0f), float(size - 1)); }
  // topi's _reflect_coordinates: a coordinate outside [corner, span + corner]
  // folds back by whole spans.
  float Reflect(float x) const {
    const float corner = p->align_corners ? 0.0f : -0.5f;
    const int64_t span = p->align_corners ? size - 1 : size;
    if ((x >= corner && x <= float(span) + corner) || span == 0) return x;
    const float dist = std::fabs(corner - x);
    const int32_t times = int32_t(dist) / int32_t(span);
    const float extra = dist - float(times * span);
    return times % 2 == 0 ? extra + corner : float(span) - extra + corner;
  }
  // The source coordinate of grid value g for bilinear and nearest sampling.
  float Source(float g) const {
    float x = Unnormalize(g);
    if (p->padding == Padding::kReflection) return Clip(Reflect(x));
    if (p->padding == Padding::kBorder) return Clip(x);
    return x;
  }
  // A bicubic tap index, padded as topi pads the integer taps.
  int64_t Tap(int64_t i) const {
    float x = float(i);
    if (p->padding == Padding::kReflection) return int64_t(int32_t(Clip(Reflect(x))));
    if (p->padding == Padding::kBorder) return int64_t(int32_t(Clip(x)));
    return i;
  }
};

// data[...][y][x] within the image, 0 outside.
float Pixel2(const float* plane, int64_t h, int64_t w, int64_t y, int64_t x) {
  return y >= 0 && x >= 0 && y < h && x < w ? plane[y * w + x] : 0.0f;
}

float Bilinear(const float* plane, const GridAxis& ay, const GridAxis& ax, float gy, float gx) {
  const float y = ay.Source(gy), x = ax.Source(gx);
  const int64_t y0 = int32_t(std::floor(y)), x0 = int32_t(std::floor(x));
  const float ty = y - float(y0), tx = x - float(x0);
  const int64_t h = ay.size, w = ax.size;
  return Pixel2(plane, h, w, y0, x0) * (1.0f - ty) * (1.0f - tx) +
         Pixel2(plane, h, w, y0, x0 + 1) * (1.0f - ty) * tx +
         Pixel2(plane, h, w, y0 + 1, x0) * ty * (1.0f - tx) +
         Pixel2(plane, h, w, y0 + 1, x0 + 1) * ty * tx;
}

// Cubic interpolation of four values at fraction f with a = -0.75.
float Cubic1D(float p0, float p1, float p2, float p3, float f) {
  constexpr float a = -0.75f;
  auto near = [](float t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };
  auto far = [](float t) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; };
  return p0 * far(f + 1) + p1 * near(f) + p2 * near(1 - f) + p3 * far(2 - f);
}

float Bicubic(const float* plane, const GridAxis& ay, const GridAxis& ax, float gy, float gx) {
  const float y = ay.Unnormalize(gy), x = ax.Unnormalize(gx);
  const int64_t yf = int32_t(std::floor(y)), xf = int32_t(std::floor(x));
  const float fy = y - float(yf), fx = x - float(xf);
  float rows[4];
  for (int i = 0; i < 4; ++i) {
    const int64_t yi = ay.Tap(yf - 1 + i);
    float v[4];
    for (int j = 0; j < 4; ++j) v[j] = Pixel2(plane, ay.size, ax.size, yi, ax.Tap(xf - 1 + j));
    rows[i] = Cubic1D(v[0], v[1], v[2], v[3], fx);
  }
  return Cubic1D(rows[0], rows[1], rows[2], rows[3], fy);
}

float Sample2D(const GridParams& p, const float* plane, const GridAxis& ay, const GridAxis& ax,
               float gy, float gx) {
  if (p.method == "bilinear") return Bilinear(plane, ay, ax, gy, gx);
  if (p.method == "bicubic") return Bicubic(plane, ay, ax, gy, gx);
  const float y = ay.Source(gy), x = ax.Source(gx);
  return Pixel2(plane, ay.size, ax.size, int32_t(std::nearbyint(y)), int32_t(std::nearbyint(x)));
}

float Pixel3(const float* vol, const GridAxis* a, int64_t z, int64_t y, int64_t x) {
  if (z < 0 || y < 0 || x < 0 || z >= a[0].size || y >= a[1].size || x >= a[2].size) return 0.0f;
  return vol[(z * a[1].size + y) * a[2].size + x];
}

// a: the depth, height and width axes; g: the grid's z, y, x.
float Sample3D(const GridParams& p, const float* vol, const GridAxis* a, const float* g) {
  const float z = a[0].Source(g[0]), y = a[1].Source(g[1]), x = a[2].Source(g[2]);
  if (p.method == "nearest") {
    return Pixel3(vol, a, int32_t(std::nearbyint(z)), int32_t(std::nearbyint(y)),
                  int32_t(std::nearbyint(x)));
  }
  const int64_t z0 = int32_t(std::floor(z)), y0 = int32_t(std::floor(y));
  const int64_t x0 = int32_t(std::floor(x));
  const int64_t z1 = z0 + 1, y1 = y0 + 1, x1 = x0 + 1;
  const float tz = z - float(z0), ty = y - float(y0), tx = x - float(x0);
  // topi's term order.
  return Pixel3(vol, a, z0, y0, x0) * (1 - tx) * (1 - ty) * (1 - tz) +
         Pixel3(vol, a, z0, y0, x1) * tx * (1 - ty) * (1 - tz) +
         Pixel3(vol, a, z1, y1, x0) * (1 - tx) * ty * tz +
         Pixel3(vol, a, z1, y1, x1) * tx * ty * tz +
         Pixel3(vol, a, z0, y1, x0) * (1 - tx) * ty * (1 - tz) +
         Pixel3(vol, a, z1, y0, x1) * tx * (1 - ty) * tz +
         Pixel3(vol, a, z1, y0, x0) * (1 - tx) * (1 - ty) * tz +
         Pixel3(vol, a, z0, y1, x1) * tx * ty * (1 - tz);
}

absl::StatusOr<GridParams> ReadGridParams(const KernelContext& ctx, bool three_d) {
  GridParams p;
  p.method = std::string(AttrString(ctx, "method", "bilinear"));
  const bool ok = p.method == "bilinear" || p.method == "nearest" ||
                  (!three_d && p.method == "bicubic");
  if (!ok) {
    return absl::UnimplementedError(fmt::format(
        "{}: method \"{}\" is not supported for {}-d data", OpName(ctx), p.method,
        three_d ? 5 : 4));
  }
  const std::string_view padding = AttrString(ctx, "padding_mode", "zeros");
  if (padding == "zeros") {
    p.padding = Padding::kZeros;
  } else if (padding == "border") {
    p.padding = Padding::kBorder;
  } else if (padding == "reflection") {
    p.padding = Padding::kReflection;
  } else {
    return absl::UnimplementedError(
        fmt::format("{}: unsupported padding_mode \"{}\"", OpName(ctx), padding));
  }
  p.align_corners = AttrBool(ctx, "align_corners", true);
  return p;
}

absl::StatusOr<std::vector<NDArray>> GridSample(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& grid = ctx.inputs[1];
  const std::string_view layout = AttrString(ctx, "layout", "NCHW");
  const bool three_d = layout == "NCDHW";
  if (layout != "NCHW" && !three_d) {
    return absl::UnimplementedError(
        fmt::format("{}: only layouts NCHW and NCDHW have a compute in TVM", OpName(ctx)));
  }
  const size_t rank = three_d ? 5 : 4, spatial = rank - 2;
  if (data.rank() != rank || grid.rank() != rank || grid.shape()[0] != data.shape()[0] ||
      grid.shape()[1] != int64_t(spatial)) {
    return KernelError(ctx, "expected data {} and grid (N, {}, ...), got {} and {}", layout,
                       spatial, ShapeString(data.shape()), ShapeString(grid.shape()));
  }
  CARVE_ASSIGN_OR_RETURN(GridParams p, ReadGridParams(ctx, three_d));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> in, Buffer<float>::Of(ctx, data));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> g, Buffer<float>::Of(ctx, grid));
  const int64_t batch = data.shape()[0], channels = data.shape()[1];
  GridAxis axes[3];  // depth (3-d only), height, width
  for (size_t i = 0; i < spatial; ++i) axes[3 - spatial + i] = {data.shape()[2 + i], &p};
  const int64_t per_in = ShapeProduct(data.shape(), 2, rank);
  const int64_t per_out = ShapeProduct(grid.shape(), 2, rank);
  std::vector<float> result(std::max<int64_t>(batch * channels * per_out, 1));
  for (int64_t n = 0; n < batch; ++n) {
    const float* gn = g.data() + n * int64_t(spatial) * per_out;
    for (int64_t c = 0; c < channels; ++c) {
      const float* src = in.data() + (n * channels + c) * per_in;
      float* dst = result.data() + (n * channels + c) * per_out;
      for (int64_t o = 0; o < per_out; ++o) {
        // grid channel 0 is x, 1 is y, 2 is z.
        if (three_d) {
          const float zyx[3] = {gn[2 * per_out + o], gn[per_out + o], gn[o]};
          dst[o] = Sample3D(p, src, axes, zyx);
        } else {
          dst[o] = Sample2D(p, src, axes[1], axes[2], gn[per_out + o], gn[o]);
        }
      }
    }
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, result.data(), out));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("image.grid_sample", carve::nn_kernels::GridSample);
