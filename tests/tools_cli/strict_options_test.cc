// Options that do not apply, unknown names and resource limits of the carve
// command line (issue 14): each is a usage error (exit 2) or a one-line
// error (exit 1), never ignored and never a crash.
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools_cli/cli_test_dir.h"
#include "interpreter/npy.h"
#include "tools/cli/args.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using Result = CliResult;

class StrictOptionsTest : public CliTestDir {
 protected:
  StrictOptionsTest() : CliTestDir("carve_strict_") {}
  void SetUp() override {
    CliTestDir::SetUp();
    small_ = Write("small.relay",
                   "#[version = \"0.0.5\"]\n"
                   "def @main(%x: Tensor[(1, 8), float32], %weight: Tensor[(4, 8), float32]) {\n"
                   "  nn.relu(nn.dense(%x, %weight))\n"
                   "}\n");
  }

  std::string small_;
};

// --- options that do not apply to the mode ---

TEST_F(StrictOptionsTest, CompareOptionsNeedCompare) {
  for (std::vector<std::string> extra : std::vector<std::vector<std::string>>{
           {"--rtol", "1"}, {"--atol", "1"}, {"--report"}, {"--bind", "x"},
           {"--patterns", "a.pat"}}) {
    std::vector<std::string> args = {"run", small_};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << extra[0];
    EXPECT_THAT(r.err, HasSubstr("option '" + extra[0] + "' applies only with --compare"));
  }
}

TEST_F(StrictOptionsTest, RunOutputOptionsDoNotApplyToCompare) {
  for (std::vector<std::string> extra : std::vector<std::vector<std::string>>{
           {"--stats"}, {"--out", "d"}, {"--threads", "2"}}) {
    std::vector<std::string> args = {"run", small_, "--compare", "dnnl"};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << extra[0];
    EXPECT_THAT(r.err, HasSubstr("option '" + extra[0] + "' does not apply with --compare"));
  }
}

TEST_F(StrictOptionsTest, OtherCommandsModes) {
  Result list = Run({"opt", "--list-passes", "--types"});
  EXPECT_EQ(list.code, 2);
  EXPECT_THAT(list.err, HasSubstr("'--types' does not apply with --list-passes"));
  Result report = Run({"partition", small_, "--backend", "dnnl", "--report", "--meta-attrs"});
  EXPECT_EQ(report.code, 2);
  EXPECT_THAT(report.err, HasSubstr("'--meta-attrs' does not apply with --report"));
  Result seed = Run({"codegen", small_, "--backend", "dnnl", "--seed", "3"});
  EXPECT_EQ(seed.code, 2);
  EXPECT_THAT(seed.err, HasSubstr("'--seed' applies only with --bind"));
}

