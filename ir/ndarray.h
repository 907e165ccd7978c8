// A dense, row-major, 64-byte aligned tensor of any supported dtype. Constant
// nodes hold one; the interpreter computes on them. Copies share the buffer
// (like a numpy view); Reshape is free.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace carve {

// IEEE half precision <-> float.
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);

class NDArray {
 public:
  NDArray() = default;
  // Zero-filled storage for `shape`.
  static NDArray Empty(DataType dtype, std::span<const int64_t> shape);
  static NDArray Empty(DataType dtype, std::initializer_list<int64_t> shape) {
    return Empty(dtype, std::span<const int64_t>(shape.begin(), shape.size()));
  }
  // Storage for `shape` whose contents are unspecified until written (the
  // bytes a previous allocation left); same alignment and ownership as
  // Empty. Only for a producer that writes every element before anything
  // reads it (a convolution, a GEMM): skipping the zero fill of an output
  // that is overwritten anyway saves a pass over every result.
  static NDArray Uninitialized(DataType dtype, std::span<const int64_t> shape);
  // A rank-0 tensor holding `value` converted to `dtype`.
  static NDArray Scalar(DataType dtype, double value);

  bool defined() const { return buffer_ != nullptr; }
  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t num_elements() const;
  size_t nbytes() const { return size_t(num_elements()) * dtype_.bytes(); }

  void* raw_data() { return buffer_.get() + offset_; }
  const void* raw_data() const { return buffer_.get() + offset_; }
  template <typename T>
  T* data() { return reinterpret_cast<T*>(raw_data()); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(raw_data()); }

  // Element `i` (flat index) converted to double / written from double.
  double GetAsDouble(int64_t i) const;
  void SetFromDouble(int64_t i, double v);

  // A view with another shape of the same element count (shares storage).
  NDArray Reshape(std::span<const int64_t> shape) const;
  // A view of `shape` elements of `dtype` starting `byte_offset` bytes into
  // this tensor's data (shares storage): how one allocation is handed out
  // as several adjacent tensors (a JSON runtime's outputs), and how a
  // concatenation of adjacent tensors is made without a copy. The view may
  // reach past this tensor's own bytes, not past its allocation: an
  // undefined NDArray when it would (or when this one is undefined).
  NDArray ViewAt(size_t byte_offset, DataType dtype, std::span<const int64_t> shape) const;
  // True when `next` lives in the same allocation and its data starts on
  // the byte after this tensor's last one, so the two read as one run of
  // bytes (and ViewAt(0, ...) over both sizes views their concatenation).
  bool IsFollowedBy(const NDArray& next) const;
  // A deep copy.
  NDArray Copy() const;
  // Byte-wise equality of dtype, shape and contents.
  bool BitwiseEqual(const NDArray& other) const;

 private:
  // Empty and Uninitialized: 64-byte aligned storage, zeroed when `zero`.
  static NDArray Allocate(DataType dtype, std::span<const int64_t> shape,
                          bool zero);

  DataType dtype_;
  std::vector<int64_t> shape_;
  std::shared_ptr<std::byte[]> buffer_;
  size_t offset_ = 0;            // of raw_data() in buffer_, in bytes
  size_t storage_bytes_ = 0;     // usable bytes of buffer_ (for ViewAt's check)
};

}  // namespace carve
