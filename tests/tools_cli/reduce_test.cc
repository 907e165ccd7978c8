// `carve reduce` (tools/cli/reduce.h, cmd_reduce.cc): shrinks while the
// condition holds, keeps every candidate valid, is deterministic, and
// rejects bad usage.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cancellation.h"
#include "support/source.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"
#include "tools/cli/reduce.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kProgram = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(8, 4, 3, 3), float32], %b: Tensor[(8), float32], %y: Tensor[(1, 16), float32], %d: Tensor[(4, 16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2]);
  %4 = nn.dense(%y, %d, units=4);
  %5 = sigmoid(%4);
  %6 = split(%5, indices_or_sections=2, axis=1);
  %7 = add(%6.0, %6.1);
  %8 = nn.softmax(%7);
  (%3, %8, %4)
}
)";

int64_t Lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

TEST(ReduceRelayTest, ShrinksToTheInterestingOp) {
  auto has_softmax = [](const std::string& t) { return t.find("nn.softmax(") != std::string::npos; };
  ReduceStats stats;
  std::string out = ReduceRelay(kProgram, has_softmax, &stats);
  EXPECT_TRUE(IsValidRelay(out)) << out;
  EXPECT_THAT(out, HasSubstr("nn.softmax("));
  EXPECT_THAT(out, Not(HasSubstr("nn.conv2d")));
  EXPECT_THAT(out, Not(HasSubstr("nn.dense")));
  EXPECT_LE(Lines(out), 4) << out;
  EXPECT_GT(stats.accepted, 0);
}

TEST(ReduceRelayTest, KeepsTwoOpsWhenBothAreNeeded) {
  auto both = [](const std::string& t) {
    return t.find("nn.dense(") != std::string::npos && t.find("nn.max_pool2d(") != std::string::npos;
  };
  std::string out = ReduceRelay(kProgram, both);
  EXPECT_TRUE(IsValidRelay(out)) << out;
  EXPECT_THAT(out, HasSubstr("nn.dense("));
  EXPECT_THAT(out, HasSubstr("nn.max_pool2d("));
  EXPECT_THAT(out, Not(HasSubstr("nn.conv2d")));
  EXPECT_THAT(out, Not(HasSubstr("sigmoid")));
}

TEST(ReduceRelayTest, ShrinksShapesAndDropsAttributes) {
  // Interesting while a conv2d is there: the reducer also drops padding and
  // shrinks the 8x8 image and the channel counts.
  auto has_conv = [](const std::string& t) { return t.find("nn.conv2d(") != std::string::npos; };
  std::string out = ReduceRelay(kProgram, has_conv);
  EXPECT_THAT(out, HasSubstr("nn.conv2d("));
  EXPECT_THAT(out, Not(HasSubstr("padding")));
  EXPECT_THAT(out, Not(HasSubstr("8, 8")));
}

TEST(ReduceRelayTest, Deterministic) {
  auto has_add = [](const std::string& t) { return t.find("add(") != std::string::npos; };
  EXPECT_EQ(ReduceRelay(kProgram, has_add), ReduceRelay(kProgram, has_add));
}

TEST(ReduceRelayTest, NothingToRemoveKeepsTheInput) {
  std::string tiny = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1), float32]) {\n  nn.relu(%x)\n}\n";
  auto has_relu = [](const std::string& t) { return t.find("nn.relu(") != std::string::npos; };
  EXPECT_THAT(ReduceRelay(tiny, has_relu), HasSubstr("nn.relu(%x)"));
}

// A reduction parses thousands of candidates; each parse registers its text
// with the SourceManager, which kept all of them before (a reduction of a 1
// MB file over 10,000 candidates held 10 GB). Now none is left behind.
TEST(ReduceRelayTest, KeepsNoCandidateText) {
  auto has_softmax = [](const std::string& t) { return t.find("nn.softmax(") != std::string::npos; };
  size_t before = SourceManager::Global().size();
  ReduceStats stats;
  std::string out = ReduceRelay(kProgram, has_softmax, &stats);
  EXPECT_GT(stats.candidates + stats.invalid, 20);
  EXPECT_EQ(SourceManager::Global().size(), before);
}

