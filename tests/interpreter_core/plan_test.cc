// Execution plans (interpreter/plan.h) on small modules: which bodies are
// planned, that plans compute what the tree walker computes (tuples,
// projections, lets, shared nodes, calls of globals and composite
// literals), that observers still see composite calls, and that a failing
// kernel reports the same span. Bit equality on real models is
// tests/interpreter_plan/plan_differential_test.cc.
#include "interpreter/plan.h"

#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "passes/infer/infer_type.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<Module> Typed(std::string text) {
  auto mod = ParseModule("plan.relay", "#[version = \"0.0.5\"]\n" + std::move(text));
  if (!mod.ok()) return mod.status();
  if (absl::Status s = InferType(*mod); !s.ok()) return s;
  return mod;
}

constexpr char kDataflow[] = R"(
def @double(%a: Tensor[(3), float32]) { add(%a, %a) }
def @main(%x: Tensor[(3), float32]) {
  %0 = negative(%x);
  %1 = (%0, multiply(%0, %0));
  let %y = @double(%1.1);
  %2 = fn (%p: Tensor[(3), float32], Composite="demo.relu") { nn.relu(%p) };
  subtract(%2(%y), %1.0)
}
)";

TEST(Plan, DataflowBodiesArePlannedAndAgreeWithTheTreeWalker) {
  auto mod = Typed(kDataflow);
  CARVE_ASSERT_OK(mod);
  const std::vector<Value> args = {Tensor<float>({3}, {1, -2, 0.5})};
  Interpreter planned(*mod);
  const Plan* plan = planned.PlanFor(mod->Lookup("main"));
  ASSERT_NE(plan, nullptr);
  // negative, multiply, subtract; the tuple, two projections; two calls.
  EXPECT_EQ(plan->num_kernel_steps(), 3u);
  EXPECT_EQ(plan->num_steps(), 8u);
  auto out = planned.Run("main", args);
  CARVE_ASSERT_OK(out);
  // -x = (-1, 2, -0.5); relu(2 * x^2) - (-x) = (2 + 1, 8 - 2, 0.5 + 0.5).
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(3, 6, 1));
  InterpreterOptions walk;
  walk.use_plans = false;
  Interpreter walker(*mod, walk);
  EXPECT_EQ(walker.PlanFor(mod->Lookup("main")), nullptr);
  auto walked = walker.Run("main", args);
  CARVE_ASSERT_OK(walked);
  EXPECT_TRUE(walked->tensor().BitwiseEqual(out->tensor()));
  EXPECT_EQ(planned.stats().kernel_calls, walker.stats().kernel_calls);
  EXPECT_EQ(planned.stats().function_calls, walker.stats().function_calls);
}

TEST(Plan, ObserversSeeCompositeCallsInsidePlans) {
  auto mod = Typed(kDataflow);
  CARVE_ASSERT_OK(mod);
  std::vector<std::string> seen;
  InterpreterOptions opts;
  opts.observer = [&](const ExternalCallEvent& e) { seen.emplace_back(e.composite); };
  Interpreter interp(*mod, opts);
  CARVE_ASSERT_OK(interp.Run("main", std::vector<Value>{Tensor<float>({3}, {1, 2, 3})}));
  EXPECT_THAT(seen, ElementsAre("demo.relu"));
}

TEST(Plan, ControlFlowIsLeftToTheTreeWalker) {
  auto mod = Typed(R"(
def @main(%c: bool, %x: Tensor[(2), float32]) {
  if (%c) { negative(%x) } else { %x }
}
)");
  CARVE_ASSERT_OK(mod);
  Interpreter interp(*mod);
  EXPECT_EQ(interp.PlanFor(mod->Lookup("main")), nullptr);
  NDArray c = NDArray::Scalar(DataType::Bool(), 1);
  auto out = interp.Run("main", std::vector<Value>{c, Tensor<float>({2}, {1, -2})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(out->tensor()), ElementsAre(-1, 2));
}

TEST(Plan, AFailingKernelReportsTheSameErrorBothWays) {
  // take with mode="fast" on an out-of-range index fails in the kernel.
  auto mod = Typed(R"(
def @main(%x: Tensor[(3), float32], %i: Tensor[(1), int32]) {
  %0 = negative(%x);
  take(%0, %i, axis=0, mode="fast")
}
)");
  CARVE_ASSERT_OK(mod);
  const std::vector<Value> args = {Tensor<float>({3}, {1, 2, 3}), Tensor<int32_t>({1}, {7})};
  Interpreter planned(*mod);
  InterpreterOptions walk;
  walk.use_plans = false;
  Interpreter walker(*mod, walk);
  auto a = planned.Run("main", args);
  auto b = walker.Run("main", args);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status(), b.status());
  ASSERT_NE(planned.PlanFor(mod->Lookup("main")), nullptr);
}

}  // namespace
}  // namespace carve::testing
