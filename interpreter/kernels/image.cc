// Kernels for image.resize2d, nn.upsampling, nn.depth_to_space and
// nn.space_to_depth (ops.md §11).
//
// Resizing follows TVM's topi compute: coordinates and interpolation run in
// float32 (so nearest-neighbour indices round exactly as TVM's do), the
// separable taps are evaluated row by row in TVM's order, and the result is
// cast (truncating for integer outputs) to the output dtype.

#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/resize_util.h"

namespace carve::nn_kernels {
namespace {

enum class ResizeMethod { kNearest, kLinear, kCubic };

struct ResizeParams {
  ResizeMethod method = ResizeMethod::kLinear;
  std::string coord_mode = "half_pixel";
  std::string rounding;  // resolved for nearest_neighbor
  float cubic_alpha = -0.5f;
  bool cubic_exclude = false;
  float extrapolation = 0.0f;
  std::array<float, 4> roi{0, 0, 0, 0};  // start_h, start_w, end_h, end_w
};

// How one output coordinate samples one input axis: up to four clamped
// input indices with weights, and whether tf_crop_and_resize extrapolates.
struct AxisSample {
  std::array<int64_t, 4> index{0, 0, 0, 0};
  std::array<float, 4> weight{1, 0, 0, 0};
  int taps = 1;
  bool outside = false;
};

// TVM's can_convert_multiply_to_intdiv: nearest/asymmetric resizes by an
// exact integer factor index with integer division.
bool UsesIntDiv(int64_t in, int64_t out) {
  const double div = double(out) / double(float(in));
  if (std::fmod(div, 1.0) != 0.0) return false;
  const double eps = 1e-5;
  return div <= 1.0 / (eps * double(in) + eps);
}

AxisSample SampleAxis(const ResizeParams& p, int64_t x, int64_t in, int64_t out, float start,
                      float end) {
  AxisSample s;
  auto clamp = [in](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  if (p.method == ResizeMethod::kNearest && p.coord_mode == "asymmetric" && UsesIntDiv(in, out)) {
    s.index[0] = clamp(x / (out / in));
    return s;
  }
  const float v = ResizeInputCoord(p.coord_mode, x, in, out, start, end);
  s.outside = p.coord_mode == "tf_crop_and_resize" && (v < 0 || v > float(in - 1));
  if (p.method == ResizeMethod::kNearest) {
    s.index[0] = clamp(ResizeNearestIndex(p.rounding, v));
    return s;
  }
  const float fl = std::floor(v);
  const int64_t base = int64_t(fl);
  const float t = v - fl;
  if (p.method == ResizeMethod::kLinear) {
    s.taps = 2;
    s.index = {clamp(base), clamp(base + 1), 0, 0};
    s.weight = {1.0f - t, t, 0, 0};
    return s;
  }
  s.taps = 4;
  s.weight = CubicSplineWeights(t, p.cubic_alpha);
  for (int i = 0; i < 4; ++i) s.index[i] = clamp(base + i - 1);
  if (p.cubic_exclude) {  // drop taps outside the image and renormalise
    float sum = 0;
    for (int i = 0; i < 4; ++i) {
      if (base - 1 + i < 0 || base + i > in) s.weight[i] = 0;
      sum += s.weight[i];
    }
    for (float& w : s.weight) w /= sum;
  }
  return s;
}

// value = Σ_j (Σ_i p[j][i] * wx[i]) * wy[j], TVM's evaluation order (a lerp
// is p0 * (1 - t) + p1 * t, a cubic kernel a running sum from zero).
float Interpolate(const float* plane, int64_t width, const AxisSample& sy, const AxisSample& sx) {
  if (sy.taps == 1) return plane[sy.index[0] * width + sx.index[0]];
  float value = 0;
  for (int j = 0; j < sy.taps; ++j) {
    const float* row = plane + sy.index[j] * width;
    float line = 0;
    for (int i = 0; i < sx.taps; ++i) line += row[sx.index[i]] * sx.weight[i];
    value += line * sy.weight[j];
  }
  return value;
}

// Resizes `data` (any permutation of NCHW given by `layout`) into the
// call's output, whose H and W give the target size.
absl::StatusOr<std::vector<NDArray>> RunResize(const KernelContext& ctx, const ResizeParams& p,
                                               const std::string& layout) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<int> perm, LayoutPermutation(ctx, layout, "NCHW"));
  if (data.rank() != 4 || out.rank() != 4) return KernelError(ctx, "expects 4-d data");
  const int64_t planes = data.shape()[perm[0]] * data.shape()[perm[1]];
  const int64_t ih = data.shape()[perm[2]], iw = data.shape()[perm[3]];
  const int64_t oh = out.shape()[perm[2]], ow = out.shape()[perm[3]];
  if (planes != out.shape()[perm[0]] * out.shape()[perm[1]] || ih < 1 || iw < 1) {
    return KernelError(ctx, "output shape {} does not match input shape {}",
                       ShapeString(out.shape()), ShapeString(data.shape()));
  }
  std::vector<AxisSample> ys, xs;
  for (int64_t y = 0; y < oh; ++y) ys.push_back(SampleAxis(p, y, ih, oh, p.roi[0], p.roi[2]));
  for (int64_t x = 0; x < ow; ++x) xs.push_back(SampleAxis(p, x, iw, ow, p.roi[1], p.roi[3]));
  CARVE_ASSIGN_OR_RETURN(Buffer<float> in, Buffer<float>::Permuted(ctx, data, perm));
  std::unique_ptr<float[]> result(new float[std::max<int64_t>(planes * oh * ow, 1)]);
  ParallelFor(ctx.device, planes, double(oh * ow * 16), [&](int64_t begin, int64_t end) {
    for (int64_t pl = begin; pl < end; ++pl) {
      const float* src = in.data() + pl * ih * iw;
      float* dst = result.get() + pl * oh * ow;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          dst[y * ow + x] = ys[y].outside || xs[x].outside ? p.extrapolation
                                                           : Interpolate(src, iw, ys[y], xs[x]);
        }
      }
    }
  });
  CARVE_RETURN_IF_ERROR(StorePermuted(ctx, result.get(), perm, out));
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<ResizeMethod> ParseMethod(const KernelContext& ctx, std::string_view name) {
  if (name == "nearest_neighbor") return ResizeMethod::kNearest;
  if (name == "linear" || name == "bilinear") return ResizeMethod::kLinear;
  if (name == "cubic" || name == "bicubic") return ResizeMethod::kCubic;
  return absl::UnimplementedError(
      fmt::format("{}: unsupported resize method \"{}\"", OpName(ctx), name));
}

