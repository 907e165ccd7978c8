// The partition report: offloaded / host ops with reasons, regions,
// boundary tensors, region breaks.
#include "passes/byoc/partition_report.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/byoc/annotate_target.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "passes/byoc/partition_graph.h"
#include "patterns/builders.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

std::string ReportFor(std::string_view text, const std::vector<TargetSpecPtr>& backends) {
  Module mod = ParseTyped(text);
  RunOk(MergeComposite(backends), mod);
  RunOk(AnnotateTarget(backends), mod);
  RunOk(MergeCompilerRegions(), mod);
  RunOk(PartitionGraph(), mod);
  return RenderPartitionReport(mod, backends);
}

TEST(PartitionReport, ReasonsRegionsAndBreaks) {
  auto spec = std::make_shared<TargetSpec>("rep");
  ASSERT_TRUE(spec->AddOp("nn.relu").ok());
  ASSERT_TRUE(spec->AddOp("nn.max_pool2d", [](const Call* call) {
                    return call->attrs()->GetString("layout") == "NHWC";
                  }, "layout == NHWC").ok());
  spec->AddComposite(CompositeRule{
      "conv_relu", IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), Wildcard())), nullptr, ""});
  TargetRegistry::Global().Register(spec);
  std::string report = ReportFor(R"(
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.max_pool2d(%1, pool_size=[2, 2]);
  %3 = tanh(%2);
  nn.relu(%3)
})",
                                 {spec});
  EXPECT_THAT(report, HasSubstr("backend rep: 3 of 5 ops offloaded (60.0%) in 2 regions\n"));
  EXPECT_THAT(report, HasSubstr("    nn.conv2d                         1\n"));
  EXPECT_THAT(report, HasSubstr("    nn.relu                           2\n"));
  EXPECT_THAT(report, HasSubstr("  composites:\n    rep.conv_relu"));
  EXPECT_THAT(report, HasSubstr("    nn.max_pool2d                     1  failed check: layout == NHWC (built-in check)\n"));
  EXPECT_THAT(report, HasSubstr("    tanh                              1  unsupported op\n"));
  EXPECT_THAT(report, HasSubstr("tvmgen_default_rep_main_0  2 ops  2 inputs  1 output\n"));
  EXPECT_THAT(report, HasSubstr("boundary tensors: 3 inputs, 2 outputs"));
  EXPECT_THAT(report, HasSubstr("region breaks: 2 host ops between offloaded regions "
                                "(nn.max_pool2d 1, tanh 1)"));
}

// With two backends, an op both take goes to the first; the second's report
// says so.
TEST(PartitionReport, ClaimedByAnEarlierBackend) {
  TargetSpecPtr first = RegisterTarget("first", {"nn.relu"});
  TargetSpecPtr second = RegisterTarget("second", {"nn.relu", "tanh"});
  std::string report = ReportFor(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  tanh(%0)
})",
                                 {first, second});
  EXPECT_THAT(report, HasSubstr("backend first: 1 of 2 ops offloaded (50.0%) in 1 region\n"));
  EXPECT_THAT(report, HasSubstr("backend second: 1 of 2 ops offloaded (50.0%) in 1 region\n"));
  // first does not know tanh; second would have taken the relu.
  EXPECT_THAT(report, HasSubstr("backend first: 1 of 2 ops offloaded (50.0%) in 1 region\n"
                                "  offloaded ops:\n"
                                "    nn.relu                           1\n"
                                "  not offloaded:\n"
                                "    tanh                              1  unsupported op\n"));
  EXPECT_THAT(report, HasSubstr("  not offloaded:\n"
                                "    nn.relu                           1  claimed by first\n"));
}

TEST(PartitionReport, SupportedOpsLeftOnTheHostSayWhy) {
  TargetSpecPtr first = RegisterTarget("first_only_relu", {"nn.relu"});
  TargetSpecPtr second = RegisterTarget("second_relu", {"nn.relu"});
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32]) {
  nn.relu(%x)
})");
  // Nothing partitioned: the report explains every op from each backend's view.
  std::string report = RenderPartitionReport(mod, {first, second});
  EXPECT_THAT(report, HasSubstr("backend first_only_relu: 0 of 1 ops offloaded (0.0%) in 0 regions"));
  EXPECT_THAT(report, HasSubstr("kept on the host: accepted by its single-op rule"));
  EXPECT_THAT(report, HasSubstr("claimed by first_only_relu"));
}

}  // namespace
}  // namespace carve::testing
