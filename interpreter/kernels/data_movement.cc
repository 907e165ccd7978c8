#include "interpreter/kernels/data_movement.h"

#include <cstring>

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

template <int kBytes>
void PermuteCopyImpl(const NDArray& in, NDArray& out, std::span<const int64_t> perm) {
  using W = Word<kBytes>;
  const W* src = static_cast<const W*>(in.raw_data());
  W* dst = static_cast<W*>(out.raw_data());
  const size_t rank = out.rank();
  if (rank == 0) {
    *dst = *src;
    return;
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape());
  std::vector<int64_t> strides(rank);  // input stride of each output axis
  for (size_t d = 0; d < rank; ++d) strides[d] = in_strides[perm[d]];
  const int64_t n = out.shape()[rank - 1];
  const int64_t step = strides[rank - 1];
  int64_t row = 0;
  ForEachRow(out.shape(), [&](const std::vector<int64_t>& index) {
    int64_t base = 0;
    for (size_t d = 0; d + 1 < rank; ++d) base += index[d] * strides[d];
    W* o = dst + row * n;
    ++row;
    if (step == 1) {
      std::memcpy(o, src + base, n * kBytes);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = src[base + i * step];
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
