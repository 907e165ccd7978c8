// `carve test` on lit-style cases: one command writes a file (-o %t), the
// next pipes a command on it into FileCheck. The CHECK lines are the
// FileCheck's; the writing command's output is checked by no directive and
// no .expected file, but its exit status still is.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int code;
  std::string out;
};

Outcome RunTestOn(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "lit_style";
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path) << text;
  std::ostringstream out, err;
  Env env = RealEnv();
  env.out = &out;
  env.err = &err;
  int code = RunCarve({"test", path}, env);
  return {code, out.str() + err.str()};
}

constexpr const char* kModule =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2), float32]) {\n"
    "  nn.relu(%x)\n"
    "}\n";

TEST(GoldenLitStyleTest, CheckLinesBelongToTheFileCheckLine) {
  Outcome r = RunTestOn("prepare.relay", std::string("// RUN: carve fmt %s -o %t\n") +
                                             "// RUN: carve fmt %t | FileCheck %s\n" +
                                             "// CHECK: nn.relu(%x)\n" + kModule);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("1 passed, 0 failed"));
  EXPECT_THAT(r.out, Not(HasSubstr(".expected")));
}

TEST(GoldenLitStyleTest, TheFileCheckLineStillFails) {
  Outcome r = RunTestOn("wrong_check.relay", std::string("// RUN: carve fmt %s -o %t\n") +
                                                 "// RUN: carve fmt %t | FileCheck %s\n" +
                                                 "// CHECK: nn.sigmoid(%x)\n" + kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("0 passed, 1 failed"));
  EXPECT_THAT(r.out, HasSubstr("<stdout of RUN line 2>"));
}

TEST(GoldenLitStyleTest, AFailingPreparingCommandStillFails) {
  Outcome r = RunTestOn("bad_prepare.relay", std::string("// RUN: carve fmt %S/none.relay -o %t\n") +
                                                 "// RUN: carve fmt %s | FileCheck %s\n" +
                                                 "// CHECK: nn.relu(%x)\n" + kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("RUN line exited 1 (expected 0)"));
}

TEST(GoldenLitStyleTest, DirectivesNoFileCheckReadsStillCheckTheOtherOutputs) {
  // FileCheck reads FMT; the CHECK lines are the other command's.
  Outcome r = RunTestOn("two_prefixes.relay",
                        std::string("// RUN: carve check %s --stats\n") +
                            "// RUN: carve fmt %s | FileCheck %s --check-prefix=FMT\n" +
                            "// FMT: nn.relu(%x)\n" + "// CHECK: no such line\n" + kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("CHECK: expected string not found in input"));
  EXPECT_THAT(r.out, HasSubstr("<output>"));
}

}  // namespace
}  // namespace carve::cli
