// Element-by-element index arithmetic shared by the kernels that map output
// coordinates to input coordinates (index.cc, nn_misc.cc): the coordinates
// of a flat index, the flat offset of coordinates, and a one-element copy
// that works for every dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "ir/ndarray.h"

namespace carve {

// The coordinates of flat index `flat` in a row-major tensor of `shape`.
inline std::vector<int64_t> Coords(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = flat % shape[d];
    flat /= shape[d];
  }
  return c;
}

// The flat offset of `coords` in a tensor with `strides`.
inline int64_t Offset(const std::vector<int64_t>& coords, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < coords.size(); ++d) off += coords[d] * strides[d];
  return off;
}

// to[j] = from[i], as bytes (both tensors of one dtype).
inline void CopyElement(const NDArray& from, int64_t i, NDArray& to, int64_t j) {
  const size_t b = from.dtype().bytes();
  std::memcpy(static_cast<std::byte*>(to.raw_data()) + j * b,
              static_cast<const std::byte*>(from.raw_data()) + i * b, b);
}

}  // namespace carve
