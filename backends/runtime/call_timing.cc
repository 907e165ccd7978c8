#include "backends/runtime/call_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "fmt/format.h"

namespace carve {

double NowMicros() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

LatencySummary Summarize(std::span<const double> us) {
  LatencySummary s;
  if (us.empty()) return s;
  std::vector<double> sorted(us.begin(), us.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.min_us = sorted.front();
  s.median_us = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const size_t rank = size_t(std::ceil(0.9 * double(n)));  // 1-based, >= 1
  s.p90_us = sorted[std::max<size_t>(rank, 1) - 1];
  return s;
}

absl::Status TimeCalls(const RepeatOptions& options, const std::function<absl::Status()>& call,
                       CallTiming& timing) {
  double start = NowMicros();
  if (absl::Status s = call(); !s.ok()) return s;
  timing.first_us = NowMicros() - start;
  timing.warmup = options.warmup;
  for (int i = 0; i < options.warmup; ++i) {
    if (absl::Status s = call(); !s.ok()) return s;
  }
  timing.repeat_us.clear();
  timing.repeat_us.reserve(size_t(options.repeat));
  for (int i = 0; i < options.repeat; ++i) {
    start = NowMicros();
    if (absl::Status s = call(); !s.ok()) return s;
    timing.repeat_us.push_back(NowMicros() - start);
  }
  return absl::OkStatus();
}

std::string FormatCallTiming(std::string_view prefix, const CallTiming& timing) {
  std::string out = fmt::format("{}first_call_us: {:.1f}\n", prefix, timing.first_us);
  if (timing.repeat_us.empty()) return out;
  const LatencySummary s = Summarize(timing.repeat_us);
  out += fmt::format("{}latency_us: min={:.1f} median={:.1f} p90={:.1f} ({} call{} after {} "
                     "warm-up)\n",
                     prefix, s.min_us, s.median_us, s.p90_us, timing.repeat_us.size(),
                     timing.repeat_us.size() == 1 ? "" : "s", timing.warmup);
  return out;
}

}  // namespace carve
