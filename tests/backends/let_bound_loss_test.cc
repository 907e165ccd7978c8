// FindLetBoundLoss (backends/partition.h): the ops TVM's flow loses when it
// leaves a let-bound region input free in @main, and the report's count.
#include <optional>

#include "backends/partition.h"
#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/byoc/partition_report.h"

namespace carve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using testing::ParseTyped;  // carve::testing

constexpr std::string_view kLets = R"(
def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  let %a = nn.relu(%x);
  let %b = tanh(%a);
  add(%b, %a)
})";

TEST(LetBoundLossTest, CountsTheOpsThatNeverRun) {
  Module mod = ParseTyped(kLets);
  std::vector<TargetSpecPtr> backends = *ResolveBackends("tensorrt");
  Module partitioned = *PartitionForBackends(mod, backends);
  std::optional<LetBoundLoss> loss = *FindLetBoundLoss(mod, partitioned, backends);
  ASSERT_TRUE(loss.has_value());
  EXPECT_THAT(loss->ops, ElementsAre(Pair("nn.relu", 1), Pair("tanh", 1)));
  EXPECT_EQ(loss->total(), 2);
  EXPECT_THAT(loss->free_inputs, ElementsAre("%tensorrt_1_i0 (the value of let %a)",
                                             "%tensorrt_3_i0 (the value of let %b)"));
  std::string report = RenderPartitionReport(partitioned, backends, &*loss);
  EXPECT_THAT(report, HasSubstr("backend tensorrt: 1 of 3 ops offloaded"));
  EXPECT_THAT(report, HasSubstr("lost to let-bound regions: 2 ops never run"));
  EXPECT_THAT(LetBoundLossWarning(*loss, "tensorrt"),
              HasSubstr("carve: warning: 2 ops never run after partitioning (nn.relu 1, tanh 1)"));
}

TEST(LetBoundLossTest, NoneWithoutFreeInputs) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %0 = nn.relu(%x);
  add(tanh(%0), %0)
})");
  std::vector<TargetSpecPtr> backends = *ResolveBackends("tensorrt");
  Module partitioned = *PartitionForBackends(mod, backends);
  EXPECT_FALSE(FindLetBoundLoss(mod, partitioned, backends)->has_value());
  // Without a loss the report is unchanged: every partition counts.
  EXPECT_THAT(RenderPartitionReport(partitioned, backends), HasSubstr("3 of 3 ops offloaded"));
}

TEST(LetBoundLossTest, FreeInputsTextKeepsThreeAndCountsTheRest) {
  LetBoundLoss loss;
  loss.free_inputs = {"%a", "%b", "%c", "%d", "%e"};
  EXPECT_EQ(loss.FreeInputsText(), "%a, %b, %c and 2 more");
  loss.free_inputs = {"%a"};
  EXPECT_EQ(loss.FreeInputsText(), "%a");
}

}  // namespace
}  // namespace carve
