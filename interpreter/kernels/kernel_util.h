// Helpers shared by every kernel family: output allocation from the call's
// inferred type, dtype dispatch, attribute accessors, Eigen maps and errors.
//
// A typical kernel:
//
//   absl::StatusOr<std::vector<NDArray>> Relu(const KernelContext& ctx) {
//     CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
//     CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
//     CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, out.dtype(), [&]<typename T>() {
//       using C = ComputeT<T>;
//       FlatMap<T>(out) = (FlatMap<const T>(ctx.inputs[0]).template cast<C>()
//                              .max(C(0))).template cast<T>();
//       return absl::OkStatus();
//     }));
//     return std::vector<NDArray>{out};
//   }
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "interpreter/kernel.h"
#include "ir/ndarray.h"
#include "ir/type.h"
#include "support/status_macros.h"

namespace carve {

// ---------------------------------------------------------------------------
// Element types.

// The C++ storage type of float16 elements: IEEE binary16, 2 bytes, converting
// to and from float with round-to-nearest-even.
using Half = Eigen::half;

// The type a kernel computes in for storage type T: float for Half (float16
// is computed via float and rounded once when stored), T otherwise.
template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<Half> {
  using type = float;
};
template <typename T>
using ComputeT = typename ComputeTypeOf<std::remove_const_t<T>>::type;

// True for the floating-point storage types (Half, float, double).
template <typename T>
inline constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<std::remove_const_t<T>, Half>;

// The DataType stored as T.
template <typename T>
constexpr DataType DTypeOf() {
  using S = std::remove_const_t<T>;
  if constexpr (std::is_same_v<S, bool>)
    return DataType::Bool();
  else if constexpr (std::is_same_v<S, Half>)
    return DataType::Float(16);
  else if constexpr (std::is_floating_point_v<S>)
    return DataType::Float(sizeof(S) * 8);
  else if constexpr (std::is_signed_v<S>)
    return DataType::Int(sizeof(S) * 8);
  else
    return DataType::UInt(sizeof(S) * 8);
}

// ---------------------------------------------------------------------------
// Errors. Messages are lowercase, without a trailing period, and prefixed
// with the op name when the context has one: "nn.pad: pad_width has 3 ...".

// The op name for messages ("<kernel>" without an op).
std::string_view OpName(const KernelContext& ctx);

// InvalidArgument "<op>: <message>".
template <typename... Args>
absl::Status KernelError(const KernelContext& ctx, fmt::format_string<Args...> format,
                         Args&&... args) {
  return absl::InvalidArgumentError(
      fmt::format("{}: {}", OpName(ctx), fmt::format(format, std::forward<Args>(args)...)));
}

// InvalidArgument "<op>: unsupported dtype <dtype>".
absl::Status UnsupportedDType(const KernelContext& ctx, DataType dtype);

// Fails unless the call has exactly `n` inputs (after tuple flattening).
absl::Status CheckArity(const KernelContext& ctx, size_t n);
// Fails unless the call has at least `n` inputs.
absl::Status CheckMinArity(const KernelContext& ctx, size_t n);

// ---------------------------------------------------------------------------
// Output allocation from ctx.out_type.

// The static shape of `type`, or an error naming the dynamic dim.
absl::StatusOr<std::vector<int64_t>> StaticShape(const TensorType* type);
// A zero-filled tensor of `type` (which must be a static TensorType).
absl::StatusOr<NDArray> AllocTensor(const Type* type);
// The single tensor output of a call whose out_type is a TensorType
// (zero-filled; ctx.destination when the plan set one).
absl::StatusOr<NDArray> AllocOutput(const KernelContext& ctx);
// ctx.destination, taken (so it serves one allocation), when it is set and
// has `dtype` and `shape`; else an undefined tensor.
NDArray TakeDestination(const KernelContext& ctx, DataType dtype, std::span<const int64_t> shape);
// One tensor per field of a TupleType out_type (or one for a TensorType).
absl::StatusOr<std::vector<NDArray>> AllocOutputs(const KernelContext& ctx);
// The tensor type of output `i` (the out_type itself for a tensor result).
absl::StatusOr<const TensorType*> OutTensorType(const KernelContext& ctx, size_t i = 0);

// The tensor type of a static `shape`.
const TensorType* StaticTensorType(DataType dtype, std::span<const int64_t> shape);

// Runs the registered kernel of `op_name` on `inputs` with output type
// `out_type`: its attributes are `attrs` (the op's defaults when null) with
// `fields` set. For kernels that follow a TVM rewrite into other ops (the
// qnn canonicalizations) and must compute exactly what those ops compute.
absl::StatusOr<NDArray> RunRegisteredKernel(
    const KernelContext& ctx, std::string_view op_name, std::vector<NDArray> inputs,
    const Type* out_type, std::initializer_list<std::pair<std::string_view, AttrValue>> fields,
    const Attrs* attrs = nullptr);

// ---------------------------------------------------------------------------
// Attribute accessors. Absent attributes (or a null ctx.attrs) give the
// fallback, so kernels also run on calls built without a schema.

int64_t AttrInt(const KernelContext& ctx, std::string_view key, int64_t fallback);
bool AttrBool(const KernelContext& ctx, std::string_view key, bool fallback);
double AttrFloat(const KernelContext& ctx, std::string_view key, double fallback);
std::string_view AttrString(const KernelContext& ctx, std::string_view key,
                            std::string_view fallback);
// void when absent or unparsable.
DataType AttrDType(const KernelContext& ctx, std::string_view key);
// An int list; nullopt when absent, null (`None`) or not a list of ints.
std::optional<std::vector<int64_t>> AttrInts(const KernelContext& ctx, std::string_view key);
// True when the attribute is absent or `None`.
bool AttrIsNull(const KernelContext& ctx, std::string_view key);

// Normalises a possibly negative axis into [0, rank); error when outside
// [-rank, rank).
absl::StatusOr<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank);

