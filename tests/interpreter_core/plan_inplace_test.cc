// In-place steps of execution plans (interpreter/plan.h,
// interpreter/kernel_inplace.h): an element-wise step overwrites its first
// operand only when no one else can see that tensor (a parameter, a value
// read twice, a view of a live tensor are left alone), and results are the
// tree walker's bits.
#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/plan.h"
#include "passes/infer/infer_type.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<Module> Typed(std::string text) {
  auto mod = ParseModule("inplace.relay", "#[version = \"0.0.5\"]\n" + std::move(text));
  if (!mod.ok()) return mod.status();
  if (absl::Status s = InferType(*mod); !s.ok()) return s;
  return mod;
}

// Runs @main twice with plans and once with the tree walker on `args`;
// expects the same bits every time, the arguments unchanged, and returns
// the planned result and the plan's in-place step count.
struct Ran {
  Value out;
  size_t inplace_steps = 0;
};
Ran RunBoth(const Module& mod, const std::vector<Value>& args) {
  std::vector<NDArray> before;
  for (const Value& a : args) before.push_back(a.tensor().Copy());
  Interpreter planned(mod);
  auto first = planned.Run("main", args);
  auto second = planned.Run("main", args);
  InterpreterOptions walk;
  walk.use_plans = false;
  Interpreter walker(mod, walk);
  auto walked = walker.Run("main", args);
  Ran ran;
  EXPECT_TRUE(first.ok() && second.ok() && walked.ok());
  if (!first.ok() || !second.ok() || !walked.ok()) return ran;
  const Plan* plan = planned.PlanFor(mod.Lookup("main"));
  EXPECT_NE(plan, nullptr);
  if (plan != nullptr) ran.inplace_steps = plan->num_inplace_steps();
  auto flat = [](const Value& v) {
    std::vector<NDArray> t;
    if (v.is_tensor()) t.push_back(v.tensor());
    if (v.is_tuple()) {
      for (const Value& f : v.fields()) t.push_back(f.tensor());
    }
    return t;
  };
  auto a = flat(*first), b = flat(*second), w = flat(*walked);
  EXPECT_EQ(a.size(), w.size());
  for (size_t i = 0; i < a.size() && i < w.size() && i < b.size(); ++i) {
    EXPECT_TRUE(a[i].BitwiseEqual(w[i])) << "output " << i;
    EXPECT_TRUE(b[i].BitwiseEqual(w[i])) << "output " << i << ", second run";
  }
  for (size_t i = 0; i < args.size(); ++i) {
    EXPECT_TRUE(args[i].tensor().BitwiseEqual(before[i])) << "argument " << i << " was written";
  }
  ran.out = *first;
  return ran;
}

TEST(PlanInPlace, ElementwiseTailRunsInTheProducersBuffer) {
  auto mod = Typed(R"(
def @main(%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32]) {
  %0 = multiply(%x, %x);
  %1 = nn.bias_add(%0, %b);
  %2 = add(%1, %b);
  %3 = nn.relu(%2);
  clip(%3, a_min=0f, a_max=20f)
}
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({2, 3}, {1, -2, 3, -4, 0.5f, 6}),
                           Tensor<float>({3}, {-3, 1, 2})});
  EXPECT_EQ(ran.inplace_steps, 4u);  // bias_add, add, relu, clip
  // x^2 + 2b with b = (-3, 1, 2), then relu and clip at 20.
  EXPECT_THAT(Values<float>(ran.out.tensor()), ElementsAre(0, 6, 13, 10, 2.25f, 20));
}

TEST(PlanInPlace, ParametersAreNeverOverwritten) {
  auto mod = Typed(R"(
def @main(%x: Tensor[(4), float32]) { nn.relu(%x) }
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({4}, {-1, 2, -3, 4})});
  EXPECT_EQ(ran.inplace_steps, 0u);
  EXPECT_THAT(Values<float>(ran.out.tensor()), ElementsAre(0, 2, 0, 4));
}

TEST(PlanInPlace, ValuesReadTwiceKeepTheirContents) {
  auto mod = Typed(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = negative(%x);
  (%0, nn.relu(%0))
}
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({4}, {-1, 2, -3, 4})});
  EXPECT_EQ(ran.inplace_steps, 0u);
  ASSERT_TRUE(ran.out.is_tuple());
  EXPECT_THAT(Values<float>(ran.out.fields()[0].tensor()), ElementsAre(1, -2, 3, -4));
  EXPECT_THAT(Values<float>(ran.out.fields()[1].tensor()), ElementsAre(1, 0, 3, 0));
}

