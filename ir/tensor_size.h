// Sizes of tensor types, checked: a shape whose element count (or byte
// count) leaves int64 describes no tensor that can exist, and computing it
// unchecked is undefined behaviour that has printed empty tensors. The
// parser and InferType reject such types; the interpreter checks byte
// counts against its tensor limit (ir/tensor_limit.h) before
// allocating.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ir/type.h"

namespace carve {

// The element count of a static shape; nullopt when it overflows int64 or a
// dim is `?`.
std::optional<int64_t> CheckedElementCount(std::span<const Dim> shape);
// The stored bytes of a static tensor type; nullopt on overflow or `?`.
std::optional<int64_t> CheckedByteSize(const TensorType& t);
std::optional<int64_t> CheckedByteSize(DataType dtype, std::span<const int64_t> shape);

// The first tensor type in `t` (a tensor, or nested in tuple and function
// types) whose static dims multiply past int64 (its `?` dims ignored), or
// nullptr. (Byte counts are checked against the run's tensor limit.)
const TensorType* FindOversizedTensor(const Type* t);

// "Tensor[(...), float32] is too large: its element count overflows 64 bits".
std::string OversizedMessage(const TensorType& t);

}  // namespace carve
