// Index tensors read and written exactly. GetAsDouble rounds an int64
// above 2^53 to a neighbouring double, so an index far out of range could
// come back in range (2^53 + 1 read as 2^53): the index kernels (take,
// gather, gather_nd, scatter*, one_hot, sparse indices, ...) read through
// IndexElement instead.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/ndarray.h"

namespace carve {

// Element `i` of `t` as an int64: integers exactly (a uint64 above
// INT64_MAX saturates to INT64_MAX, which no extent reaches); floats
// truncated toward zero, saturating, with NaN as INT64_MIN, so that a
// value no int64 holds is out of every range rather than index 0.
inline int64_t IndexElement(const NDArray& t, int64_t i) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const DataType dt = t.dtype();
  if (dt.lanes == 1 && (dt.is_int() || dt.is_uint())) {
    const bool u = dt.is_uint();
    switch (dt.bits) {
      case 8:
        return u ? int64_t(t.data<uint8_t>()[i]) : int64_t(t.data<int8_t>()[i]);
      case 16:
        return u ? int64_t(t.data<uint16_t>()[i]) : int64_t(t.data<int16_t>()[i]);
      case 32:
        return u ? int64_t(t.data<uint32_t>()[i]) : int64_t(t.data<int32_t>()[i]);
      case 64:
        if (!u) return t.data<int64_t>()[i];
        return t.data<uint64_t>()[i] > uint64_t(kMax) ? kMax : int64_t(t.data<uint64_t>()[i]);
      default:
        break;
    }
  }
  const double v = t.GetAsDouble(i);
  if (std::isnan(v)) return kMin;
  if (v >= 9223372036854775808.0) return kMax;  // 2^63: the first double past kMax
  if (v < -9223372036854775808.0) return kMin;
  return int64_t(v);
}

// Writes `v` into element `i` of `t`, exactly when `t` is an int64 or
// uint64 tensor (SetFromDouble would round it above 2^53).
inline void SetIndexElement(NDArray& t, int64_t i, int64_t v) {
  const DataType dt = t.dtype();
  if (dt == DataType::Int(64)) {
    t.data<int64_t>()[i] = v;
  } else if (dt == DataType::UInt(64)) {
    t.data<uint64_t>()[i] = uint64_t(v);
  } else {
    t.SetFromDouble(i, double(v));
  }
}

}  // namespace carve
