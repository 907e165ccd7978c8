// Index helpers shared by the convolution engines (conv_engine.cc, the
// generic im2col + GEMM path, and conv_packed.cc, the packed float path).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include "interpreter/kernels/conv_engine.h"

namespace carve::nn_kernels::conv_internal {

// The indices i in [0, count) with 0 <= i * stride + offset < extent, as a
// half-open range [lo, hi).
inline std::pair<int64_t, int64_t> ValidRange(int64_t offset, int64_t stride, int64_t extent,
                                              int64_t count) {
  if (stride == 1) {  // hot in packing loops: no divisions
    const int64_t hi = std::clamp<int64_t>(extent - offset, 0, count);
    return {std::clamp<int64_t>(-offset, 0, hi), hi};
  }
  int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const int64_t last = extent - 1 - offset;
  int64_t hi = last < 0 ? 0 : last / stride + 1;
  hi = std::min(hi, count);
  lo = std::min(lo, hi);
  return {lo, hi};
}

// dst[i] = src[i * stride + offset] for i in [0, count); zero where the read
// falls outside [0, extent).
template <typename T>
void GatherRow(const T* src, int64_t offset, int64_t stride, int64_t extent, int64_t count,
               T* dst) {
  const auto [lo, hi] = ValidRange(offset, stride, extent, count);
  std::fill(dst, dst + lo, T(0));
  if (stride == 1) {
    for (int64_t i = lo; i < hi; ++i) dst[i] = src[i + offset];
  } else {
    for (int64_t i = lo; i < hi; ++i) dst[i] = src[i * stride + offset];
  }
  std::fill(dst + hi, dst + count, T(0));
}

// Input coordinate of output coordinate `o` and tap `k` on spatial axis a.
inline int64_t InCoord(const ConvGeometry& g, int a, int64_t o, int64_t k) {
  return o * g.stride[a] + k * g.dilation[a] - g.pad[a];
}

// True when the input coordinate triple lies inside the image.
inline bool Inside(const ConvGeometry& g, int64_t id, int64_t ih, int64_t iw) {
  return id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
}

// 1x1 taps, unit strides, no padding: the input already is the im2col matrix.
inline bool IsPointwise(const ConvGeometry& g) {
  for (int a = 0; a < 3; ++a) {
    if (g.kernel[a] != 1 || g.stride[a] != 1 || g.pad[a] != 0 || g.in[a] != g.out[a]) {
      return false;
    }
  }
  return true;
}

// The weight [O, Cg, K] repacked as [groups][K * Cg][Og]: row (tap, c) of a
// group holds that tap's weights for the group's Og output channels, the B
// operand of a channels-last convolution.
template <typename T>
std::unique_ptr<T[]> WeightChannelsLast(const ConvGeometry& g, const T* weight) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group(), k = g.kernel_size();
  std::unique_ptr<T[]> packed(new T[std::max<int64_t>(g.groups * k * cg * og, 1)]);
  for (int64_t o = 0; o < g.out_channels; ++o) {
    const int64_t grp = o / og, oo = o % og;
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t t = 0; t < k; ++t) {
        packed[(grp * k * cg + t * cg + c) * og + oo] = weight[(o * cg + c) * k + t];
      }
    }
  }
  return packed;
}

// Forward convolution with one input channel per group (depthwise, or a
// single input channel with a channel multiplier), not pointwise: a direct
// loop (conv_depthwise.cc). Instantiated for float, double, int32_t and
// int64_t.
template <typename T>
void DepthwiseForward(const ConvGeometry& g, ChannelOrder order, const T* data, const T* weight,
                      T* out, const Eigen::ThreadPoolDevice* device);

// Forward convolution of float data on the packed sgemm (conv_packed.cc),
// im2col panels packed straight from the image. Only for builds with
// kPackedSgemm and convolutions with more than one input channel per group.
// With `cache`, the weight's panels are packed on the first call of the
// plan step and read from there afterwards.
void ConvForwardPacked(const ConvGeometry& g, ChannelOrder order, const float* data,
                       const float* weight, float* out, const Eigen::ThreadPoolDevice* device,
                       ConvWeightCache cache);

}  // namespace carve::nn_kernels::conv_internal
