#include "interpreter/kernels/resize_util.h"

#include <algorithm>
#include <cmath>

namespace carve::nn_kernels {

bool IsResizeCoordMode(std::string_view mode) {
  static constexpr std::string_view kModes[] = {"half_pixel",           "align_corners",
                                                "asymmetric",           "pytorch_half_pixel",
                                                "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  return std::find(std::begin(kModes), std::end(kModes), mode) != std::end(kModes);
}

bool ResolveResizeRounding(std::string& rounding, std::string_view coord_mode) {
  if (rounding.empty()) rounding = coord_mode == "align_corners" ? "round" : "floor";
  for (const char* ok : {"round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
    if (rounding == ok) return true;
  }
  return false;
}

float ResizeInputCoord(std::string_view mode, int64_t x, int64_t in, int64_t out, float start,
                       float end) {
  const float fx = float(x), scale = float(in) / float(out);
  if (mode == "half_pixel") return (fx + 0.5f) * scale - 0.5f;
  if (mode == "align_corners") return out > 1 ? float(in - 1) / float(out - 1) * fx : 0.0f;
  if (mode == "asymmetric") return scale * fx;
  if (mode == "pytorch_half_pixel") return out > 1 ? (fx + 0.5f) * scale - 0.5f : 0.0f;
  if (mode == "tf_half_pixel_for_nn") return (fx + 0.5f) * scale;
  // tf_crop_and_resize
  if (out > 1) return start * float(in - 1) + fx * (end - start) * float(in - 1) / float(out - 1);
  return 0.5f * (start + end) * float(in - 1);
}

int64_t ResizeNearestIndex(std::string_view rounding, float v) {
  if (rounding == "round") return int64_t(std::round(v));  // half away from zero
  if (rounding == "round_prefer_floor") return int64_t(std::ceil(v - 0.5f));
  if (rounding == "round_prefer_ceil") return int64_t(std::floor(v + 0.5f));
  if (rounding == "floor") return int64_t(std::floor(v + 1e-5f));
  return int64_t(std::ceil(v - 1e-5f));  // ceil
}

std::array<float, 4> CubicSplineWeights(float t, float a) {
  const float t2 = t * t, t3 = t * t * t;
  return {a * (t3 - 2 * t2 + t), (a + 2) * t3 - (3 + a) * t2 + 1,
          -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t, -a * t3 + a * t2};
}

}  // namespace carve::nn_kernels
