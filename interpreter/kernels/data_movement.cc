#include "interpreter/kernels/data_movement.h"

#include <algorithm>
#include <cstring>

#include "interpreter/kernels/avx_transpose.h"

#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

// An unsigned integer type of `kBytes` bytes: the unit elements move as.
template <int kBytes>
using Word = std::conditional_t<
    kBytes == 1, uint8_t,
    std::conditional_t<kBytes == 2, uint16_t, std::conditional_t<kBytes == 4, uint32_t, uint64_t>>>;

// Visits every row (all axes but the last) of `shape` in row-major order,
// passing the multi-index of the row; returns early for empty shapes.
template <typename F>
void ForEachRow(std::span<const int64_t> shape, F&& f) {
  const size_t outer_rank = shape.empty() ? 0 : shape.size() - 1;
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(outer_rank, 0);
  int64_t rows = ShapeProduct(shape, 0, outer_rank);
  for (int64_t r = 0; r < rows; ++r) {
    f(static_cast<const std::vector<int64_t>&>(index));
    for (size_t d = outer_rank; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

template <int kBytes>
void GatherAxesImpl(const NDArray& in, NDArray& out, std::span<const std::vector<int64_t>> maps,
                    const void* fill) {
  using W = Word<kBytes>;
  const W* src = static_cast<const W*>(in.raw_data());
  W* dst = static_cast<W*>(out.raw_data());
  W fill_value{};
  if (fill != nullptr) std::memcpy(&fill_value, fill, kBytes);
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape());
  const size_t rank = out.rank();
  if (rank == 0) {
    *dst = *src;
    return;
  }
  const std::vector<int64_t>& inner = maps[rank - 1];
  const int64_t n = out.shape()[rank - 1];
  // A run copies straight through when the inner map is a contiguous range.
  bool contiguous = n > 0 && inner[0] >= 0;
  for (int64_t i = 1; contiguous && i < n; ++i) contiguous = inner[i] == inner[0] + i;
  const int64_t inner_stride = in_strides[rank - 1];
  int64_t row = 0;
  ForEachRow(out.shape(), [&](const std::vector<int64_t>& index) {
    W* o = dst + row * n;
    ++row;
    int64_t base = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      int64_t m = maps[d][index[d]];
      if (m < 0) {
        std::fill_n(o, n, fill_value);
        return;
      }
      base += m * in_strides[d];
    }
    if (contiguous && inner_stride == 1) {
      std::memcpy(o, src + base + inner[0], n * kBytes);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      o[i] = inner[i] < 0 ? fill_value : src[base + inner[i] * inner_stride];
    }
  });
}

// A permutation copy in its simplest form: output axes with extent 1
// dropped and runs of axes that stay adjacent in the input merged.
struct PermutePlan {
  std::vector<int64_t> extent;     // output extents
  std::vector<int64_t> in_stride;  // input stride of each output axis
};

PermutePlan SimplifyPermute(std::span<const int64_t> in_shape, std::span<const int64_t> perm) {
  const std::vector<int64_t> in_strides = RowMajorStrides(in_shape);
  PermutePlan plan;
  for (size_t d = 0; d < perm.size(); ++d) {
    const int64_t n = in_shape[perm[d]], stride = in_strides[perm[d]];
    if (n == 1) continue;
    if (!plan.extent.empty() && plan.in_stride.back() == stride * n) {
      plan.extent.back() *= n;  // the previous axis is the outer part of this one
      plan.in_stride.back() = stride;
      continue;
    }
    plan.extent.push_back(n);
    plan.in_stride.push_back(stride);
  }
  return plan;
}

// dst[j * dst_ld + i] = src[i * src_ld + j] for an 8x8 block of 4-byte
// elements, through registers on AVX2.
template <typename W>
void Transpose8x8(const W* src, int64_t src_ld, W* dst, int64_t dst_ld) {
#if defined(__AVX2__)
  __m256 v[8];
  for (int i = 0; i < 8; ++i) {
    v[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * src_ld));
  }
  nn_kernels::Transpose8x8(v);
  for (int j = 0; j < 8; ++j) _mm256_storeu_ps(reinterpret_cast<float*>(dst + j * dst_ld), v[j]);
#else
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) dst[j * dst_ld + i] = src[i * src_ld + j];
  }
#endif
}