// ---------------------------------------------------------------------------
// Eigen views of tensor storage (flat, or a row-major matrix). T must match
// the tensor's dtype; use a const T for read-only views.

template <typename T>
using FlatArray =
    Eigen::Map<std::conditional_t<std::is_const_v<T>,
                                  const Eigen::Array<std::remove_const_t<T>, Eigen::Dynamic, 1>,
                                  Eigen::Array<T, Eigen::Dynamic, 1>>>;
template <typename T>
using RowMajorMatrix = Eigen::Map<std::conditional_t<
    std::is_const_v<T>,
    const Eigen::Matrix<std::remove_const_t<T>, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>>;

template <typename T>
FlatArray<T> FlatMap(std::conditional_t<std::is_const_v<T>, const NDArray&, NDArray&> a) {
  return FlatArray<T>(a.template data<std::remove_const_t<T>>(), a.num_elements());
}
template <typename T>
RowMajorMatrix<T> MatrixMap(std::conditional_t<std::is_const_v<T>, const NDArray&, NDArray&> a,
                            int64_t rows, int64_t cols) {
  return RowMajorMatrix<T>(a.template data<std::remove_const_t<T>>(), rows, cols);
}

// ---------------------------------------------------------------------------
// Dtype dispatch. `f` is a template lambda `[&]<typename T>() { ... }` that
// returns absl::Status or absl::StatusOr<...>; it is instantiated with the
// storage type of `dtype` (Half for float16, bool for bool). Unsupported
// dtypes return an error without calling `f`.

#define CARVE_DISPATCH_CASE_(cond, T) \
  if (cond) return f.template operator()<T>()

// Every tensor dtype: float16/32/64, int8..64, uint8..64, bool.
template <typename F>
auto DispatchAll(const KernelContext& ctx, DataType dt, F&& f)
    -> decltype(f.template operator()<float>()) {
  if (dt.lanes == 1) {
    CARVE_DISPATCH_CASE_(dt == DataType::Float(32), float);
    CARVE_DISPATCH_CASE_(dt == DataType::Float(16), Half);
    CARVE_DISPATCH_CASE_(dt == DataType::Float(64), double);
    CARVE_DISPATCH_CASE_(dt == DataType::Int(8), int8_t);
    CARVE_DISPATCH_CASE_(dt == DataType::Int(16), int16_t);
    CARVE_DISPATCH_CASE_(dt == DataType::Int(32), int32_t);
    CARVE_DISPATCH_CASE_(dt == DataType::Int(64), int64_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(8), uint8_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(16), uint16_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(32), uint32_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(64), uint64_t);
    CARVE_DISPATCH_CASE_(dt == DataType::Bool(), bool);
  }
  return UnsupportedDType(ctx, dt);
}