TEST_F(StrictOptionsTest, HelpSaysWhereAnOptionApplies) {
  Result r = Run({"run", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("(only with --compare)"));
  EXPECT_THAT(r.out, HasSubstr("(not with --compare)"));
}

// --repeat times both modes: the load, the first call and the latency of
// the repeated calls, on stderr; stdout keeps the outputs (or the report).
TEST_F(StrictOptionsTest, RepeatAppliesToBothModes) {
  Result run = Run({"run", small_, "--repeat", "3", "--warmup", "1"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("out0:"));
  EXPECT_THAT(run.err, HasSubstr("load_us: "));
  EXPECT_THAT(run.err, HasSubstr("first_call_us: "));
  EXPECT_THAT(run.err, HasSubstr("(3 calls after 1 warm-up)"));
  Result compare = Run({"run", small_, "--compare", "dnnl", "--repeat", "2"});
  EXPECT_EQ(compare.code, 0) << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("result: "));
  EXPECT_THAT(compare.err, HasSubstr("reference_latency_us: min="));
  EXPECT_THAT(compare.err, HasSubstr("partitioned_latency_us: min="));
  EXPECT_THAT(compare.err, HasSubstr("(2 calls after 0 warm-up)"));
}

TEST_F(StrictOptionsTest, ValidCombinationsStillRun) {
  EXPECT_EQ(Run({"run", small_, "--seed", "3", "--stats"}).code, 0);
  EXPECT_EQ(Run({"opt", "--list-passes"}).code, 0);
  EXPECT_EQ(Run({"partition", small_, "--backend", "dnnl", "--report"}).code, 0);
}

TEST(ModeTableTest, FirstGivenSelectorWins) {
  std::vector<OptionSpec> specs = {{"--a", false, false, "", "", {}},
                                   {"--b", false, false, "", "", {}},
                                   {"--x", false, false, "", "", {"a"}}};
  std::vector<CommandMode> modes = {{"plain", ""}, {"a", "--a"}, {"b", "--b"}};
  absl::StatusOr<ParsedArgs> args = ParseArgs({"--b", "--a", "--x"}, specs);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(SelectedMode(*args, modes), "a");
  EXPECT_TRUE(CheckOptionsApply(*args, specs, modes).ok());
  absl::StatusOr<ParsedArgs> plain = ParseArgs({"--x"}, specs);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(SelectedMode(*plain, modes), "plain");
  EXPECT_FALSE(CheckOptionsApply(*plain, specs, modes).ok());
}

// --- unknown names ---

TEST_F(StrictOptionsTest, UnknownPrintIrPassListsKnownOnes) {
  Result r = Run({"opt", small_, "-p", "InferType", "--print-ir-before=InferTyp"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("'InferTyp' names no pass (did you mean 'InferType'?"));
  EXPECT_THAT(r.err, HasSubstr("known: AlterOpLayout, AnnotateTarget"));
  Result ok = Run({"opt", small_, "-p", "InferType", "--print-ir-before=InferType"});
  EXPECT_EQ(ok.code, 0);
  EXPECT_THAT(ok.err, HasSubstr("before InferType"));
}

TEST_F(StrictOptionsTest, ParamsDirMustExistAndNameParameters) {
  Result missing = Run({"run", small_, "--params", (dir_ / "nope").string()});
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("is not a directory"));

  std::filesystem::create_directories(dir_ / "params");
  ASSERT_TRUE(WriteNpyFile((dir_ / "params" / "wieght.npy").string(),
                           NDArray::Empty(DataType::Float(32), {4, 8}))
                  .ok());
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"run", small_, "--params", (dir_ / "params").string()},
           {"opt", small_, "-p", "InferType", "--params", (dir_ / "params").string()},
           {"codegen", small_, "--backend", "dnnl", "--params", (dir_ / "params").string()}}) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_THAT(r.err, HasSubstr("wieght.npy' names no parameter of @main (did you mean "
                                 "'weight'?; known: x, weight)"));
  }
  std::filesystem::rename(dir_ / "params" / "wieght.npy", dir_ / "params" / "weight.npy");
  Result r = Run({"run", small_, "--params", (dir_ / "params").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("max=0 mean=0"));  // x @ zeros, then relu
}

TEST_F(StrictOptionsTest, UnknownBindAndInputNames) {
  Result bind = Run({"run", small_, "--compare", "dnnl", "--bind", "x,wieght"});
  EXPECT_EQ(bind.code, 1);
  EXPECT_THAT(bind.err, HasSubstr("--bind 'wieght' names no parameter of @main (did you mean "
                                  "'weight'?"));
  Result codegen = Run({"codegen", small_, "--backend", "dnnl", "--bind", "wieght"});
  EXPECT_EQ(codegen.code, 1);
  EXPECT_THAT(codegen.err, HasSubstr("names no parameter"));
  Result input = Run({"run", small_, "--input", "wieght=a.npy"});
  EXPECT_EQ(input.code, 1);
  EXPECT_THAT(input.err, HasSubstr("--input 'wieght' names no parameter"));
}

