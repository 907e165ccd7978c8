// Private helpers shared by the nn kernel families (conv, pool, dense, norm,
// image, qnn), on top of kernel_util.h: the accumulation type of an output
// dtype, converting strided copies between tensors and typed buffers (a
// transpose and a dtype conversion in one pass), and layout / padding
// attribute decoding.
//
// Kernels compute in an accumulation type (float, double, int32_t, int64_t)
// and convert at the edges, so one templated algorithm serves every dtype.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve::nn_kernels {

// The width in bytes of the target's widest vector registers. Register
// blocks of GCC vector types are this wide: GCC splits a wider vector
// type lane by lane where it cannot map it onto registers (on AVX2 a
// 64-byte block of FMAs became one scalar FMA per lane, spilled).
#if defined(__AVX512F__)
inline constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
inline constexpr int kVectorBytes = 32;
#else
inline constexpr int kVectorBytes = 16;
#endif

// Calls `f.template operator()<Acc>()` with the type a kernel producing
// `out` accumulates in: float for float16/float32, double for float64,
// int64_t for 64-bit integers and int32_t for narrower integers. TVM
// accumulates in out_dtype; int8/int16 results are accumulated in int32 and
// narrowed once at the end (identical unless the narrow sum overflows).
template <typename F>
absl::Status VisitAccType(const KernelContext& ctx, DataType out, F&& f) {
  if (out.lanes == 1 && !out.is_bool()) {
    if (out == DataType::Float(64)) return f.template operator()<double>();
    if (out == DataType::Float(32) || out == DataType::Float(16)) {
      return f.template operator()<float>();
    }
    if (out.is_integral() && out.bits == 64) return f.template operator()<int64_t>();
    if (out.is_integral() && (out.bits == 8 || out.bits == 16 || out.bits == 32)) {
      return f.template operator()<int32_t>();
    }
  }
  return UnsupportedDType(ctx, out);
}

// Copies a strided box of `shape` from `src` to `dst`, converting elements
// with ConvertTo. Strides are in elements; the last axis is innermost.
template <typename Src, typename Dst>
void CopyStrided(const Src* src, std::span<const int64_t> src_strides, Dst* dst,
                 std::span<const int64_t> dst_strides, std::span<const int64_t> shape) {
  const size_t rank = shape.size();
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  if (rank == 0) {
    *dst = ConvertTo<Dst>(*src);
    return;
  }
  const int64_t inner = shape[rank - 1];
  const int64_t s_in = src_strides[rank - 1], d_in = dst_strides[rank - 1];
  std::vector<int64_t> index(rank - 1, 0);
  while (true) {
    int64_t so = 0, dof = 0;
    for (size_t a = 0; a + 1 < rank; ++a) {
      so += index[a] * src_strides[a];
      dof += index[a] * dst_strides[a];
    }
    const Src* s = src + so;
    Dst* d = dst + dof;
    for (int64_t i = 0; i < inner; ++i) d[i * d_in] = ConvertTo<Dst>(s[i * s_in]);
    // Odometer over the outer axes.
    int a = int(rank) - 2;
    for (; a >= 0; --a) {
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
    if (a < 0) return;
  }
}

// A contiguous, read-only T view of a tensor's elements in some axis order.
// It aliases the tensor when neither a conversion nor a transpose is needed
// and owns a converted copy otherwise.
template <typename T>
class Buffer {
 public:
  Buffer() = default;
  const T* data() const { return data_; }
  int64_t size() const { return size_; }
  // Writable access; copies first when the buffer aliases a tensor.
  T* mutable_data() {
    if (owned_ == nullptr) {
      owned_.reset(new T[std::max<int64_t>(size_, 1)]);
      std::copy(data_, data_ + size_, owned_.get());
      data_ = owned_.get();
    }
    return owned_.get();
  }

  // The tensor's elements, converted to T, in row-major order.
  static absl::StatusOr<Buffer> Of(const KernelContext& ctx, const NDArray& a) {
    std::vector<int> identity(a.rank());
    for (size_t i = 0; i < identity.size(); ++i) identity[i] = int(i);
    return Permuted(ctx, a, identity);
  }

  // The tensor's elements, converted to T, with axis i of the result being
  // axis perm[i] of `a` (a transpose).
  static absl::StatusOr<Buffer> Permuted(const KernelContext& ctx, const NDArray& a,
                                         std::span<const int> perm) {
    Buffer b;
    b.size_ = a.num_elements();
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == int(i);
    if (identity && a.dtype() == DTypeOf<T>()) {
      b.data_ = a.data<T>();
      return b;
    }
    b.owned_.reset(new T[std::max<int64_t>(b.size_, 1)]);
    b.data_ = b.owned_.get();
    std::vector<int64_t> strides = RowMajorStrides(a.shape());
    std::vector<int64_t> src_strides(perm.size()), shape(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      src_strides[i] = strides[perm[i]];
      shape[i] = a.shape()[perm[i]];
    }
    std::vector<int64_t> dst_strides = RowMajorStrides(shape);
    T* dst = b.owned_.get();
    CARVE_RETURN_IF_ERROR(DispatchAll(ctx, a.dtype(), [&]<typename S>() {
      CopyStrided(a.data<S>(), src_strides, dst, dst_strides, shape);
      return absl::OkStatus();
    }));
    return b;
  }

 private:
  const T* data_ = nullptr;
  std::unique_ptr<T[]> owned_;
  int64_t size_ = 0;
};

// Writes the contiguous elements `src`, whose axis i is axis perm[i] of
// `out`, into `out`, converting to its dtype (the inverse of
// Buffer::Permuted).
template <typename T>
absl::Status StorePermuted(const KernelContext& ctx, const T* src, std::span<const int> perm,
                           NDArray& out) {
  std::vector<int64_t> out_strides = RowMajorStrides(out.shape());
  std::vector<int64_t> shape(perm.size()), dst_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = out.shape()[perm[i]];
    dst_strides[i] = out_strides[perm[i]];
  }
  std::vector<int64_t> src_strides = RowMajorStrides(shape);
  return DispatchAll(ctx, out.dtype(), [&]<typename D>() {
    CopyStrided(src, src_strides, out.data<D>(), dst_strides, shape);
    return absl::OkStatus();
  });
}