// Every dtype except bool.
template <typename F>
auto DispatchNumeric(const KernelContext& ctx, DataType dt, F&& f)
    -> decltype(f.template operator()<float>()) {
  if (dt.is_bool()) return UnsupportedDType(ctx, dt);
  return DispatchAll(ctx, dt, [&]<typename T>() -> decltype(f.template operator()<float>()) {
    if constexpr (std::is_same_v<T, bool>) {
      return UnsupportedDType(ctx, DataType::Bool());
    } else {
      return f.template operator()<T>();
    }
  });
}

// float16, float32, float64.
template <typename F>
auto DispatchFloat(const KernelContext& ctx, DataType dt, F&& f)
    -> decltype(f.template operator()<float>()) {
  if (dt.lanes == 1) {
    CARVE_DISPATCH_CASE_(dt == DataType::Float(32), float);
    CARVE_DISPATCH_CASE_(dt == DataType::Float(16), Half);
    CARVE_DISPATCH_CASE_(dt == DataType::Float(64), double);
  }
  return UnsupportedDType(ctx, dt);
}

// The signed and unsigned integer dtypes (not bool).
template <typename F>
auto DispatchInteger(const KernelContext& ctx, DataType dt, F&& f)
    -> decltype(f.template operator()<int32_t>()) {
  if (dt.lanes == 1) {
    CARVE_DISPATCH_CASE_(dt == DataType::Int(8), int8_t);
    CARVE_DISPATCH_CASE_(dt == DataType::Int(16), int16_t);
    CARVE_DISPATCH_CASE_(dt == DataType::Int(32), int32_t);
    CARVE_DISPATCH_CASE_(dt == DataType::Int(64), int64_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(8), uint8_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(16), uint16_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(32), uint32_t);
    CARVE_DISPATCH_CASE_(dt == DataType::UInt(64), uint64_t);
  }
  return UnsupportedDType(ctx, dt);
}

#undef CARVE_DISPATCH_CASE_

// ---------------------------------------------------------------------------
// Conversions with defined results for every input.

// Converts `v` to T as a C cast would, except that float -> integer
// saturates to T's range and maps NaN to 0 (C++ leaves those undefined), and
// anything -> bool is `v != 0`.
template <typename T, typename V>
T ConvertTo(V v) {
  using S = std::remove_const_t<V>;
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (std::is_same_v<S, Half>) {
      return static_cast<float>(v) != 0.0f;
    } else {
      return v != S(0);
    }
  } else if constexpr (std::is_same_v<S, Half>) {
    return ConvertTo<T>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, Half>) {
    return Half(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<S>) {
    if (v != v) return T(0);
    if (v <= static_cast<S>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    // max() may round up when converted to S, so compare with >=.
    if (v >= static_cast<S>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// The single element of `a` (any dtype, one element) converted to T with
// ConvertTo's rules; an error when `a` has another element count.
template <typename T>
absl::StatusOr<T> ReadScalar(const KernelContext& ctx, const NDArray& a, std::string_view what);

// ---------------------------------------------------------------------------
// Shapes.

// Row-major strides (in elements) of `shape`.
std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape);
// Product of shape[begin, end).
int64_t ShapeProduct(std::span<const int64_t> shape, size_t begin, size_t end);
// "(2, 3)" for messages.
std::string ShapeString(std::span<const int64_t> shape);

// ---------------------------------------------------------------------------
// Template definitions.

template <typename T>
absl::StatusOr<T> ReadScalar(const KernelContext& ctx, const NDArray& a, std::string_view what) {
  if (a.num_elements() != 1) {
    return KernelError(ctx, "{} must hold one element, got shape {}", what, ShapeString(a.shape()));
  }
  T out{};
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, a.dtype(), [&]<typename S>() {
    out = ConvertTo<T>(a.data<S>()[0]);
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace carve
