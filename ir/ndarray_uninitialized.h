// Storage without the zero fill, for a kernel that writes every element of
// its output before anything reads it (a convolution, a GEMM). Zero-filling
// a fresh output the kernel then overwrites was a pass over every result
// (~6-8% of a small CNN's time). Everywhere else NDArray::Empty's zeros
// stay: a tensor read before it is fully written must not show stale bytes.
//
// Kept out of ir/ndarray.h (which nearly every file includes) so that its
// few callers are all that depends on it.
#pragma once

#include <cstdint>
#include <span>

#include "ir/ndarray.h"

namespace carve {

// A tensor of `shape` whose contents are unspecified until written (the
// bytes a previous allocation left). Same alignment and ownership as
// NDArray::Empty.
NDArray UninitializedNDArray(DataType dtype, std::span<const int64_t> shape);

}  // namespace carve
