// Ctrl-C during a rewrite that never ends (support/cancellation.h): a flag
// set from another thread stops the fixpoint driver with CancelledError
// within a fraction of a second, and the input expression is untouched.
#include <chrono>
#include <thread>

#include "gtest/gtest.h"
#include "patterns/builders.h"
#include "patterns/rewrite.h"
#include "support/cancellation.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

class RewriteCancelTest : public PatternTest {};

// add(a, b) => add(b, a): every round changes the graph, so with no limits
// the driver would run for hours.
RewriteRule SwapAdd() {
  RewriteRule r;
  r.name = "swap_add";
  r.pattern = IsOp("add")(Wildcard(), Wildcard());
  r.rewrite = [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
    const auto* post = Cast<Call>(ctx.post());
    return ctx.builder().MakeCall(post->callee(), {post->args()[1], post->args()[0]},
                                  post->attrs());
  };
  return r;
}

TEST_F(RewriteCancelTest, AnotherThreadStopsANonConvergingRewrite) {
  // A chain of 20k adds: each round walks it, so the per-node poll matters.
  const Expr* e = V("x");
  for (int i = 0; i < 20000; ++i) e = Op("add", {e, V("y")});
  const std::string before = Print(e);
  RewriteOptions options;
  options.max_rounds = 1 << 30;
  options.max_rewrites = int64_t{1} << 60;
  ClearCancellation();
  using Clock = std::chrono::steady_clock;
  Clock::time_point requested;
  std::thread canceller([&requested] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    requested = Clock::now();
    RequestCancellation();
  });
  absl::StatusOr<RewriteResult> r = RewriteExpr({SwapAdd()}, e, mod_.arena(), options);
  Clock::time_point stopped = Clock::now();
  canceller.join();
  ClearCancellation();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsCancelled(r.status())) << r.status();
  // Within a fraction of a second (generous: the machine may be loaded).
  EXPECT_LT(std::chrono::duration<double>(stopped - requested).count(), 2.0);
  EXPECT_EQ(Print(e), before);
  // The flag is cleared: the same rewrite with a round limit runs again.
  options.max_rounds = 3;
  r = RewriteExpr({SwapAdd()}, e, mod_.arena(), options);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
}

}  // namespace
}  // namespace carve::testing
