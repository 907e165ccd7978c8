// A process-wide cancellation request: the REPL's SIGINT handler sets it
// (an atomic store is async-signal-safe), and long-running loops (the pass
// manager between passes, the evaluator between steps) poll it and stop
// with absl::CancelledError. Whoever starts cancellable work clears it first.
#pragma once

#include <atomic>

#include "absl/status/status.h"

namespace carve {

// The flag itself (lock-free, so a signal handler may store to it).
inline std::atomic<bool>& CancellationFlag() {
  static std::atomic<bool> flag{false};
  return flag;
}

inline void RequestCancellation() { CancellationFlag().store(true, std::memory_order_relaxed); }
inline void ClearCancellation() { CancellationFlag().store(false, std::memory_order_relaxed); }
inline bool CancellationRequested() { return CancellationFlag().load(std::memory_order_relaxed); }

// CancelledError("interrupted") when cancellation was requested, else OK.
inline absl::Status CheckCancellation() {
  if (!CancellationRequested()) return absl::OkStatus();
  return absl::CancelledError("interrupted");
}

}  // namespace carve