// Copies the plane of output axes (a, last) at offsets (in_base, out_base)
// in square tiles: the input is contiguous along a and the output along
// last, so a tile touches few cache lines on both sides.
template <typename W>
void TransposePlane(const W* src, W* dst, int64_t na, int64_t out_stride_a, int64_t nl,
                    int64_t in_stride_l) {
  // 64x64 blocks keep both sides' pages and lines resident; inside them,
  // 8x8 register transposes (4-byte elements) or scalar copies.
  constexpr int64_t kBlock = 64, kTile = 8;
  for (int64_t ab = 0; ab < na; ab += kBlock) {
    const int64_t ae = std::min(na, ab + kBlock);
    for (int64_t lb = 0; lb < nl; lb += kBlock) {
      const int64_t le = std::min(nl, lb + kBlock);
      for (int64_t a0 = ab; a0 < ae; a0 += kTile) {
        const int64_t a1 = std::min(ae, a0 + kTile);
        for (int64_t l0 = lb; l0 < le; l0 += kTile) {
          const int64_t l1 = std::min(le, l0 + kTile);
          if constexpr (sizeof(W) == 4) {
            if (a1 - a0 == kTile && l1 - l0 == kTile) {
              Transpose8x8(src + l0 * in_stride_l + a0, in_stride_l, dst + a0 * out_stride_a + l0,
                           out_stride_a);
              continue;
            }
          }
          for (int64_t a = a0; a < a1; ++a) {
            W* o = dst + a * out_stride_a;
            for (int64_t l = l0; l < l1; ++l) o[l] = src[l * in_stride_l + a];
          }
        }
      }
    }
  }
}

template <int kBytes>
void PermuteCopyImpl(const NDArray& in, NDArray& out, std::span<const int64_t> perm) {
  using W = Word<kBytes>;
  const W* src = static_cast<const W*>(in.raw_data());
  W* dst = static_cast<W*>(out.raw_data());
  if (out.num_elements() == 0) return;
  const PermutePlan plan = SimplifyPermute(in.shape(), perm);
  const size_t rank = plan.extent.size();
  if (rank <= 1) {  // the identity order: one straight copy
    std::memcpy(dst, src, size_t(out.num_elements()) * kBytes);
    return;
  }
  const std::vector<int64_t> out_strides = RowMajorStrides(plan.extent);
  const int64_t n = plan.extent[rank - 1], step = plan.in_stride[rank - 1];
  // The output axis that is contiguous in the input (stride 1), if not the
  // last one: that pair of axes is copied as tiled planes.
  size_t a = rank;
  for (size_t d = 0; d + 1 < rank; ++d) {
    if (plan.in_stride[d] == 1) a = d;
  }
  std::vector<int64_t> outer_extent;
  std::vector<size_t> outer_axes;
  for (size_t d = 0; d + 1 < rank; ++d) {
    if (d != a) {
      outer_axes.push_back(d);
      outer_extent.push_back(plan.extent[d]);
    }
  }
  outer_extent.push_back(1);  // ForEachRow visits all axes but the last
  ForEachRow(outer_extent, [&](const std::vector<int64_t>& index) {
    int64_t in_base = 0, out_base = 0;
    for (size_t k = 0; k < outer_axes.size(); ++k) {
      in_base += index[k] * plan.in_stride[outer_axes[k]];
      out_base += index[k] * out_strides[outer_axes[k]];
    }
    if (a < rank) {
      TransposePlane(src + in_base, dst + out_base, plan.extent[a], out_strides[a], n, step);
    } else if (step == 1) {
      std::memcpy(dst + out_base, src + in_base, n * kBytes);
    } else {
      for (int64_t i = 0; i < n; ++i) dst[out_base + i] = src[in_base + i * step];
    }
  });
}

}  // namespace

void GatherAxes(const NDArray& in, NDArray& out, std::span<const std::vector<int64_t>> maps,
                const void* fill) {
  switch (in.dtype().bytes()) {
    case 1:
      return GatherAxesImpl<1>(in, out, maps, fill);
    case 2:
      return GatherAxesImpl<2>(in, out, maps, fill);
    case 4:
      return GatherAxesImpl<4>(in, out, maps, fill);
    default:
      return GatherAxesImpl<8>(in, out, maps, fill);
  }
}

void PermuteCopy(const NDArray& in, NDArray& out, std::span<const int64_t> perm) {
  switch (in.dtype().bytes()) {
    case 1:
      return PermuteCopyImpl<1>(in, out, perm);
    case 2:
      return PermuteCopyImpl<2>(in, out, perm);
    case 4:
      return PermuteCopyImpl<4>(in, out, perm);
    default:
      return PermuteCopyImpl<8>(in, out, perm);
  }
}

void CopyRows(const std::byte* src, int64_t src_pitch, std::byte* dst, int64_t dst_pitch,
              int64_t rows, int64_t row_bytes) {
  if (row_bytes == 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(dst + r * dst_pitch, src + r * src_pitch, row_bytes);
  }
}

}  // namespace carve
