#include "support/heap_prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace carve {

HeapPrefaulter::HeapPrefaulter(size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (bytes == 0) return;
  void* block = std::malloc(bytes);
  if (block == nullptr) return;
  // Only the address range is kept: the block goes back to malloc at once
  // and stays in the heap (KeepFreedMemoryForReuse), where the next
  // allocations come from.
  const auto address = reinterpret_cast<uintptr_t>(block);
  std::free(block);
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (address + page - 1) & ~(page - 1);
  uintptr_t end = (address + bytes) & ~(page - 1);
  if (end <= begin) return;
  thread_ = std::thread([this, begin, end] {
    // Small steps in address order: the main thread allocates upwards from
    // `begin` and must find the lowest pages mapped first.
    constexpr uintptr_t kStep = 256 * 1024;
    for (uintptr_t at = begin; at < end && !stop_.load(std::memory_order_relaxed); at += kStep) {
      size_t len = static_cast<size_t>(std::min(kStep, end - at));
      if (madvise(reinterpret_cast<void*>(at), len, MADV_POPULATE_WRITE) != 0) return;
    }
  });
#else
  (void)bytes;
#endif
}

size_t HeapPrefaulter::Clamp(uint64_t input_bytes, size_t heap_per_input_byte) {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  uint64_t limit = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * page / 4 : 0;
  uint64_t want = input_bytes * heap_per_input_byte;
  return static_cast<size_t>(std::min(want, limit));
}

void HeapPrefaulter::Finish() {
  if (thread_.joinable()) thread_.join();
}

HeapPrefaulter::~HeapPrefaulter() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

}  // namespace carve
