// Conversions between Relay's NCHW-like layouts and channels-last (NHWC,
// NWC, NDHWC) or oneDNN's channel blocks of 8 or 16 (nChw8c, nChw16c, ...),
// done by carve instead of oneDNN's reorder. oneDNN 2.6 picks channels-last
// (brgconv) for many convolutions on AVX-512 and nChw8c on AVX2, so these
// conversions run at every region boundary, and its generic reorders are
// slow at them (ppocr's 1x200x2x96 NCHW -> NHWC: 32 us with jit:uni; as a
// transpose of a 200 x 192 matrix, a few us). Pure copies: the values are
// unchanged, and a blocked tensor's padding channels are written as zeros,
// as oneDNN's reorder writes them.
#pragma once

#include <cstdint>
#include <optional>

#include "oneapi/dnnl/dnnl.hpp"

namespace carve::dnnl_backend {

// One plain <-> channels-last conversion: per batch item, a `rows` x `cols`
// row-major matrix transposed. Or, when `block` is set, one plain <->
// channel-blocked conversion: per batch item and block of `block` channels,
// the block's `block` x `cols` (pixels) rows transposed into `cols` x
// `block` (to_blocked) or back.
struct ChannelsTranspose {
  int64_t batch = 0, rows = 0, cols = 0;
  int64_t block = 0;      // channels per block; 0: channels-last
  int64_t channels = 0;   // (block set) the real channels, rows = padded ones
  bool to_blocked = false;

  // Converts `src` (laid out as the `from` of Plan) into `dst`.
  void Run(const float* src, float* dst) const;
};

// The transpose converting `from` into `to` when one is a dense
// (N, C, spatial...) row-major float32 tensor and the other the same dims
// dense channels-last, or channels in blocks of 8 or 16 (innermost; the
// last block padded); nullopt for any other pair of layouts.
std::optional<ChannelsTranspose> PlanChannelsTranspose(const dnnl::memory::desc& from,
                                                       const dnnl::memory::desc& to);

// dst[j * ldd + i] = src[i * lds + j] for i < rows, j < cols.
void TransposeMatrix(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst,
                     int64_t ldd);

}  // namespace carve::dnnl_backend
