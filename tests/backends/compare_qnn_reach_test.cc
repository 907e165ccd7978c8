// `run --compare` gives an integer output the quantized tolerance (one
// rounding step, as TVM's qnn tests) when a QNN op computes it, wherever
// that op sits: in @main, or in a global function @main calls, directly or
// through another. It used to look at @main's body only, so the same model
// compared exactly once its quantized part was a function of its own.
#include <map>
#include <string>

#include "backends/compare.h"
#include "backends/partition.h"
#include "backends_test_util.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using testing::ParseTyped;
using testing::RandomInts;

// The report's first output: quantized or not.
bool QuantizedOutput(const std::string& text) {
  Module mod = ParseTyped(text);
  absl::StatusOr<std::vector<TargetSpecPtr>> backends = ResolveBackends("dnnl");
  EXPECT_TRUE(backends.ok());
  std::map<std::string, NDArray> inputs = {
      {"x", RandomInts(DataType::Int(8), {2, 8}, 1, -5, 5)},
      {"w", RandomInts(DataType::Int(8), {4, 8}, 2, -5, 5)}};
  absl::StatusOr<CompareReport> report = CompareWithBackends(mod, *backends, inputs);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok() || report->outputs.empty()) return false;
  return report->outputs[0].error.quantized;
}

constexpr const char* kQuantize =
    "def @quantize(%a: Tensor[(2, 8), int8], %b: Tensor[(4, 8), int8]) {\n"
    "  %0 = qnn.dense(%a, %b, 0, 0, 0.5f, 0.5f, units=4, out_dtype=\"int32\");\n"
    "  qnn.requantize(%0, 0.25f, 0, 0.5f, 0, out_dtype=\"int8\")\n"
    "}\n";

TEST(CompareQnnReach, QnnOpInMain) {
  EXPECT_TRUE(QuantizedOutput(
      "def @main(%x: Tensor[(2, 8), int8], %w: Tensor[(4, 8), int8]) {\n"
      "  %0 = qnn.dense(%x, %w, 0, 0, 0.5f, 0.5f, units=4, out_dtype=\"int32\");\n"
      "  qnn.requantize(%0, 0.25f, 0, 0.5f, 0, out_dtype=\"int8\")\n"
      "}\n"));
}

TEST(CompareQnnReach, QnnOpInAFunctionMainCalls) {
  EXPECT_TRUE(QuantizedOutput(std::string(kQuantize) +
                              "def @main(%x: Tensor[(2, 8), int8], %w: Tensor[(4, 8), int8]) {\n"
                              "  @quantize(%x, %w)\n"
                              "}\n"));
}

TEST(CompareQnnReach, QnnOpTwoCallsAway) {
  EXPECT_TRUE(QuantizedOutput(std::string(kQuantize) +
                              "def @middle(%a: Tensor[(2, 8), int8], %b: Tensor[(4, 8), int8]) {\n"
                              "  @quantize(%a, %b)\n"
                              "}\n"
                              "def @main(%x: Tensor[(2, 8), int8], %w: Tensor[(4, 8), int8]) {\n"
                              "  @middle(%x, %w)\n"
                              "}\n"));
}

// A QNN op in a function @main never calls does not make @main's integers
// quantized: they compare exactly.
TEST(CompareQnnReach, UncalledFunctionDoesNotCount) {
  EXPECT_FALSE(QuantizedOutput(std::string(kQuantize) +
                               "def @main(%x: Tensor[(2, 8), int8], %w: Tensor[(4, 8), int8]) {\n"
                               "  add(%x, %x)\n"
                               "}\n"));
}

}  // namespace
}  // namespace carve
