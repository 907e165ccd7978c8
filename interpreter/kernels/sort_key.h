// Element order for the sorting and searching kernels (sort, argsort, topk,
// searchsorted, unique). GetAsDouble rounds an int64 or uint64 above 2^53
// to a neighbouring double, so 2^53 and 2^53 + 1 compared equal and sorted
// in index order, not by value: the keys below read integers exactly and
// floats as doubles, as before.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "interpreter/kernels/index_value.h"
#include "ir/ndarray.h"

namespace carve {

// Element `i` of an unsigned integer tensor, exactly.
inline uint64_t UnsignedElement(const NDArray& t, int64_t i) {
  switch (t.dtype().bits) {
    case 8:
      return t.data<uint8_t>()[i];
    case 16:
      return t.data<uint16_t>()[i];
    case 32:
      return t.data<uint32_t>()[i];
    default:
      return t.data<uint64_t>()[i];
  }
}

// Calls `f(key)` with `key(i)` the value of element `i` of `t`: an int64_t
// for the signed integer dtypes, a uint64_t for the unsigned ones (both
// exact), a double for every other dtype. Three key types, not one per
// dtype, so that a kernel comparing two tensors instantiates nine bodies.
template <typename F>
decltype(auto) WithSortKey(const NDArray& t, F&& f) {
  const DataType dt = t.dtype();
  const bool storage = dt.lanes == 1 && (dt.bits == 8 || dt.bits == 16 || dt.bits == 32 ||
                                         dt.bits == 64);
  if (storage && dt.is_uint()) {
    return f([&t](int64_t i) { return UnsignedElement(t, i); });
  }
  if (storage && dt.is_int()) {
    return f([&t](int64_t i) { return IndexElement(t, i); });
  }
  return f([&t](int64_t i) { return t.GetAsDouble(i); });
}

// a < b for two keys of WithSortKey: exact between integer keys of either
// signedness; through double when one is a float (as the kernels did for
// every dtype before).
template <typename A, typename B>
bool KeyLess(A a, B b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    return std::cmp_less(a, b);
  } else {
    return double(a) < double(b);
  }
}

// a <= b (not !(b < a): a NaN is neither).
template <typename A, typename B>
bool KeyLessEqual(A a, B b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    return std::cmp_less_equal(a, b);
  } else {
    return double(a) <= double(b);
  }
}

template <typename A, typename B>
bool KeyEqual(A a, B b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    return std::cmp_equal(a, b);
  } else {
    return double(a) == double(b);
  }
}

}  // namespace carve
