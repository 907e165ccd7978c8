// Dtype-agnostic copy loops shared by the data-movement kernels
// (transpose, pad, strided_slice, layout_transform, concatenate, split).
// They move whole elements by size, so one instantiation per element width
// serves every dtype.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/ndarray.h"

namespace carve {

// out[i_0, ..., i_k] = in[maps[0][i_0], ..., maps[k][i_k]], or the element
// at `fill` (same dtype as `in`) where some maps[d][i_d] is negative.
// maps[d] has out.shape()[d] entries, each in [-1, in.shape()[d]).
void GatherAxes(const NDArray& in, NDArray& out, std::span<const std::vector<int64_t>> maps,
                const void* fill);

// out[i_0, ..., i_k] = in[j] where j[perm[d]] = i_d (out.shape()[d] ==
// in.shape()[perm[d]]): transpose.
void PermuteCopy(const NDArray& in, NDArray& out, std::span<const int64_t> perm);

// Copies `rows` rows of `row_bytes` bytes from `src` (rows `src_pitch`
// bytes apart) to `dst` (rows `dst_pitch` bytes apart).
void CopyRows(const std::byte* src, int64_t src_pitch, std::byte* dst, int64_t dst_pitch,
              int64_t rows, int64_t row_bytes);

}  // namespace carve
