// The coordinate and weight rules topi's resize computes share across its
// 1-d, 2-d and 3-d forms (python/tvm/topi/image/resize.py at v0.16.0), in
// float32 as TVM evaluates them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace carve::nn_kernels {

// True for the coordinate_transformation_mode names topi accepts.
bool IsResizeCoordMode(std::string_view mode);

// Resolves rounding_method "" as topi does (round for align_corners, floor
// otherwise); false when the method is not one topi knows.
bool ResolveResizeRounding(std::string& rounding, std::string_view coord_mode);

// TVM's get_inx: the input coordinate that output index `x` samples along an
// axis of `in` input and `out` output elements; `start` and `end` are the
// roi bounds tf_crop_and_resize uses.
float ResizeInputCoord(std::string_view mode, int64_t x, int64_t in, int64_t out, float start,
                       float end);

// TVM's get_closest_index for a resolved rounding method (round is half
// away from zero; floor and ceil carry topi's 1e-5 epsilon).
int64_t ResizeNearestIndex(std::string_view rounding, float v);

// Keys cubic spline weights for fractional offset t and coefficient a.
std::array<float, 4> CubicSplineWeights(float t, float a);

}  // namespace carve::nn_kernels
