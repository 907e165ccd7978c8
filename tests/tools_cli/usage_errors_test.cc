// Bad usage of the carve command line is exit 2 with one clear line
// (issue 14): an unknown backend (listing the known ones), a name twice in a
// list option, a one-value option given twice (alike or not), and control
// bytes typed on the command line never echoed raw. `carve test` resolves
// %s/%S/%t from a bare file name in the current directory.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools_cli/cli_test_dir.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = CliResult;

class UsageErrorsTest : public CliTestDir {
 protected:
  UsageErrorsTest() : CliTestDir("carve_usage_") {}
  void SetUp() override {
    CliTestDir::SetUp();
    file_ = Write("m.relay", kReluModule);
  }

  std::string file_;
};

// Every message lists the same known backends.
void ExpectUnknownBackend(const Result& r, const std::string& name) {
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_THAT(r.err, HasSubstr("unknown backend '" + name + "'"));
  EXPECT_THAT(r.err, HasSubstr("known: bnns, arm_compute_lib, nnapi, dnnl, tensorrt"));
  EXPECT_EQ(r.out, "");
}

TEST_F(UsageErrorsTest, UnknownBackendIsBadUsageListingTheKnownOnes) {
  ExpectUnknownBackend(Run({"partition", file_, "--backend", "nosuch"}), "nosuch");
  ExpectUnknownBackend(Run({"run", file_, "--compare", "nosuch"}), "nosuch");
  ExpectUnknownBackend(Run({"run", file_, "--compare", "dnnl,nosuch"}), "nosuch");
  ExpectUnknownBackend(Run({"codegen", file_, "--backend", "nosuch"}), "nosuch");
  Result near = Run({"run", file_, "--compare", "dnnk"});
  ExpectUnknownBackend(near, "dnnk");
  EXPECT_THAT(near.err, HasSubstr("did you mean 'dnnl'?"));
  // Checked before the module is read: a missing FILE does not hide it.
  ExpectUnknownBackend(Run({"partition", (dir_ / "missing.relay").string(), "--backend", "x"}),
                       "x");
}

TEST_F(UsageErrorsTest, BenchmarkTablesAreNotBackends) {
  // The benchmarks' table is registered by bench/passes_bench.cc only.
  ExpectUnknownBackend(Run({"partition", file_, "--backend", "dnnl_like"}), "dnnl_like");
  ExpectUnknownBackend(Run({"run", file_, "--compare", "dnnl_like"}), "dnnl_like");
  ExpectUnknownBackend(Run({"codegen", file_, "--backend", "dnnl_like"}), "dnnl_like");
  EXPECT_THAT(UserBackendNames(), Not(Contains("dnnl_like")));
  EXPECT_NE(Run({"opt", file_, "-p", "MergeComposite(dnnl_like),AnnotateTarget(dnnl_like)"}).code,
            kExitOk);
  // The seed demo's target runs the default flow (docs/passes.md).
  EXPECT_EQ(Run({"partition", file_, "--backend", "byoc_target"}).code, kExitOk);
}

TEST_F(UsageErrorsTest, PatternFileBackendsAreKnown) {
  std::string pat = Write("mine.pat", "backend mybackend {\n  op nn.relu;\n}\n");
  Result r = Run({"partition", file_, "--backend", "mybackend", "--patterns", pat});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Compiler=\"mybackend\""));
  EXPECT_THAT(UserBackendNames(), Contains("mybackend"));
}

TEST_F(UsageErrorsTest, NameTwiceInAListIsBadUsage) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"run", file_, "--compare", "dnnl,dnnl"},
        std::vector<std::string>{"partition", file_, "--backend", "dnnl,tensorrt,dnnl"},
        std::vector<std::string>{"opt", file_, "-p", "InferType", "--disabled-pass",
                                 "FoldConstant,FoldConstant"},
        std::vector<std::string>{"run", file_, "--compare", "dnnl", "--bind", "x,x"}}) {
    Result r = Run(args);
    EXPECT_EQ(r.code, kExitUsage) << args[3];
    EXPECT_THAT(r.err, HasSubstr("is named twice")) << args[3];
  }
  Result r = Run({"run", file_, "--compare", "dnnl,dnnl"});
  EXPECT_THAT(r.err, HasSubstr("option '--compare': 'dnnl' is named twice"));
  // Across the values of a repeatable list option too.
  r = Run({"run", file_, "--compare", "dnnl", "--bind", "x", "--bind", "x"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("option '--bind': 'x' is named twice"));
}

