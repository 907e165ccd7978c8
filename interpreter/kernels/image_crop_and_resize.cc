// image.crop_and_resize with topi's semantics (python/tvm/topi/image/
// resize.py at v0.16.0, crop_and_resize over _resize_2d with boxes): box i
// [y1, x1, y2, x2] (normalised) of image box_indices[i] is sampled at
// crop_h x crop_w points, in_y = y1 * (H - 1) + y * (H - 1) * (y2 - y1) /
// (crop_h - 1), likewise for x; a point with a coordinate outside
// [0, H - 1] / [0, W - 1] gives extrapolation_value, others are
// interpolated with taps clamped into the image. Arithmetic is float32, as
// topi reads the data with astype("float").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/resize_util.h"

namespace carve::nn_kernels {
namespace {

enum class CropMethod { kLinear, kNearest, kCubic };

absl::StatusOr<CropMethod> ReadCropMethod(const KernelContext& ctx) {
  // topi lowercases the method and maps "bilinear" to "linear".
  std::string method(AttrString(ctx, "method", "bilinear"));
  std::transform(method.begin(), method.end(), method.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (method == "bilinear" || method == "linear") return CropMethod::kLinear;
  if (method == "nearest_neighbor") return CropMethod::kNearest;
  if (method == "cubic") return CropMethod::kCubic;
  return KernelError(ctx, "unknown method \"{}\" (bilinear, nearest_neighbor or cubic)", method);
}

// One image plane read with topi's clamp of both coordinates.
struct Plane {
  const float* data;
  int64_t h, w;
  int64_t y_stride, x_stride;
  float At(int64_t y, int64_t x) const {
    y = std::max<int64_t>(std::min<int64_t>(y, h - 1), 0);
    x = std::max<int64_t>(std::min<int64_t>(x, w - 1), 0);
    return data[y * y_stride + x * x_stride];
  }
};

float Lerp(float a, float b, float t) { return a * (1.0f - t) + b * t; }

float Sample(const Plane& p, CropMethod method, float in_y, float in_x) {
  if (method == CropMethod::kNearest) {
    // With boxes, topi always rounds (half away from zero).
    return p.At(ResizeNearestIndex("round", in_y), ResizeNearestIndex("round", in_x));
  }
  const int64_t yi = int32_t(std::floor(in_y)), xi = int32_t(std::floor(in_x));
  const float fy = in_y - float(yi), fx = in_x - float(xi);
  if (method == CropMethod::kLinear) {
    const float top = Lerp(p.At(yi, xi), p.At(yi, xi + 1), fx);
    const float bottom = Lerp(p.At(yi + 1, xi), p.At(yi + 1, xi + 1), fx);
    return Lerp(top, bottom, fy);
  }
  // Cubic with topi's defaults for this path (alpha -0.5, nothing excluded).
  const auto wx = CubicSplineWeights(fx, -0.5f), wy = CubicSplineWeights(fy, -0.5f);
  float cols[4];
  for (int j = 0; j < 4; ++j) {
    cols[j] = 0;
    for (int i = 0; i < 4; ++i) cols[j] += p.At(yi + j - 1, xi + i - 1) * wx[i];
  }
  return cols[0] * wy[0] + cols[1] * wy[1] + cols[2] * wy[2] + cols[3] * wy[3];
}

// The layouts topi supports and the operands' ranks; whether the layout is
// NHWC.
absl::StatusOr<bool> CheckCropOperands(const KernelContext& ctx) {
  const NDArray& data = ctx.inputs[0];
  const NDArray& boxes = ctx.inputs[1];
  const NDArray& box_indices = ctx.inputs[2];
  const std::string_view layout = AttrString(ctx, "layout", "NCHW");
  if (layout != "NCHW" && layout != "NHWC") {
    return absl::UnimplementedError(
        fmt::format("{}: layout \"{}\" is not supported (NCHW or NHWC)", OpName(ctx), layout));
  }
  const int64_t num_boxes = boxes.rank() == 2 ? boxes.shape()[0] : -1;
  if (data.rank() != 4 || boxes.rank() != 2 || boxes.shape()[1] != 4 ||
      box_indices.rank() != 1 || box_indices.shape()[0] != num_boxes) {
    return KernelError(ctx, "expected 4-d data, boxes (B, 4) and box_indices (B), got {}, {}, {}",
                       ShapeString(data.shape()), ShapeString(boxes.shape()),
                       ShapeString(box_indices.shape()));
  }
  return layout == "NHWC";
}

// The extents of one crop_and_resize and the data's strides in its layout.
struct CropGeometry {
  bool nhwc = false;
  CropMethod method = CropMethod::kLinear;
  float extrapolation = 0;
  int64_t channels = 0, h = 0, w = 0, crop_h = 0, crop_w = 0;
  int64_t c_stride = 0, y_stride = 0, x_stride = 0;
};

// Every sample of box b (corners bx) of `image` into `result`.
absl::Status CropBox(const KernelContext& ctx, const CropGeometry& g, const float* image,
                     const float* bx, int64_t b, std::vector<float>& result) {
  const int64_t h = g.h, w = g.w, crop_h = g.crop_h, crop_w = g.crop_w, channels = g.channels;
  const float y1 = bx[0], x1 = bx[1], y2 = bx[2], x2 = bx[3];
  const float h_scale = float(h - 1) * (y2 - y1) / float(crop_h - 1);
  const float w_scale = float(w - 1) * (x2 - x1) / float(crop_w - 1);
  for (int64_t c = 0; c < channels; ++c) {
    const Plane plane{image + c * g.c_stride, h, w, g.y_stride, g.x_stride};
    for (int64_t y = 0; y < crop_h; ++y) {
      const float in_y = y1 * float(h - 1) + h_scale * float(y);
      for (int64_t x = 0; x < crop_w; ++x) {
        const float in_x = x1 * float(w - 1) + w_scale * float(x);
        // TVM converts a NaN coordinate to an undefined index.
        if (std::isnan(in_y) || std::isnan(in_x)) {
          return KernelError(ctx, "box {} samples a NaN coordinate", b);
        }
        const bool outside = in_y < 0 || in_y > float(h - 1) || in_x < 0 || in_x > float(w - 1);
        const float v = outside ? g.extrapolation : Sample(plane, g.method, in_y, in_x);
        const int64_t at = g.nhwc ? ((b * crop_h + y) * crop_w + x) * channels + c
                                  : ((b * channels + c) * crop_h + y) * crop_w + x;
        result[at] = v;
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> CropAndResize(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  CropGeometry g;
  CARVE_ASSIGN_OR_RETURN(g.nhwc, CheckCropOperands(ctx));
  const bool nhwc = g.nhwc;
  const int64_t num_boxes = ctx.inputs[1].shape()[0];
  CARVE_ASSIGN_OR_RETURN(g.method, ReadCropMethod(ctx));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t batch = data.shape()[0];
  g.channels = data.shape()[nhwc ? 3 : 1];
  g.h = data.shape()[nhwc ? 1 : 2];
  g.w = data.shape()[nhwc ? 2 : 3];
  g.crop_h = out.shape()[nhwc ? 1 : 2];
  g.crop_w = out.shape()[nhwc ? 2 : 3];
  if (out.num_elements() == 0) return std::vector<NDArray>{std::move(out)};
  // topi divides by crop - 1 with a constant divisor; TVM's constant folder
  // stops on "Divide by zero" for a crop of 1.
  if (g.crop_h == 1 || g.crop_w == 1) {
    return KernelError(ctx, "crop_size {} x {} has an extent of 1, which TVM's compute divides "
                       "by zero (crop - 1)", g.crop_h, g.crop_w);
  }
  if (g.h == 0 || g.w == 0) {
    return KernelError(ctx, "the image is empty ({})", ShapeString(data.shape()));
  }
  CARVE_ASSIGN_OR_RETURN(Buffer<float> in, Buffer<float>::Of(ctx, data));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> box, Buffer<float>::Of(ctx, ctx.inputs[1]));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> index, ToInt64s(ctx, ctx.inputs[2]));
  g.extrapolation = float(AttrFloat(ctx, "extrapolation_value", 0.0));
  g.c_stride = nhwc ? 1 : g.h * g.w;
  g.y_stride = nhwc ? g.w * g.channels : g.w;
  g.x_stride = nhwc ? g.channels : 1;
  std::vector<float> result(size_t(out.num_elements()));
  for (int64_t b = 0; b < num_boxes; ++b) {
    if (index[b] < 0 || index[b] >= batch) {
      return KernelError(ctx, "box_indices[{}] = {} is outside the batch of {}", b, index[b],
                         batch);
    }
    const float* image = in.data() + index[b] * g.h * g.w * g.channels;
    CARVE_RETURN_IF_ERROR(CropBox(ctx, g, image, box.data() + b * 4, b, result));
  }
  CARVE_RETURN_IF_ERROR(Store(ctx, result.data(), out));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("image.crop_and_resize", carve::nn_kernels::CropAndResize);
