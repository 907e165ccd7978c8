// Minor page faults of this process so far: the memory it touched for the
// first time (`carve opt --pass-timing`, the print benchmarks). On a large
// graph the kernel's zero-filling of fresh pages is a visible part of a
// pass's time.
#pragma once

#include <sys/resource.h>

namespace carve {

inline long MinorPageFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

}  // namespace carve
