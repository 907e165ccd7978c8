// Private helpers shared by the nn kernel families (conv, pool, dense, norm,
// image, qnn): dtype dispatch onto C++ element types, converting strided
// copies between tensors and typed buffers, output allocation from the
// call's inferred type, and layout / padding attribute decoding.
//
// Kernels compute in an accumulation type (float, double, int32_t, int64_t)
// and convert at the edges, so one templated algorithm serves every dtype.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "interpreter/kernel.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/type.h"
#include "support/status_macros.h"

namespace carve::nn_kernels {

// Storage type of float16 elements; converted through float.
struct Half {
  uint16_t bits;
};

// The DataType of an accumulation / storage C++ type.
template <typename T>
constexpr DataType DataTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DataType::Float(32);
  if constexpr (std::is_same_v<T, double>) return DataType::Float(64);
  if constexpr (std::is_same_v<T, Half>) return DataType::Float(16);
  if constexpr (std::is_same_v<T, bool>) return DataType::Bool();
  if constexpr (std::is_same_v<T, int8_t>) return DataType::Int(8);
  if constexpr (std::is_same_v<T, int16_t>) return DataType::Int(16);
  if constexpr (std::is_same_v<T, int32_t>) return DataType::Int(32);
  if constexpr (std::is_same_v<T, int64_t>) return DataType::Int(64);
  if constexpr (std::is_same_v<T, uint8_t>) return DataType::UInt(8);
  if constexpr (std::is_same_v<T, uint16_t>) return DataType::UInt(16);
  if constexpr (std::is_same_v<T, uint32_t>) return DataType::UInt(32);
  if constexpr (std::is_same_v<T, uint64_t>) return DataType::UInt(64);
  return DataType::Void();
}

// Calls `f(T{})` with the C++ storage type of `dtype` (Half for float16,
// bool for bool). Returns Unimplemented for dtypes tensors cannot hold.
template <typename F>
absl::Status VisitStorageType(DataType dtype, F&& f) {
  if (dtype.lanes != 1) {
    return absl::UnimplementedError(fmt::format("vector dtype {} is not supported",
                                                dtype.ToString()));
  }
  if (dtype.is_bool()) return f(bool{});
  switch (dtype.code) {
    case DataType::kFloat:
      if (dtype.bits == 16) return f(Half{});
      if (dtype.bits == 32) return f(float{});
      if (dtype.bits == 64) return f(double{});
      break;
    case DataType::kInt:
      if (dtype.bits == 8) return f(int8_t{});
      if (dtype.bits == 16) return f(int16_t{});
      if (dtype.bits == 32) return f(int32_t{});
      if (dtype.bits == 64) return f(int64_t{});
      break;
    case DataType::kUInt:
      if (dtype.bits == 8) return f(uint8_t{});
      if (dtype.bits == 16) return f(uint16_t{});
      if (dtype.bits == 32) return f(uint32_t{});
      if (dtype.bits == 64) return f(uint64_t{});
      break;
    default:
      break;
  }
  return absl::UnimplementedError(fmt::format("dtype {} is not supported", dtype.ToString()));
}

// Calls `f(Acc{})` with the type a kernel producing `out` accumulates in:
// float for float16/float32, double for float64, int64_t for 64-bit
// integers and int32_t for narrower integers (TVM accumulates in out_dtype;
// int8/int16 outputs are accumulated in int32 and narrowed at the end).
template <typename F>
absl::Status VisitAccType(DataType out, F&& f) {
  if (out.lanes != 1 || out.is_bool()) {
    return absl::UnimplementedError(fmt::format("output dtype {} is not supported",
                                                out.ToString()));
  }
  if (out.code == DataType::kFloat) {
    if (out.bits == 64) return f(double{});
    if (out.bits == 16 || out.bits == 32) return f(float{});
  }
  if (out.is_integral() && (out.bits == 8 || out.bits == 16 || out.bits == 32)) {
    return f(int32_t{});
  }
  if (out.is_integral() && out.bits == 64) return f(int64_t{});
  return absl::UnimplementedError(fmt::format("output dtype {} is not supported",
                                              out.ToString()));
}

