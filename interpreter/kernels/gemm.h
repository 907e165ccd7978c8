// Dense matrix products for the nn kernels, on Eigen's cache-blocked,
// vectorised GEMM. Operands are row-major with explicit leading dimensions,
// so callers can multiply sub-blocks of larger tensors (a group's slice of
// a conv weight, one batch of a batch_matmul) without copying.
#pragma once

#include <cstdint>
#include <functional>

namespace Eigen {
class ThreadPoolDevice;
}

namespace carve::nn_kernels {

// A row-major matrix operand. Stored as rows x cols with row stride `ld`;
// when `transposed` the operand used in the product is its transpose.
template <typename T>
struct MatrixRef {
  const T* data = nullptr;
  int64_t ld = 0;
  bool transposed = false;
};

// C = op(A) * op(B) (or C += ... when `accumulate`), with op(A) m x k,
// op(B) k x n and C row-major m x n with row stride `ldc`. With a device the
// product is split into row (or column) panels run on its threads, but only
// where the split cannot change a bit of the result (the packed float
// kernel, integer types); other products run whole, so results are
// bit-identical for every thread count. Instantiated for float, double,
// int32_t and int64_t.
// `packed_b` (float only; sgemm.h) is op(B) packed once, used where the
// product runs on the packed kernel.
class PackedB;
template <typename T>
void Gemm(int64_t m, int64_t n, int64_t k, MatrixRef<T> a, MatrixRef<T> b, T* c, int64_t ldc,
          bool accumulate, const Eigen::ThreadPoolDevice* device,
          const PackedB* packed_b = nullptr);

// True when a float product of this shape runs on the packed kernel (so a
// PackedB of its B is used).
bool UsesPackedSgemm(int64_t m, int64_t n);

// Runs fn(begin, end) over a partition of [0, n) on the device's threads (or
// inline without a device). `cost_per_item` is a rough count of scalar
// operations per item, used to avoid splitting tiny loops.
void ParallelFor(const Eigen::ThreadPoolDevice* device, int64_t n, double cost_per_item,
                 const std::function<void(int64_t, int64_t)>& fn);

// For streaming kernels (element-wise ops, copies): runs fn(begin, end) on
// one contiguous chunk of [0, n) per thread when the items touch enough
// memory (n * bytes_per_item) to pay for waking the pool, else fn(0, n).
// Items are independent, so the split never changes a result.
void ParallelChunks(const Eigen::ThreadPoolDevice* device, int64_t n, double bytes_per_item,
                    const std::function<void(int64_t, int64_t)>& fn);

// The device's thread count (1 without a device).
int NumThreads(const Eigen::ThreadPoolDevice* device);

}  // namespace carve::nn_kernels
