// TVM's PassContext for pipelines (passes/pass_gate.h): which members of a
// sequence run at an opt level, nested sequences, disabled pass names.
#include "passes/pass_gate.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The names of the passes `pass` runs, nested sequences flattened.
std::vector<std::string> Leaves(const Pass& pass) {
  std::vector<PassPtr> members = SequenceMembers(pass);
  if (members.empty()) return {pass.name()};
  std::vector<std::string> out;
  for (const PassPtr& m : members) {
    for (std::string& name : Leaves(*m)) out.push_back(std::move(name));
  }
  return out;
}

PassPtr Pipeline(std::string_view text) {
  absl::StatusOr<PassPtr> pass = ParsePipeline(text);
  EXPECT_TRUE(pass.ok()) << RenderStatus(pass.status());
  return *pass;
}

TEST(PassGate, MembersAboveTheLevelAreSkipped) {
  PassPtr seq = Pipeline("InferType,CanonicalizeOps,FoldConstant");  // levels 0, 3, 2
  EXPECT_THAT(Leaves(*GatePipeline(seq, PassGate{2, {}})), ElementsAre("InferType", "FoldConstant"));
  EXPECT_THAT(Leaves(*GatePipeline(seq, PassGate{3, {"FoldConstant"}})),
              ElementsAre("InferType", "CanonicalizeOps"));
}

TEST(PassGate, NestedSequencesAskTheSameContext) {
  // FoldScaleAxis is TVM's sequence Backward- and ForwardFoldScaleAxis (3),
  // FoldConstant (2); registered at level 0 as TVM's Sequential is.
  PassPtr seq = Pipeline("InferType,FoldScaleAxis");
  EXPECT_THAT(Leaves(*seq), ElementsAre("InferType", "BackwardFoldScaleAxis",
                                        "ForwardFoldScaleAxis", "FoldConstant"));
  EXPECT_THAT(Leaves(*GatePipeline(seq, PassGate{2, {}})), ElementsAre("InferType", "FoldConstant"));
  EXPECT_THAT(Leaves(*GatePipeline(seq, PassGate{3, {"ForwardFoldScaleAxis"}})),
              ElementsAre("InferType", "BackwardFoldScaleAxis", "FoldConstant"));
}

TEST(PassGate, DisabledNamesAreCarvesOrTvms) {
  absl::StatusOr<std::vector<std::string>> names =
      ParseDisabledPasses("AlterOpLayout,FoldConstant,,DynamicToStatic");
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("AlterOpLayout", "FoldConstant", "DynamicToStatic"));
  absl::StatusOr<std::vector<std::string>> typo = ParseDisabledPasses("AlterOpLayuot");
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(std::string(typo.status().message()),
              HasSubstr("'AlterOpLayuot' is neither a carve pass"));
  EXPECT_THAT(std::string(typo.status().message()), HasSubstr("did you mean 'AlterOpLayout'?"));
}

}  // namespace
}  // namespace carve::testing
