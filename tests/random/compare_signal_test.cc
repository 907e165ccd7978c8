// The signal carve-random (testing/differential.cc) reads to tell a
// "difference grew in the host ops" failure of `run --compare` from a backend
// failure: Env::on_compare_report hands it the comparison's report (and so
// GrewInHostOps) instead of a sentence of the printed text.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/compare.h"
#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

constexpr const char* kTwoConvs =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 4, 3, 3), float32]) {\n"
    "  %0 = nn.relu(nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]));\n"
    "  %1 = cos(%0);\n"
    "  nn.relu(nn.conv2d(%1, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]))\n"
    "}\n";

struct Observed {
  int code = -1;
  int reports = 0;  // calls of on_compare_report
  bool ok = false, grew_in_host_ops = true;
  size_t offloaded = 0, function_calls = 0, function_calls_agreeing = 0;
  std::string out;
};

Observed RunObserved(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Env env = RealEnv();
  env.out = &out;
  env.err = &err;
  env.prefault_heap = nullptr;
  Observed seen;
  env.on_compare_report = [&](const CompareReport& report) {
    ++seen.reports;
    seen.ok = report.ok;
    seen.grew_in_host_ops = GrewInHostOps(report);
    seen.offloaded = report.offloaded;
    seen.function_calls = report.function_calls;
    seen.function_calls_agreeing = report.function_calls_agreeing;
  };
  seen.code = RunCarve(args, env);
  seen.out = out.str();
  return seen;
}

std::string WriteModule() {
  std::string path = (std::filesystem::path(::testing::TempDir()) / "two_convs.relay").string();
  std::ofstream(path) << kTwoConvs;
  return path;
}

TEST(CompareSignal, RunCompareHandsItsReportToTheEnv) {
  Observed seen = RunObserved({"run", WriteModule(), "--compare", "dnnl"});
  ASSERT_EQ(seen.code, 0) << seen.out;
  EXPECT_EQ(seen.reports, 1);
  EXPECT_TRUE(seen.ok);
  EXPECT_FALSE(seen.grew_in_host_ops);
  EXPECT_GE(seen.offloaded, 1u);
  EXPECT_EQ(seen.function_calls, 2u);
  EXPECT_EQ(seen.function_calls_agreeing, 2u);
  // The printed report is the same with or without an observer.
  std::ostringstream out, err;
  Env plain = RealEnv();
  plain.out = &out;
  plain.err = &err;
  plain.prefault_heap = nullptr;
  ASSERT_EQ(RunCarve({"run", WriteModule(), "--compare", "dnnl"}, plain), 0);
  EXPECT_EQ(out.str(), seen.out);
}

TEST(CompareSignal, OtherCommandsReportNothing) {
  Observed check = RunObserved({"check", WriteModule()});
  EXPECT_EQ(check.code, 0);
  EXPECT_EQ(check.reports, 0);
  Observed run = RunObserved({"run", WriteModule()});
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.reports, 0);
}

}  // namespace
}  // namespace carve::cli