// Resolves rounding "" as TVM does: round for align_corners, floor otherwise.
absl::Status ResolveRounding(const KernelContext& ctx, ResizeParams& p) {
  if (ResolveResizeRounding(p.rounding, p.coord_mode)) return absl::OkStatus();
  return absl::UnimplementedError(
      fmt::format("{}: unsupported rounding_method \"{}\"", OpName(ctx), p.rounding));
}

absl::StatusOr<std::vector<NDArray>> Resize2D(const KernelContext& ctx) {
  ResizeParams p;
  CARVE_ASSIGN_OR_RETURN(p.method, ParseMethod(ctx, AttrString(ctx, "method", "linear")));
  p.coord_mode = std::string(AttrString(ctx, "coordinate_transformation_mode", "half_pixel"));
  if (!IsResizeCoordMode(p.coord_mode)) {
    return absl::UnimplementedError(fmt::format(
        "{}: unsupported coordinate_transformation_mode \"{}\"", OpName(ctx), p.coord_mode));
  }
  p.rounding = std::string(AttrString(ctx, "rounding_method", "round"));
  CARVE_RETURN_IF_ERROR(ResolveRounding(ctx, p));
  p.cubic_alpha = float(AttrFloat(ctx, "cubic_alpha", -0.5));
  p.cubic_exclude = AttrInt(ctx, "cubic_exclude", 0) != 0;
  p.extrapolation = float(AttrFloat(ctx, "extrapolation_value", 0.0));
  if (const AttrValue* roi = ctx.attrs == nullptr ? nullptr : ctx.attrs->Find("roi");
      roi != nullptr && roi->kind() == AttrValue::Kind::kArray) {
    if (roi->as_array().size() != 4) return KernelError(ctx, "roi needs 4 values");
    for (int i = 0; i < 4; ++i) p.roi[i] = float(roi->as_array()[i].as_float());
  }
  return RunResize(ctx, p, std::string(AttrString(ctx, "layout", "NCHW")));
}