TEST(PlanInPlace, AViewOfALiveTensorIsNotFresh) {
  // relu's operand is read once, but reshape's result shares %0's storage
  // and %0 is also returned: relu must not write over it.
  auto mod = Typed(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = negative(%x);
  %1 = reshape(%0, newshape=[4]);
  (%0, nn.relu(%1))
}
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({2, 2}, {-1, 2, -3, 4})});
  EXPECT_EQ(ran.inplace_steps, 1u);  // a candidate, refused at run time
  ASSERT_TRUE(ran.out.is_tuple());
  EXPECT_THAT(Values<float>(ran.out.fields()[0].tensor()), ElementsAre(1, -2, 3, -4));
  EXPECT_THAT(Values<float>(ran.out.fields()[1].tensor()), ElementsAre(1, 0, 3, 0));
}

TEST(PlanInPlace, AFieldOfADeadTupleIsFresh) {
  auto mod = Typed(R"(
def @main(%x: Tensor[(1, 2, 2), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32],
          %m: Tensor[(2), float32], %v: Tensor[(2), float32]) {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v);
  %1 = %0.0;
  nn.relu(%1)
}
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({1, 2, 2}, {-1, 2, -3, 4}), Tensor<float>({2}, {1, 2}),
                           Tensor<float>({2}, {0, 1}), Tensor<float>({2}, {0, 0}),
                           Tensor<float>({2}, {1, 1})});
  EXPECT_EQ(ran.inplace_steps, 1u);
  EXPECT_EQ(ran.out.tensor().num_elements(), 4);
}

TEST(PlanInPlace, BroadcastingIntoALargerResultUsesTheOrdinaryKernel) {
  // add's result (2, 3) is larger than its first operand (3): no in place.
  auto mod = Typed(R"(
def @main(%x: Tensor[(3), float32], %y: Tensor[(2, 3), float32]) {
  add(negative(%x), %y)
}
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({3}, {1, 2, 3}), Tensor<float>({2, 3}, {1, 1, 1, 2, 2, 2})});
  EXPECT_EQ(ran.inplace_steps, 1u);
  EXPECT_THAT(Values<float>(ran.out.tensor()), ElementsAre(0, -1, -2, 1, 0, -1));
}

TEST(PlanInPlace, TheLastOfSeveralReadersRunsInPlace) {
  // %0 is read by sum and then, last, by multiply (x * f(pool(x)), the
  // squeeze-and-excitation shape): multiply may overwrite it.
  auto mod = Typed(R"(
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = negative(%x);
  %1 = sum(%0, axis=[1], keepdims=True);
  multiply(%0, %1)
}
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({2, 3}, {1, 2, 3, -1, 0, 4})});
  EXPECT_EQ(ran.inplace_steps, 1u);
  EXPECT_THAT(Values<float>(ran.out.tensor()), ElementsAre(6, 12, 18, -3, 0, 12));
}

TEST(PlanInPlace, AnEarlierReadersViewOrTupleKeepsTheTensor) {
  // relu reads %0 last and once, but reshape's view and the tuple made by
  // earlier steps still show %0: relu must allocate its own result.
  auto mod = Typed(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = negative(%x);
  %1 = reshape(%0, newshape=[4]);
  %2 = negative(%x);
  %3 = (%2, %x);
  %4 = %3.0;
  %5 = nn.relu(%0);
  %6 = nn.relu(%2);
  (%1, %4, %5, %6)
}
)");
  CARVE_ASSERT_OK(mod);
  Ran ran = RunBoth(*mod, {Tensor<float>({2, 2}, {-1, 2, -3, 4})});
  EXPECT_EQ(ran.inplace_steps, 2u);  // candidates, both refused at run time
  ASSERT_TRUE(ran.out.is_tuple());
  EXPECT_THAT(Values<float>(ran.out.fields()[0].tensor()), ElementsAre(1, -2, 3, -4));
  EXPECT_THAT(Values<float>(ran.out.fields()[1].tensor()), ElementsAre(1, -2, 3, -4));
  EXPECT_THAT(Values<float>(ran.out.fields()[2].tensor()), ElementsAre(1, 0, 3, 0));
  EXPECT_THAT(Values<float>(ran.out.fields()[3].tensor()), ElementsAre(1, 0, 3, 0));
}

}  // namespace
}  // namespace carve::testing
