// Faults the heap's next pages in on a second thread, ahead of the main one.
//
// On this kind of VM a minor page fault costs 1.5-2.4 us, and a BYOC
// pipeline over a 100k-op graph first-touches ~120 MB of heap: ~30k faults,
// a quarter of its wall time, all on the one thread that does the work. The
// heap grows at its top in address order, so the pages the run will touch
// next are known in advance. HeapPrefaulter extends the heap by an estimate
// of what the run needs, returns the block to malloc at once (the policy of
// malloc_policy.h keeps it in the heap), and lets a second thread ask the
// kernel to map it (MADV_POPULATE_WRITE: populate without touching the
// contents, so it is safe while the main thread already uses the memory).
// The main thread then finds its pages mapped; where it overtakes the
// prefaulter it simply faults them itself. Requires KeepFreedMemoryForReuse.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace carve {

class HeapPrefaulter {
 public:
  // Starts prefaulting `bytes` of heap (nothing when 0 or unsupported).
  explicit HeapPrefaulter(size_t bytes);
  // input_bytes * heap_per_input_byte, at most a quarter of the machine's
  // memory (an estimate too large costs resident memory, not time).
  static size_t Clamp(uint64_t input_bytes, size_t heap_per_input_byte);
  // Stops the thread (between two steps) and joins it.
  ~HeapPrefaulter();
  // Waits until every page is mapped (for tests and measurements).
  void Finish();
  HeapPrefaulter(const HeapPrefaulter&) = delete;
  HeapPrefaulter& operator=(const HeapPrefaulter&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace carve
