// Latency of repeated calls, as trtexec and onnxruntime_perf_test report it:
// the first call on its own (it builds what later calls reuse: oneDNN
// primitives, packed weights, the backends' graphs), then K untimed warm-up
// calls, then N timed calls summarised by their minimum, median and 90th
// percentile. What `carve run --repeat` and `--compare --repeat` print.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace carve {

// Microseconds on the monotonic clock.
double NowMicros();

struct RepeatOptions {
  int repeat = 0;  // timed calls after the first; 0 = time the first call only
  int warmup = 0;  // untimed calls between the first and the timed ones
};

struct CallTiming {
  double first_us = 0;
  int warmup = 0;
  std::vector<double> repeat_us;  // one per timed call, in call order
};

struct LatencySummary {
  double min_us = 0, median_us = 0, p90_us = 0;
};

// min, median (mean of the two middle values for an even count) and p90
// (nearest rank: the ceil(0.9 n)-th smallest) of `us`; zeros when empty.
LatencySummary Summarize(std::span<const double> us);

// Calls `call` 1 + warmup + repeat times, timing the first and the repeated
// ones; stops at the first error.
absl::Status TimeCalls(const RepeatOptions& options, const std::function<absl::Status()>& call,
                       CallTiming& timing);

// "<prefix>first_call_us: F\n" and, when calls were repeated,
// "<prefix>latency_us: min=A median=B p90=C (N calls after K warm-up)\n".
std::string FormatCallTiming(std::string_view prefix, const CallTiming& timing);

}  // namespace carve
