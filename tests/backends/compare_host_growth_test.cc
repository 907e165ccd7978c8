// `run --compare` checks each offloaded function call against the reference
// kernels on the arguments it received. When all of them agree but an output
// of @main does not, the difference grew in host ops after them (a log of a
// sum that cancels turns one rounding step into 2e-4): the result says so,
// and the random-program test does not count it as a backend failure.
#include <map>
#include <string>

#include "backends/compare.h"
#include "backends/partition.h"
#include "backends_test_util.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using testing::ParseTyped;

TEST(CompareHostGrowth, EachOffloadedCallIsComparedOnItsOwnInputs) {
  Module mod = ParseTyped(
      "def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]) {\n"
      "  %0 = nn.relu(nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]));\n"
      "  %1 = cos(%0);\n"
      "  nn.relu(nn.conv2d(%1, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]))\n"
      "}\n");
  absl::StatusOr<std::vector<TargetSpecPtr>> backends = ResolveBackends("dnnl");
  ASSERT_TRUE(backends.ok());
  std::map<std::string, NDArray> inputs = {{"x", testing::RandomFloats(DataType::Float(32), {1, 4, 6, 6}, 1)},
                                           {"w", testing::RandomFloats(DataType::Float(32), {4, 4, 3, 3}, 2)}};
  absl::StatusOr<CompareReport> report = CompareWithBackends(mod, *backends, inputs);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->function_calls, 2u);
  EXPECT_EQ(report->function_calls_agreeing, 2u);
}

CompareReport FailedOutput(size_t calls, size_t agreeing) {
  CompareReport report;
  report.ok = false;
  report.offloaded = 1;
  report.function_calls = calls;
  report.function_calls_agreeing = agreeing;
  OutputComparison out;
  out.type = "Tensor[(4), float32]";
  out.error.within = false;
  report.outputs.push_back(out);
  return report;
}

TEST(CompareHostGrowth, OutputsFailingAfterAgreeingCallsGrewInHostOps) {
  CompareReport report = FailedOutput(2, 2);
  EXPECT_TRUE(GrewInHostOps(report));
  EXPECT_NE(RenderCompareResult(report, false).find("agree with the reference on their own inputs"),
            std::string::npos);
  EXPECT_NE(RenderCompareReport(report).find("note: each offloaded function call (2) agrees"),
            std::string::npos);
}

TEST(CompareHostGrowth, ADisagreeingCallIsABackendFailure) {
  CompareReport report = FailedOutput(2, 1);
  EXPECT_FALSE(GrewInHostOps(report));
  EXPECT_EQ(RenderCompareResult(report, false), "result: FAIL: beyond tolerance\n");
}

TEST(CompareHostGrowth, AFailingCompositeIsABackendFailure) {
  CompareReport report = FailedOutput(1, 1);
  CompositeComparison c;
  c.name = "dnnl.conv2d_relu";
  c.error.within = false;
  report.composites.push_back(c);
  EXPECT_FALSE(GrewInHostOps(report));
}

TEST(CompareHostGrowth, NoNoteWhenTheOutputsAgree) {
  CompareReport report = FailedOutput(2, 2);
  report.ok = true;
  report.outputs[0].error.within = true;
  EXPECT_FALSE(GrewInHostOps(report));
}

}  // namespace
}  // namespace carve
