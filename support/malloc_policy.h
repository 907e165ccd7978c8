// The batch tool's malloc policy, shared by `carve` (tools/carve_main.cc)
// and the benchmarks that must see the same memory behaviour
// (bench/patterns_bench.cc).
//
// carve's passes build and drop whole-graph tables (memo maps, node arrays)
// one after another. glibc serves every block above its mmap threshold (at
// most 32 MB) with a fresh mapping and unmaps it on free, so on a 1M-op
// graph each pass faulted its tables in again, zero-filled: 1.7 M minor
// faults and 7 s of system time for `carve opt` on the BYOC pipeline (bench:
// docs/performance.md). Keeping large blocks on the heap and never trimming
// it lets the next pass reuse the memory (0.56 M faults, 2 s). Peak RSS
// grows by about 15%; the process is short-lived.
#pragma once

#include <malloc.h>

#include <limits>

namespace carve {

inline void KeepFreedMemoryForReuse() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

}  // namespace carve
