// Joins without a copy (interpreter/plan.h): a plan places the kernel steps
// that start a concatenate's input chains in adjacent slices of one block,
// so the concatenate is a view. The results are the tree walker's bit for
// bit whether the join ends up a view or, when an in-place step of a chain
// did not apply at run time, a copy; joins that cannot be views get no
// block.
#include <cmath>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/plan.h"
#include "passes/infer/infer_type.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

absl::StatusOr<Module> Typed(const std::string& text) {
  auto mod = ParseModule("join.relay", "#[version = \"0.0.5\"]\n" + text);
  if (!mod.ok()) return mod.status();
  if (absl::Status s = InferType(*mod); !s.ok()) return s;
  return mod;
}

// A fire module's expand half: two conv -> bias_add -> relu chains over %x
// (batch `n`; %0 the first convolution, %1 and %2 the chains' results),
// concatenated along channels (%3), then `tail`.
std::string Fire(int n, const std::string& tail) {
  return fmt::format(R"(
def @main(%x: Tensor[({0}, 4, 5, 5), float32], %w1: Tensor[(6, 4, 1, 1), float32],
          %b1: Tensor[(6), float32], %w3: Tensor[(3, 4, 3, 3), float32],
          %b3: Tensor[(3), float32]) {{
  %0 = nn.conv2d(%x, %w1, padding=[0, 0, 0, 0], channels=6, kernel_size=[1, 1]);
  %1 = nn.relu(nn.bias_add(%0, %b1));
  %2 = nn.relu(nn.bias_add(nn.conv2d(%x, %w3, padding=[1, 1, 1, 1], channels=3,
                                     kernel_size=[3, 3]), %b3));
  %3 = concatenate((%1, %2), axis=1);
  {1}
}}
)",
                     n, tail);
}

std::vector<Value> Args(int n) {
  auto ramp = [](int64_t count, float scale) {
    std::vector<float> v(count);
    for (int64_t i = 0; i < count; ++i) v[i] = std::sin(float(i) * scale);
    return v;
  };
  return {Tensor<float>({n, 4, 5, 5}, ramp(n * 100, 0.37f)),
          Tensor<float>({6, 4, 1, 1}, ramp(24, 0.91f)), Tensor<float>({6}, ramp(6, 1.3f)),
          Tensor<float>({3, 4, 3, 3}, ramp(108, 0.53f)), Tensor<float>({3}, ramp(3, 2.1f))};
}

// Runs `text` planned (twice: each run has its own block) and walked; the
// number of blocks the plan placed.
size_t RunBothWays(const std::string& text, int n) {
  auto mod = Typed(text);
  EXPECT_TRUE(mod.ok()) << mod.status().message();
  if (!mod.ok()) return 0;
  Interpreter planned(*mod);
  const Plan* plan = planned.PlanFor(mod->Lookup("main"));
  EXPECT_NE(plan, nullptr);
  if (plan == nullptr) return 0;
  InterpreterOptions walk;
  walk.use_plans = false;
  Interpreter walker(*mod, walk);
  auto walked = walker.Run("main", Args(n));
  EXPECT_TRUE(walked.ok()) << walked.status().message();
  for (int run = 0; run < 2 && walked.ok(); ++run) {
    auto got = planned.Run("main", Args(n));
    EXPECT_TRUE(got.ok()) << got.status().message();
    if (!got.ok()) break;
    const std::vector<NDArray> want = FlattenTensors(*walked), have = FlattenTensors(*got);
    EXPECT_EQ(want.size(), have.size());
    for (size_t i = 0; i < want.size() && i < have.size(); ++i) {
      EXPECT_TRUE(want[i].BitwiseEqual(have[i])) << "output " << i << ", run " << run;
    }
  }
  return plan->num_join_blocks();
}

TEST(PlanJoin, FireModuleConcatenateIsPlaced) {
  EXPECT_EQ(RunBothWays(Fire(1, "%3"), 1), 1u);
  // The join's result read by an element-wise op (never in place over the
  // view: it shares the block with the chains' results).
  EXPECT_EQ(RunBothWays(Fire(1, "add(%3, 1f)"), 1), 1u);
}

TEST(PlanJoin, JoinsThatCannotBeViewsGetNoBlock) {
  // Batch 2: the channels of one image are not contiguous with the next's.
  EXPECT_EQ(RunBothWays(Fire(2, "%3"), 2), 0u);
  // A field read elsewhere too, a parameter as a field.
  EXPECT_EQ(RunBothWays(Fire(1, "(%3, %1)"), 1), 0u);
  EXPECT_EQ(RunBothWays(Fire(1, "concatenate((%x, %1), axis=1)"), 1), 0u);
}

TEST(PlanJoin, AChainThatLeavesItsSliceIsCopied) {
  // %0 (the first chain's head, in its slice) is viewed first by a
  // reshape that outlives it, so bias_add, its last reader, cannot
  // overwrite it: the chain's result is a new tensor, the join copies, and
  // the view still shows the convolution.
  EXPECT_EQ(RunBothWays(Fire(1, "(reshape(%0, newshape=[6, 25]), %3)"), 1), 1u);
}

}  // namespace
}  // namespace carve::testing
