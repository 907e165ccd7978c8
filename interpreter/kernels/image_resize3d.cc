// Kernels for image.resize3d and nn.upsampling3d with topi's semantics
// (python/tvm/topi/image/resize.py _resize_3d and nn/upsampling.py
// upsampling3d at v0.16.0): float32 coordinates and taps, the trilinear
// lerps x then y then z and the tricubic sums in TVM's order, clamped reads,
// and the result cast to the output dtype. Two quirks of topi's 3-d compute
// are kept, since a module must give TVM's numbers (docs/ops.md):
// - cubic_exclude: topi gives the depth taps the width taps' weights and
//   excludes them by the width index against the height; the height and
//   width taps are excluded as in 2-d;
// - tf_crop_and_resize: only a height or width coordinate outside the image
//   gives extrapolation_value (topi overwrites the depth test), and the roi
//   is read as [start_w, start_h, start_d, end_w, end_h, end_d].
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/resize_util.h"

namespace carve::nn_kernels {
namespace {

enum class Method3D { kNearest, kLinear, kCubic };

struct Resize3DParams {
  Method3D method = Method3D::kLinear;
  std::string coord_mode = "half_pixel";
  std::string rounding;
  float cubic_alpha = -0.5f;
  bool cubic_exclude = false;
  float extrapolation = 0.0f;
  std::array<float, 6> roi{0, 0, 0, 0, 0, 0};
};

// The taps one output coordinate reads along one axis.
struct Taps {
  std::array<int64_t, 4> index{0, 0, 0, 0};
  std::array<float, 4> weight{1, 0, 0, 0};
  int count = 1;
  int64_t base = 0;  // floor of the coordinate (cubic)
  bool outside = false;
};

// Drops the cubic taps whose unclamped index base - 1 + i is negative or
// whose base + i exceeds `limit`, and renormalises (topi's exclude_outside).
std::array<float, 4> Excluded(const std::array<float, 4>& w, int64_t base, int64_t limit) {
  std::array<float, 4> out = w;
  float sum = 0;
  for (int i = 0; i < 4; ++i) {
    if (base - 1 + i < 0 || base + i > limit) out[i] = 0;
    sum += out[i];
  }
  for (float& v : out) v /= sum;
  return out;
}

Taps AxisTaps(const Resize3DParams& p, int64_t x, int64_t in, int64_t out, float start,
              float end) {
  Taps t;
  auto clamp = [in](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  const float v = ResizeInputCoord(p.coord_mode, x, in, out, start, end);
  t.outside = p.coord_mode == "tf_crop_and_resize" && (v < 0 || v > float(in - 1));
  if (p.method == Method3D::kNearest) {
    t.index[0] = clamp(ResizeNearestIndex(p.rounding, v));
    return t;
  }
  const float fl = std::floor(v);
  t.base = int64_t(fl);
  const float frac = v - fl;
  if (p.method == Method3D::kLinear) {
    t.count = 2;
    t.index = {clamp(t.base), clamp(t.base + 1), 0, 0};
    t.weight = {1.0f - frac, frac, 0, 0};
    return t;
  }
  t.count = 4;
  t.weight = CubicSplineWeights(frac, p.cubic_alpha);
  for (int i = 0; i < 4; ++i) t.index[i] = clamp(t.base + i - 1);
  return t;
}

// Σ_z wz (Σ_y wy (Σ_x wx p)), each sum running from zero as topi's lerps
// and cubic kernels do.
float Sample(const float* vol, int64_t h, int64_t w, const Taps& z, const Taps& y, const Taps& x,
             const std::array<float, 4>& wz) {
  float value = 0;
  for (int k = 0; k < z.count; ++k) {
    float col = 0;
    for (int j = 0; j < y.count; ++j) {
      const float* row = vol + (z.index[k] * h + y.index[j]) * w;
      float line = 0;
      for (int i = 0; i < x.count; ++i) line += row[x.index[i]] * x.weight[i];
      col += line * y.weight[j];
    }
    value += col * wz[k];
  }
  return value;
}

absl::StatusOr<std::vector<NDArray>> RunResize3D(const KernelContext& ctx, const Resize3DParams& p,
                                                 std::string_view layout) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(std::vector<int> perm, LayoutPermutation(ctx, layout, "NCDHW"));
  if (data.rank() != 5 || out.rank() != 5) return KernelError(ctx, "expects 5-d data");
  const int64_t planes = data.shape()[perm[0]] * data.shape()[perm[1]];
  const int64_t id = data.shape()[perm[2]], ih = data.shape()[perm[3]], iw = data.shape()[perm[4]];
  const int64_t od = out.shape()[perm[2]], oh = out.shape()[perm[3]], ow = out.shape()[perm[4]];
  if (planes != out.shape()[perm[0]] * out.shape()[perm[1]] || id < 1 || ih < 1 || iw < 1) {
    return KernelError(ctx, "output shape {} does not match input shape {}",
                       ShapeString(out.shape()), ShapeString(data.shape()));
  }
  // topi's roi order: x reads roi[0], roi[3]; y roi[1], roi[4]; z roi[2], roi[5].
  std::vector<Taps> zs, ys, xs;
  for (int64_t z = 0; z < od; ++z) zs.push_back(AxisTaps(p, z, id, od, p.roi[2], p.roi[5]));
  for (int64_t y = 0; y < oh; ++y) ys.push_back(AxisTaps(p, y, ih, oh, p.roi[1], p.roi[4]));
  for (int64_t x = 0; x < ow; ++x) xs.push_back(AxisTaps(p, x, iw, ow, p.roi[0], p.roi[3]));
  // With cubic_exclude the depth weights come from the width coordinate.
  std::vector<std::array<float, 4>> wz_of_x(ow);
  if (p.method == Method3D::kCubic && p.cubic_exclude) {
    for (Taps& t : ys) t.weight = Excluded(t.weight, t.base, ih);
    for (int64_t x = 0; x < ow; ++x) {
      wz_of_x[x] = Excluded(xs[x].weight, xs[x].base, ih);
      xs[x].weight = Excluded(xs[x].weight, xs[x].base, iw);
    }
  }
  const bool wz_from_x = p.method == Method3D::kCubic && p.cubic_exclude;
  CARVE_ASSIGN_OR_RETURN(Buffer<float> in, Buffer<float>::Permuted(ctx, data, perm));
  const int64_t per_out = od * oh * ow, per_in = id * ih * iw;
  std::unique_ptr<float[]> result(new float[std::max<int64_t>(planes * per_out, 1)]);
  ParallelFor(ctx.device, planes, double(per_out * 16), [&](int64_t begin, int64_t end) {
    for (int64_t pl = begin; pl < end; ++pl) {
      const float* src = in.data() + pl * per_in;
      float* dst = result.get() + pl * per_out;
      for (int64_t z = 0; z < od; ++z) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            const std::array<float, 4>& wz = wz_from_x ? wz_of_x[x] : zs[z].weight;
            dst[(z * oh + y) * ow + x] = ys[y].outside || xs[x].outside
                                             ? p.extrapolation
                                             : Sample(src, ih, iw, zs[z], ys[y], xs[x], wz);
          }
        }
      }
    }
  });
  CARVE_RETURN_IF_ERROR(StorePermuted(ctx, result.get(), perm, out));
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<Method3D> ParseMethod3D(const KernelContext& ctx, std::string_view name) {
  if (name == "nearest_neighbor") return Method3D::kNearest;
  if (name == "linear" || name == "trilinear") return Method3D::kLinear;
  if (name == "cubic" || name == "tricubic") return Method3D::kCubic;
  return absl::UnimplementedError(
      fmt::format("{}: unsupported resize method \"{}\"", OpName(ctx), name));
}