// Converts one element with TVM's cast semantics: float -> integer truncates
// toward zero (saturating instead of undefined behaviour out of range, NaN
// -> 0), integer -> integer wraps, anything -> bool is `!= 0`.
template <typename To, typename From>
inline To ConvertScalar(From v) {
  if constexpr (std::is_same_v<From, Half>) {
    return ConvertScalar<To>(HalfToFloat(v.bits));
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{FloatToHalf(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return To(0);
    constexpr double kLo = double(std::numeric_limits<To>::lowest());
    constexpr double kHi = double(std::numeric_limits<To>::max());
    if (double(v) <= kLo) return std::numeric_limits<To>::lowest();
    if (double(v) >= kHi) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Copies a strided `rank`-d box from `src` to `dst`, converting elements.
// Strides are in elements; the innermost axis is the last one.
template <typename Src, typename Dst>
void CopyStrided(const Src* src, std::span<const int64_t> src_strides, Dst* dst,
                 std::span<const int64_t> dst_strides, std::span<const int64_t> shape) {
  const size_t rank = shape.size();
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  if (rank == 0) {
    *dst = ConvertScalar<Dst>(*src);
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
    for (int64_t i = 0; i < inner; ++i) d[i * d_in] = ConvertScalar<Dst>(s[i * s_in]);
    // Odometer over the outer axes.
    int a = int(rank) - 2;
    for (; a >= 0; --a) {
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
    if (a < 0) return;
  }
}

// Row-major element strides of `shape`.
std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape);

// A contiguous, read-only T view of a tensor's elements in some axis order.
// It aliases the tensor when no conversion or permutation is needed and owns
// a converted copy otherwise.
template <typename T>
class Buffer {
 public:
  Buffer() = default;
  const T* data() const { return data_; }
  // Writable access; copies first when the buffer aliases a tensor.
  T* mutable_data() {
    if (owned_ == nullptr) {
      owned_.reset(new T[size_]);
      std::copy(data_, data_ + size_, owned_.get());
      data_ = owned_.get();
    }
    return owned_.get();
  }
  int64_t size() const { return size_; }

  // The tensor's elements, converted to T, in row-major order.
  static absl::StatusOr<Buffer> Of(const NDArray& a) {
    std::vector<int> identity(a.rank());
    for (size_t i = 0; i < identity.size(); ++i) identity[i] = int(i);
    return Permuted(a, identity);
  }
  // The tensor's elements, converted to T, with axis i of the result being
  // axis perm[i] of `a` (a transpose).
  static absl::StatusOr<Buffer> Permuted(const NDArray& a, std::span<const int> perm) {
    Buffer b;
    b.size_ = a.num_elements();
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == int(i);
    if (identity && a.dtype() == DataTypeOf<T>()) {
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
    CARVE_RETURN_IF_ERROR(VisitStorageType(a.dtype(), [&](auto tag) -> absl::Status {
      using Src = decltype(tag);
      CopyStrided(a.data<Src>(), src_strides, dst, dst_strides, shape);
      return absl::OkStatus();
    }));
    return b;
  }

 private:
  const T* data_ = nullptr;
  std::unique_ptr<T[]> owned_;
  int64_t size_ = 0;
};

// Writes the contiguous T elements `src`, whose axis i is axis perm[i] of
// `out`, into `out` converting to its dtype (the inverse of
// Buffer::Permuted).
template <typename T>
absl::Status StorePermuted(const T* src, std::span<const int> perm, NDArray& out) {
  std::vector<int64_t> out_strides = RowMajorStrides(out.shape());
  std::vector<int64_t> shape(perm.size()), dst_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = out.shape()[perm[i]];
    dst_strides[i] = out_strides[perm[i]];
  }
  std::vector<int64_t> src_strides = RowMajorStrides(shape);
  return VisitStorageType(out.dtype(), [&](auto tag) -> absl::Status {
    using Dst = decltype(tag);
    CopyStrided(src, src_strides, out.data<Dst>(), dst_strides, shape);
    return absl::OkStatus();
  });
}

// Writes the contiguous T elements `src` (row-major, out's shape) into `out`.
template <typename T>
absl::Status Store(const T* src, NDArray& out) {
  std::vector<int> identity(out.rank());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = int(i);
  return StorePermuted(src, identity, out);
}

// A zero-filled tensor of the static tensor type `type`.
absl::StatusOr<NDArray> AllocateTensor(const Type* type);
// One zero-filled tensor per field of the call's output type (one tensor for
// a tensor type).
absl::StatusOr<std::vector<NDArray>> AllocateOutputs(const Type* type);

// Fails unless the call has exactly `n` inputs.
absl::Status ExpectInputs(const KernelContext& ctx, size_t n, std::string_view op);

// The positions in `layout` of each letter of `axes` ("NCHW" in "NHWC" ->
// {0, 3, 1, 2}). Fails for layouts that are not a permutation of `axes`
// (split layouts like NCHW16c are not interpreted).
absl::StatusOr<std::vector<int>> LayoutPermutation(std::string_view layout,
                                                   std::string_view axes);

// `attrs[key]` as an int list, or `fallback` when absent or null.
std::vector<int64_t> IntsOr(const Attrs* attrs, std::string_view key,
                            std::vector<int64_t> fallback);
int64_t IntOr(const Attrs* attrs, std::string_view key, int64_t fallback);
double FloatOr(const Attrs* attrs, std::string_view key, double fallback);
bool BoolOr(const Attrs* attrs, std::string_view key, bool fallback);
std::string StringOr(const Attrs* attrs, std::string_view key, std::string_view fallback);

// A per-axis attribute (strides, dilation, pool_size) with `spatial`
// entries; one value is repeated.
absl::StatusOr<std::vector<int64_t>> SpatialInts(const Attrs* attrs, std::string_view key,
                                                 int spatial, int64_t fallback);

// Conv/pool padding as {before..., after...} (2 * spatial values) from the
// forms TVM accepts: 1 value (all sides), `spatial` values (symmetric per
// axis) or 2 * spatial values (all befores, then all afters).
absl::StatusOr<std::vector<int64_t>> ExpandPadding(std::span<const int64_t> padding,
                                                   int spatial);

// Reads a float32/float64/float16 tensor as doubles (scales, BN stats).
absl::StatusOr<std::vector<double>> ToDoubles(const NDArray& a);
// Reads an integer tensor as int64 values (zero points).
absl::StatusOr<std::vector<int64_t>> ToInt64s(const NDArray& a);

// Normalises a possibly negative `axis` for a rank-`rank` tensor.
absl::StatusOr<int> NormalizeAxis(int64_t axis, size_t rank);

// (outer, axis extent, inner) of viewing `shape` around `axis`.
struct AxisView {
  int64_t outer = 1;
  int64_t extent = 1;
  int64_t inner = 1;
};
AxisView ViewAround(std::span<const int64_t> shape, int axis);

}  // namespace carve::nn_kernels