// nn.upsampling is resize2d with asymmetric (or align_corners) coordinates.
absl::StatusOr<std::vector<NDArray>> Upsampling(const KernelContext& ctx) {
  ResizeParams p;
  CARVE_ASSIGN_OR_RETURN(p.method,
                         ParseMethod(ctx, AttrString(ctx, "method", "nearest_neighbor")));
  p.coord_mode = AttrBool(ctx, "align_corners", false) ? "align_corners" : "asymmetric";
  CARVE_RETURN_IF_ERROR(ResolveRounding(ctx, p));
  return RunResize(ctx, p, std::string(AttrString(ctx, "layout", "NCHW")));
}

// Moves blocks between depth and space. With `to_space`, output (n, c, y, x)
// reads input channel ((y%b)*b + x%b)*C' + c (DCR) or c*b² + (y%b)*b + x%b
// (CRD) at (y/b, x/b); space_to_depth is the DCR inverse.
template <bool kToSpace>
absl::StatusOr<std::vector<NDArray>> SubPixel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t b = AttrInt(ctx, "block_size", 1);
  const bool crd = AttrString(ctx, "mode", "DCR") == "CRD";
  CARVE_ASSIGN_OR_RETURN(std::vector<int> perm,
                         LayoutPermutation(ctx, AttrString(ctx, "layout", "NCHW"), "NCHW"));
  if (data.rank() != 4 || out.rank() != 4 || b < 1) {
    return KernelError(ctx, "expects 4-d data and a positive block_size");
  }
  const std::vector<int64_t> is = RowMajorStrides(data.shape());
  const std::vector<int64_t> os = RowMajorStrides(out.shape());
  const int64_t n_ = out.shape()[perm[0]], c_ = out.shape()[perm[1]];
  const int64_t h_ = out.shape()[perm[2]], w_ = out.shape()[perm[3]];
  const int64_t cin = data.shape()[perm[1]];
  if (kToSpace ? cin != c_ * b * b : c_ != cin * b * b) {
    return KernelError(ctx, "channels {} -> {} do not fit block_size {}", cin, c_, b);
  }
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, data.dtype(), [&]<typename T>() {
    const T* src = data.data<T>();
    T* dst = out.data<T>();
    for (int64_t n = 0; n < n_; ++n) {
      for (int64_t c = 0; c < c_; ++c) {
        for (int64_t y = 0; y < h_; ++y) {
          for (int64_t x = 0; x < w_; ++x) {
            int64_t ic, iy, ix;
            if (kToSpace) {
              const int64_t off = (y % b) * b + x % b;
              ic = crd ? c * b * b + off : off * c_ + c;
              iy = y / b;
              ix = x / b;
            } else {
              const int64_t off = c / cin;
              ic = c % cin;
              iy = y * b + off / b;
              ix = x * b + off % b;
            }
            dst[n * os[perm[0]] + c * os[perm[1]] + y * os[perm[2]] + x * os[perm[3]]] =
                src[n * is[perm[0]] + ic * is[perm[1]] + iy * is[perm[2]] + ix * is[perm[3]]];
          }
        }
      }
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

namespace nk = carve::nn_kernels;
CARVE_REGISTER_KERNEL("image.resize2d", nk::Resize2D);
CARVE_REGISTER_KERNEL("nn.upsampling", nk::Upsampling);
CARVE_REGISTER_KERNEL("nn.depth_to_space", nk::SubPixel<true>);
CARVE_REGISTER_KERNEL("nn.space_to_depth", nk::SubPixel<false>);