TEST_F(UsageErrorsTest, OneValueOptionTwiceIsBadUsageEvenAlike) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::string out = (dir_ / "o.relay").string();
  for (const Case& c : std::vector<Case>{
           {{"run", file_, "--threads", "2", "--threads", "3"},
            "option '--threads' given twice ('2' and '3')"},
           {{"run", file_, "--threads", "2", "--threads", "2"},
            "option '--threads' given twice ('2' and '2')"},
           {{"run", file_, "--threads=2", "--threads", "2"}, "option '--threads' given twice"},
           {{"fmt", file_, "-o", out, "--output", out}, "option '--output' given twice"},
           {{"fmt", file_, "--types", "--types"}, "option '--types' given twice"},
           {{"partition", file_, "--backend", "dnnl", "--backend", "dnnl"},
            "option '--backend' given twice"}}) {
    Result r = Run(c.args);
    EXPECT_EQ(r.code, kExitUsage) << c.message;
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(UsageErrorsTest, RepeatableOptionsStayRepeatable) {
  std::string a = Write("a.pat", "backend backend_a {\n  op nn.relu;\n}\n");
  std::string b = Write("b.pat", "backend backend_b {\n  op nn.relu;\n}\n");
  Result r = Run({"partition", file_, "--backend", "backend_b,backend_a", "--patterns", a,
                  "--patterns", b});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  r = Run({"opt", file_, "-p", "InferType,FoldConstant", "--print-ir-before", "InferType",
           "--print-ir-before", "FoldConstant"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
}

TEST_F(UsageErrorsTest, ControlBytesOnTheCommandLineAreEscaped) {
  Result r = Run({std::string("fm\x1b[2Jt", 7), file_});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'fm\\x1b[2Jt'"));
  EXPECT_THAT(r.err, Not(HasSubstr("\x1b")));
  r = Run({"fmt", file_, std::string("--ty\x07pes", 8)});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("unknown option '--ty\\x07pes'"));
  EXPECT_THAT(r.err, Not(HasSubstr("\x07")));
}

TEST_F(UsageErrorsTest, BinaryInputIsEchoedEscapedWithTheCaretInPlace) {
  std::string bad = Write("bin.relay", std::string("#[version = \"0.0.5\"]\n"
                                                   "def @main() {\n"
                                                   "  \x01\xff\x1b[31m\n"
                                                   "}\n"));
  Result r = Run({"check", bad});
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.err, HasSubstr(":3:3: error: unexpected character '\\x01'\n"
                               "    \\x01\\xff\\x1b[31m\n"
                               "    ^\n"));
  for (char raw : {'\x01', '\x1b', '\xff'}) EXPECT_EQ(r.err.find(raw), std::string::npos);
}

// `carve test NAME` in the golden file's own folder: %S is that folder,
// not the root of the file system, and %s / %t resolve as from any path.
TEST_F(UsageErrorsTest, GoldenRunnerResolvesABareFileName) {
  std::filesystem::create_directories(dir_ / "data");
  Write("data/in.relay",
        "#[version = \"0.0.5\"]\ndef @main(%y: Tensor[(2), float32]) {\n  nn.relu(%y)\n}\n");
  Write("bare.test",
        "// RUN: carve fmt %S/data/in.relay -o %t\n"
        "// RUN: carve fmt %t\n"
        "// CHECK: nn.relu(%y)\n"
        "// -----\n"
        "// RUN: carve fmt %s\n"
        "// CHECK: nn.relu(%z)\n"
        "#[version = \"0.0.5\"]\ndef @main(%z: Tensor[(2), float32]) {\n  nn.relu(%z)\n}\n");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  Result r = Run({"test", "bare.test"});
  std::filesystem::current_path(before);
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("2 passed, 0 failed"));
}

}  // namespace
}  // namespace carve::cli
