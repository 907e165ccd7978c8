// Minor page faults the calling thread took so far: the memory it touched
// for the first time (`carve opt --pass-timing`, the print benchmarks). On a
// large graph the kernel's zero-filling of fresh pages is a visible part of
// a pass's time. Per thread, so that the faults support/heap_prefault.h's
// thread takes in advance are not counted against the pass that profits.
#pragma once

#include <sys/resource.h>

namespace carve {

inline long MinorPageFaults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

}  // namespace carve