// Writes the contiguous elements `src` (row-major, out's shape) into `out`,
// converting to its dtype.
template <typename T>
absl::Status Store(const KernelContext& ctx, const T* src, NDArray& out) {
  std::vector<int> identity(out.rank());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = int(i);
  return StorePermuted(ctx, src, identity, out);
}

// The position in `layout` of each letter of `axes` ("NCHW" in "NHWC" ->
// {0, 3, 1, 2}). Unimplemented for layouts that are not a permutation of
// `axes` (split layouts such as NCHW16c are not interpreted).
absl::StatusOr<std::vector<int>> LayoutPermutation(const KernelContext& ctx,
                                                   std::string_view layout,
                                                   std::string_view axes);

// A per-spatial-axis int list attribute (strides, dilation, pool_size) with
// `spatial` entries; a single value is repeated; absent gives `fallback`.
absl::StatusOr<std::vector<int64_t>> SpatialInts(const KernelContext& ctx, std::string_view key,
                                                 int spatial, int64_t fallback);

// Conv/pool padding as {befores..., afters...} (2 * spatial values) from the
// forms TVM accepts: 1 value (every side), `spatial` values (symmetric per
// axis) or 2 * spatial values (all befores, then all afters).
absl::StatusOr<std::vector<int64_t>> ExpandPadding(const KernelContext& ctx,
                                                   std::span<const int64_t> padding,
                                                   int spatial);

// A tensor's elements as doubles (scales, statistics) / int64s (zero points).
absl::StatusOr<std::vector<double>> ToDoubles(const KernelContext& ctx, const NDArray& a);
absl::StatusOr<std::vector<int64_t>> ToInt64s(const KernelContext& ctx, const NDArray& a);

// `shape` viewed as [outer, extent, inner] around `axis`.
struct AxisView {
  int64_t outer = 1;
  int64_t extent = 1;
  int64_t inner = 1;
};
AxisView ViewAround(std::span<const int64_t> shape, int64_t axis);

}  // namespace carve::nn_kernels
