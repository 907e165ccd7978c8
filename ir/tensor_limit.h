// The largest tensor a run (or FoldConstant) may create. Without a limit, a type such as
// `zeros(shape=[100000, 100000, 100000])` or a 100000x100000 input makes the
// allocator fail (or the kernel write through a null buffer) and the process
// dies; with it, the run stops with ResourceExhausted naming the tensor, its
// size and the limit, before allocating it.
//
// The limit is per tensor, in bytes. Its default is half the physical
// memory; CARVE_MAX_TENSOR_BYTES (bytes, or with a K/M/G/T suffix: powers
// of 1024) overrides it for the process, and `carve run --max-tensor-bytes`
// for one command (ScopedMaxTensorBytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/type.h"

namespace carve {

// The limit in force: the innermost ScopedMaxTensorBytes, else
// $CARVE_MAX_TENSOR_BYTES, else half the physical memory.
int64_t MaxTensorBytes();

// Sets the limit while it lives (the CLI's --max-tensor-bytes; commands run
// in one process one after another in golden tests, so it is scoped).
class ScopedMaxTensorBytes {
 public:
  explicit ScopedMaxTensorBytes(int64_t bytes);
  ~ScopedMaxTensorBytes();
  ScopedMaxTensorBytes(const ScopedMaxTensorBytes&) = delete;
  ScopedMaxTensorBytes& operator=(const ScopedMaxTensorBytes&) = delete;

 private:
  int64_t previous_;
};

// "4096", "64K", "512M", "8G", "1T" (powers of 1024): a positive byte count.
absl::StatusOr<int64_t> ParseByteSize(std::string_view text);

// OK when every tensor of `type` (a tensor or a tuple of them, with static
// dims) fits in `limit` bytes; else ResourceExhausted: "`what` Tensor[...]
// needs N bytes, over the tensor limit of M bytes (...)". `?` dims are not
// checked (the caller checks the concrete type at run time).
absl::Status CheckTensorFits(const Type* type, int64_t limit, std::string_view what);

}  // namespace carve
