#include "ir/ndarray.h"

#include <cmath>
#include <cstdlib>
#include <utility>

namespace carve {

float HalfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ff;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) {  // inf / nan
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  }
  if (exp >= 0x1f) return sign | 0x7c00;  // overflow -> inf
  if (exp <= 0) {                          // subnormal or zero
    if (exp < -10) return sign;
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half_mant = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1))) ++half_mant;
    return sign | uint16_t(half_mant);
  }
  uint16_t out = sign | uint16_t(exp << 10) | uint16_t(mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (out & 1))) ++out;  // round to nearest even
  return out;
}

NDArray NDArray::Allocate(DataType dtype, std::span<const int64_t> shape,
                          bool zero) {
  NDArray a;
  a.dtype_ = dtype;
  a.shape_.assign(shape.begin(), shape.end());
  size_t bytes = std::max<size_t>(a.nbytes(), 1);
  size_t rounded = (bytes + 63) / 64 * 64;
  auto* mem = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
  if (zero) std::memset(mem, 0, rounded);
  a.buffer_ = std::shared_ptr<std::byte[]>(mem, [](std::byte* p) { std::free(p); });
  a.storage_bytes_ = rounded;
  return a;
}

NDArray NDArray::Empty(DataType dtype, std::span<const int64_t> shape) {
  return Allocate(dtype, shape, /*zero=*/true);
}

NDArray NDArray::Uninitialized(DataType dtype, std::span<const int64_t> shape) {
  return Allocate(dtype, shape, /*zero=*/false);
}

NDArray NDArray::Scalar(DataType dtype, double value) {
  NDArray a = Empty(dtype, std::span<const int64_t>{});
  a.SetFromDouble(0, value);
  return a;
}

int64_t NDArray::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

double NDArray::GetAsDouble(int64_t i) const {
  const void* p = raw_data();
  switch (dtype_.code) {
    case DataType::kFloat:
      if (dtype_.bits == 16) return HalfToFloat(static_cast<const uint16_t*>(p)[i]);
      if (dtype_.bits == 32) return static_cast<const float*>(p)[i];
      return static_cast<const double*>(p)[i];
    case DataType::kInt:
      switch (dtype_.bits) {
        case 8: return static_cast<const int8_t*>(p)[i];
        case 16: return static_cast<const int16_t*>(p)[i];
        case 32: return static_cast<const int32_t*>(p)[i];
        default: return double(static_cast<const int64_t*>(p)[i]);
      }
    case DataType::kUInt:
      switch (dtype_.bits) {
        case 1:
        case 8: return static_cast<const uint8_t*>(p)[i];
        case 16: return static_cast<const uint16_t*>(p)[i];
        case 32: return static_cast<const uint32_t*>(p)[i];
        default: return double(static_cast<const uint64_t*>(p)[i]);
      }
    default: return 0;
  }
}

void NDArray::SetFromDouble(int64_t i, double v) {
  void* p = raw_data();
  switch (dtype_.code) {
    case DataType::kFloat:
      if (dtype_.bits == 16) {
        static_cast<uint16_t*>(p)[i] = FloatToHalf(float(v));
      } else if (dtype_.bits == 32) {
        static_cast<float*>(p)[i] = float(v);
      } else {
        static_cast<double*>(p)[i] = v;
      }
      return;
    case DataType::kInt:
      switch (dtype_.bits) {
        case 8: static_cast<int8_t*>(p)[i] = int8_t(v); return;
        case 16: static_cast<int16_t*>(p)[i] = int16_t(v); return;
        case 32: static_cast<int32_t*>(p)[i] = int32_t(v); return;
        default: static_cast<int64_t*>(p)[i] = int64_t(v); return;
      }
    case DataType::kUInt:
      switch (dtype_.bits) {
        case 1: static_cast<uint8_t*>(p)[i] = v != 0; return;
        case 8: static_cast<uint8_t*>(p)[i] = uint8_t(v); return;
        case 16: static_cast<uint16_t*>(p)[i] = uint16_t(v); return;
        case 32: static_cast<uint32_t*>(p)[i] = uint32_t(v); return;
        default: static_cast<uint64_t*>(p)[i] = uint64_t(v); return;
      }
    default: return;
  }
}

NDArray NDArray::Reshape(std::span<const int64_t> shape) const {
  NDArray a = *this;
  a.shape_.assign(shape.begin(), shape.end());
  return a;
}

NDArray NDArray::ViewAt(size_t byte_offset, DataType dtype,
                        std::span<const int64_t> shape) const {
  NDArray a;
  a.dtype_ = dtype;
  a.shape_.assign(shape.begin(), shape.end());
  const size_t begin = offset_ + byte_offset;
  if (!defined() || begin < offset_ || begin > storage_bytes_ ||
      a.nbytes() > storage_bytes_ - begin) {
    return NDArray();
  }
  a.buffer_ = buffer_;
  a.offset_ = begin;
  a.storage_bytes_ = storage_bytes_;
  return a;
}

bool NDArray::IsFollowedBy(const NDArray& next) const {
  return defined() && buffer_ == next.buffer_ && offset_ + nbytes() == next.offset_;
}

NDArray NDArray::Copy() const {
  NDArray a = Empty(dtype_, shape_);
  std::memcpy(a.raw_data(), raw_data(), nbytes());
  return a;
}

bool NDArray::BitwiseEqual(const NDArray& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  return std::memcmp(raw_data(), other.raw_data(), nbytes()) == 0;
}

}  // namespace carve