// Checks the mode and resolves rounding "" as topi does (round for
// align_corners, floor otherwise).
absl::Status ResolveModes(const KernelContext& ctx, Resize3DParams& p) {
  if (!IsResizeCoordMode(p.coord_mode)) {
    return absl::UnimplementedError(fmt::format(
        "{}: unsupported coordinate_transformation_mode \"{}\"", OpName(ctx), p.coord_mode));
  }
  if (ResolveResizeRounding(p.rounding, p.coord_mode)) return absl::OkStatus();
  return absl::UnimplementedError(
      fmt::format("{}: unsupported rounding_method \"{}\"", OpName(ctx), p.rounding));
}

absl::StatusOr<std::vector<NDArray>> Resize3D(const KernelContext& ctx) {
  Resize3DParams p;
  CARVE_ASSIGN_OR_RETURN(p.method, ParseMethod3D(ctx, AttrString(ctx, "method", "linear")));
  p.coord_mode = std::string(AttrString(ctx, "coordinate_transformation_mode", "half_pixel"));
  p.rounding = std::string(AttrString(ctx, "rounding_method", "round"));
  CARVE_RETURN_IF_ERROR(ResolveModes(ctx, p));
  p.cubic_alpha = float(AttrFloat(ctx, "cubic_alpha", -0.5));
  p.cubic_exclude = AttrInt(ctx, "cubic_exclude", 0) != 0;
  p.extrapolation = float(AttrFloat(ctx, "extrapolation_value", 0.0));
  if (const AttrValue* roi = ctx.attrs == nullptr ? nullptr : ctx.attrs->Find("roi");
      roi != nullptr && roi->kind() == AttrValue::Kind::kArray) {
    if (roi->as_array().size() != 6) return KernelError(ctx, "roi needs 6 values");
    for (int i = 0; i < 6; ++i) p.roi[i] = float(roi->as_array()[i].as_float());
  }
  return RunResize3D(ctx, p, AttrString(ctx, "layout", "NCDHW"));
}

// nn.upsampling3d is resize3d to the scaled size with a zero roi and the
// default rounding ("trilinear" / "tricubic" lose their "tri" as in topi).
absl::StatusOr<std::vector<NDArray>> Upsampling3D(const KernelContext& ctx) {
  Resize3DParams p;
  CARVE_ASSIGN_OR_RETURN(p.method,
                         ParseMethod3D(ctx, AttrString(ctx, "method", "nearest_neighbor")));
  p.coord_mode = std::string(AttrString(ctx, "coordinate_transformation_mode", "half_pixel"));
  CARVE_RETURN_IF_ERROR(ResolveModes(ctx, p));
  return RunResize3D(ctx, p, AttrString(ctx, "layout", "NCDHW"));
}

}  // namespace
}  // namespace carve::nn_kernels

namespace nk3 = carve::nn_kernels;
CARVE_REGISTER_KERNEL("image.resize3d", nk3::Resize3D);
CARVE_REGISTER_KERNEL("nn.upsampling3d", nk3::Upsampling3D);
