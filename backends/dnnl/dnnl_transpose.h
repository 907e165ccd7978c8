// Conversions between Relay's NCHW-like layouts and channels-last (NHWC,
// NWC, NDHWC), done by carve instead of oneDNN's reorder. oneDNN 2.6
// picks channels-last (brgconv) for many convolutions on AVX-512, so these
// conversions run at every region boundary, and its generic jit:uni reorder
// is slow at them (ppocr's 1x200x2x96 NCHW -> NHWC: 32 us; as a transpose
// of a 200 x 192 matrix, a few us). Pure copies: the values are unchanged.
#pragma once

#include <cstdint>
#include <optional>

#include "oneapi/dnnl/dnnl.hpp"

namespace carve::dnnl_backend {

// One plain <-> channels-last conversion: per batch item, a `rows` x `cols`
// row-major matrix transposed.
struct ChannelsTranspose {
  int64_t batch = 0, rows = 0, cols = 0;

  // Converts `src` (laid out as the `from` of Plan) into `dst`.
  void Run(const float* src, float* dst) const;
};

// The transpose converting `from` into `to` when one is a dense
// (N, C, spatial...) row-major float32 tensor and the other the same dims
// dense channels-last; nullopt for any other pair of layouts.
std::optional<ChannelsTranspose> PlanChannelsTranspose(const dnnl::memory::desc& from,
                                                       const dnnl::memory::desc& to);

// dst[j * ldd + i] = src[i * lds + j] for i < rows, j < cols.
void TransposeMatrix(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst,
                     int64_t ldd);

}  // namespace carve::dnnl_backend
