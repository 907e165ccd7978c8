// A process-wide cancellation request: a SIGINT handler sets it (an atomic
// store is async-signal-safe), and long-running loops poll it and stop with
// absl::CancelledError: the pass manager before and after each pass, the
// rewrite driver and the pattern grouper in their node loops, ExprMutator
// walks (ir/visit.cc) and the evaluator between steps. Whoever starts
// cancellable work clears it first (the REPL before each command, the CLI
// before opt/partition/run), and discards what the cancelled work built.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>

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

// For per-node loops: reads the flag on the first call and then once every
// kInterval calls, so a loop over a million nodes pays a counter increment
// per node and stops within a few thousand nodes of a Ctrl-C.
class CancellationPoll {
 public:
  static constexpr uint32_t kInterval = 4096;
  bool Requested() { return (count_++ & (kInterval - 1)) == 0 && CancellationRequested(); }

 private:
  uint32_t count_ = 0;
};

// While alive, SIGINT requests cancellation instead of ending the process;
// the previous disposition is restored on destruction. Installed without
// SA_RESTART, so a blocking terminal read returns EINTR (the REPL's line
// editor relies on that to drop the line being typed).
class ScopedSigintCancellation {
 public:
  ScopedSigintCancellation();
  ~ScopedSigintCancellation();
  ScopedSigintCancellation(const ScopedSigintCancellation&) = delete;
  ScopedSigintCancellation& operator=(const ScopedSigintCancellation&) = delete;

 private:
  struct sigaction previous_ = {};
};

}  // namespace carve