// Ctrl-C (the cancellation flag) stops the search: the condition is not
// asked again, and the smallest interesting text so far comes back.
TEST(ReduceRelayTest, StopsOnCancellationWithTheSmallestSoFar) {
  int asked = 0;
  std::string last_accepted;
  auto has_softmax = [&](const std::string& t) {
    ++asked;
    bool yes = t.find("nn.softmax(") != std::string::npos;
    if (yes) last_accepted = t;
    if (asked == 5) RequestCancellation();
    return yes;
  };
  ReduceStats stats;
  std::string out = ReduceRelay(kProgram, has_softmax, &stats);
  ClearCancellation();
  EXPECT_TRUE(stats.interrupted);
  EXPECT_EQ(asked, 5);
  EXPECT_EQ(stats.candidates, 5);
  EXPECT_EQ(out, last_accepted);
  EXPECT_TRUE(IsValidRelay(out)) << out;
  EXPECT_THAT(out, HasSubstr("nn.softmax("));
  // Without the flag the same search goes on to the end.
  ReduceStats full;
  ReduceRelay(kProgram, [](const std::string& t) { return t.find("nn.softmax(") != std::string::npos; },
              &full);
  EXPECT_FALSE(full.interrupted);
  EXPECT_GT(full.candidates, 5);
}

struct CliRun {
  int rc;
  std::string out, err;
};

CliRun RunCli(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out, err;
  Env env = RealEnv();
  env.in = &in;
  env.out = &out;
  env.err = &err;
  env.prefault_heap = nullptr;
  int rc = RunCarve(args, env);
  return {rc, out.str(), err.str()};
}

std::string WriteProgram() {
  std::string path = (std::filesystem::temp_directory_path() / "carve_reduce_test.relay").string();
  std::ofstream(path) << kProgram;
  return path;
}

TEST(ReduceCommandTest, ReducesWhileStderrContains) {
  // --print-ir-after-all prints the module to stderr: keep a max_pool2d in it.
  CliRun r = RunCli({"reduce", WriteProgram(), "--until",
                  "carve opt {} -p InferType --print-ir-after-all", "--stderr-contains",
                  "nn.max_pool2d("});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("nn.max_pool2d("));
  EXPECT_THAT(r.out, Not(HasSubstr("nn.dense")));
  EXPECT_LE(Lines(r.out), 4) << r.out;
  EXPECT_THAT(r.err, HasSubstr("carve reduce: "));
  EXPECT_THAT(r.err, HasSubstr(" lines -> "));
}

TEST(ReduceCommandTest, ExitStatusCondition) {
  // Exit 2 (a usage error) holds on every candidate: down to one op.
  CliRun r = RunCli({"reduce", WriteProgram(), "--until", "carve run %s --threads 0", "--exit", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_LE(Lines(r.out), 4) << r.out;
}

TEST(ReduceCommandTest, ConditionMustHoldOnTheInput) {
  CliRun r = RunCli({"reduce", WriteProgram(), "--until", "carve check {}", "--exit", "1"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("the condition does not hold"));
  r = RunCli({"reduce", WriteProgram(), "--until", "carve check {}"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("succeeds"));
}

TEST(ReduceCommandTest, UsageErrorOfTheCommandIsNotReduced) {
  // `--threads 0` is a usage error of `carve run` whatever the file: without
  // --exit 2 that is not a failure of FILE to reduce.
  CliRun r = RunCli({"reduce", WriteProgram(), "--until", "carve run {} --threads 0"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.err, HasSubstr("the --until command is a usage error (exit 2)"));
  EXPECT_THAT(r.err, HasSubstr("--threads"));
  EXPECT_EQ(r.out, "");
}

TEST(ReduceCommandTest, UsageErrors) {
  std::string f = WriteProgram();
  EXPECT_EQ(RunCli({"reduce", f}).rc, 2);                                   // no --until
  EXPECT_EQ(RunCli({"reduce", f, "--until", "carve check"}).rc, 2);         // no {}
  EXPECT_EQ(RunCli({"reduce", f, "--until", "ls {}"}).rc, 2);               // not carve
  EXPECT_EQ(RunCli({"reduce", f, "--until", "carve check {}", "--exit", "x"}).rc, 2);
  EXPECT_EQ(RunCli({"reduce", f, "--until", "carve check '{}"}).rc, 2);     // unclosed quote
}

}  // namespace
}  // namespace carve::cli