TEST_F(StrictOptionsTest, PatternsDirectoryIsAnError) {
  std::filesystem::create_directories(dir_ / "pats");
  Result r = Run({"opt", small_, "-p", "InferType", "--patterns", (dir_ / "pats").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("is a directory; name the .pat files"));
}

// --- resource limits ---

TEST_F(StrictOptionsTest, HugeTensorsStopBeforeAllocation) {
  std::string zeros = Write("zeros.relay",
                            "#[version = \"0.0.5\"]\n"
                            "def @main() {\n"
                            "  zeros(shape=[100000, 100000, 100000], dtype=\"float32\")\n"
                            "}\n");
  Result r = Run({"run", zeros});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("zeros: the result Tensor[(100000, 100000, 100000), float32] "
                               "needs 4000000000000000 bytes, over the tensor limit"));
  std::string big = Write("big.relay",
                          "#[version = \"0.0.5\"]\n"
                          "def @main(%x: Tensor[(100000, 100000), float32]) { nn.relu(%x) }\n");
  Result input = Run({"run", big});
  EXPECT_EQ(input.code, 1);
  EXPECT_THAT(input.err, HasSubstr("input %x: Tensor[(100000, 100000), float32] needs "
                                   "40000000000 bytes"));
}

TEST_F(StrictOptionsTest, ElementCountOverflowIsAnError) {
  std::string f = Write("overflow.relay",
                        "#[version = \"0.0.5\"]\n"
                        "def @main(%x: Tensor[(4294967296, 4294967296, 16), float32]) {\n"
                        "  nn.relu(%x)\n"
                        "}\n");
  Result r = Run({"run", f});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("element count overflows 64 bits"));
  EXPECT_THAT(r.out, Not(HasSubstr("out0")));
}

TEST_F(StrictOptionsTest, TensorLimitIsOverridable) {
  Result low = Run({"run", small_, "--max-tensor-bytes", "64"});
  EXPECT_EQ(low.code, 1);
  EXPECT_THAT(low.err, HasSubstr("input %weight: Tensor[(4, 8), float32] needs 128 bytes, over "
                                 "the tensor limit of 64 bytes"));
  EXPECT_EQ(Run({"run", small_, "--max-tensor-bytes", "1K"}).code, 0);
  Result bad = Run({"run", small_, "--max-tensor-bytes", "12Q"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("expected a positive byte count"));
}

TEST_F(StrictOptionsTest, FoldConstantRespectsTheTensorLimit) {
  std::string f = Write("fold.relay",
                        "#[version = \"0.0.5\"]\n"
                        "def @main() {\n"
                        "  %0 = reshape(1f, newshape=[1, 1]);\n"
                        "  %1 = repeat(%0, repeats=100000, axis=0);\n"
                        "  repeat(%1, repeats=1000000, axis=1)\n"
                        "}\n");
  Result r = Run({"opt", f, "-p", "FoldConstant"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("fold.relay:5:3: error: FoldConstant: repeat: the result "
                               "Tensor[(100000, 1000000), float32] needs 400000000000 bytes"));
}

TEST_F(StrictOptionsTest, MalformedLimitVariableIsAUsageError) {
  setenv("CARVE_MAX_TENSOR_BYTES", "lots", 1);
  Result r = Run({"check", small_});
  unsetenv("CARVE_MAX_TENSOR_BYTES");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("CARVE_MAX_TENSOR_BYTES: expected a positive byte count"));
}

TEST_F(StrictOptionsTest, GrowingRewriteStopsWithinSeconds) {
  std::string rules = Write("grow.pat", "rule grow = nn.relu(?x) => nn.relu(nn.relu(?x));\n");
  auto start = std::chrono::steady_clock::now();
  Result r = Run({"opt", small_, "-p", "Rewrite(" + rules + ")"});
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("rewriting grew the graph from"));
  EXPECT_THAT(r.err, HasSubstr("over the node limit of 65536"));
  EXPECT_THAT(r.err, HasSubstr("still firing: grow"));
  EXPECT_THAT(r.err, HasSubstr("max_nodes=262144"));
  EXPECT_LT(seconds, 20.0);
}

}  // namespace
}  // namespace carve::cli
