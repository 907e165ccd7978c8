#include "ir/tensor_size.h"

#include "fmt/format.h"

namespace carve {
namespace {

// The product of the static dims of `t`, skipping `?` dims; nullopt on
// overflow.
std::optional<int64_t> StaticElements(const TensorType& t) {
  int64_t n = 1;
  for (const Dim& d : t.shape()) {
    if (d.is_any()) continue;
    if (__builtin_mul_overflow(n, d.value, &n)) return std::nullopt;
  }
  return n;
}

}  // namespace

std::optional<int64_t> CheckedElementCount(std::span<const Dim> shape) {
  int64_t n = 1;
  for (const Dim& d : shape) {
    if (d.is_any() || d.value < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, d.value, &n)) return std::nullopt;
  }
  return n;
}

std::optional<int64_t> CheckedByteSize(const TensorType& t) {
  std::optional<int64_t> n = CheckedElementCount(t.shape());
  int64_t bytes;
  if (!n || __builtin_mul_overflow(*n, int64_t(t.dtype().bytes()), &bytes)) return std::nullopt;
  return bytes;
}

std::optional<int64_t> CheckedByteSize(DataType dtype, std::span<const int64_t> shape) {
  int64_t n = dtype.bytes();
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

const TensorType* FindOversizedTensor(const Type* t) {
  if (t == nullptr) return nullptr;
  if (const TensorType* tt = DynCast<TensorType>(t)) {
    return StaticElements(*tt) ? nullptr : tt;
  }
  if (const TupleType* tup = DynCast<TupleType>(t)) {
    for (const Type* f : tup->fields()) {
      if (const TensorType* found = FindOversizedTensor(f)) return found;
    }
    return nullptr;
  }
  if (const FuncType* fn = DynCast<FuncType>(t)) {
    for (const Type* p : fn->params()) {
      if (const TensorType* found = FindOversizedTensor(p)) return found;
    }
    return FindOversizedTensor(fn->ret());
  }
  return nullptr;
}

std::string OversizedMessage(const TensorType& t) {
  return fmt::format("{} is too large: its element count overflows 64 bits", TypeToString(&t));
}

}  // namespace carve
