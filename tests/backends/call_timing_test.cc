// Repeated-call timing (backends/runtime/call_timing.h) and the thread count
// `carve run --threads` hands every backend library.
#include "backends/runtime/call_timing.h"

#include <vector>

#include "backends/runtime/backend_runtime.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// libgomp's, which oneDNN runs its primitives on (backends/CMakeLists.txt).
extern "C" int omp_get_max_threads();

namespace carve {
namespace {

TEST(CallTiming, SummarizeOddCount) {
  std::vector<double> us = {30, 10, 20, 50, 40};
  LatencySummary s = Summarize(us);
  EXPECT_EQ(s.min_us, 10);
  EXPECT_EQ(s.median_us, 30);
  EXPECT_EQ(s.p90_us, 50);  // rank ceil(4.5) = 5
}

TEST(CallTiming, SummarizeEvenCountAndNearestRank) {
  std::vector<double> us;
  for (int i = 20; i >= 1; --i) us.push_back(i);
  LatencySummary s = Summarize(us);
  EXPECT_EQ(s.min_us, 1);
  EXPECT_EQ(s.median_us, 10.5);
  EXPECT_EQ(s.p90_us, 18);  // rank ceil(18) = 18
  std::vector<double> one = {7};
  EXPECT_EQ(Summarize(one).p90_us, 7);
  EXPECT_EQ(Summarize({}).median_us, 0);
}

TEST(CallTiming, TimesFirstWarmupAndRepeats) {
  int calls = 0;
  CallTiming t;
  ASSERT_TRUE(TimeCalls({.repeat = 4, .warmup = 2}, [&] { ++calls; return absl::OkStatus(); }, t)
                  .ok());
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(t.repeat_us.size(), 4u);
  EXPECT_EQ(t.warmup, 2);
  std::string text = FormatCallTiming("x_", t);
  EXPECT_THAT(text, testing::StartsWith("x_first_call_us: "));
  EXPECT_THAT(text, testing::HasSubstr("(4 calls after 2 warm-up)"));
}

TEST(CallTiming, StopsAtTheFirstError) {
  int calls = 0;
  CallTiming t;
  absl::Status s = TimeCalls({.repeat = 5}, [&] {
    return ++calls == 3 ? absl::InvalidArgumentError("third") : absl::OkStatus();
  }, t);
  EXPECT_EQ(s.message(), "third");
  EXPECT_EQ(calls, 3);
}

TEST(CallTiming, FirstCallOnlyPrintsNoLatency) {
  CallTiming t;
  ASSERT_TRUE(TimeCalls({}, [] { return absl::OkStatus(); }, t).ok());
  EXPECT_THAT(FormatCallTiming("", t), testing::Not(testing::HasSubstr("latency_us")));
}

// oneDNN (Debian's build: OpenMP) follows SetBackendThreads.
TEST(BackendThreads, SetOneDnnOpenMpThreads) {
  SetBackendThreads(3);
  EXPECT_EQ(omp_get_max_threads(), 3);
  SetBackendThreads(1);
  EXPECT_EQ(omp_get_max_threads(), 1);
}

}  // namespace
}  // namespace carve
