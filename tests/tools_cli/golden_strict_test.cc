// `carve test` is strict: every malformed or misspelled directive, a case
// without RUN, a RUN line that fails unexpectedly, and directives that no RUN
// line checks fail the case with file:line:col; FileCheck directives, `not`,
// `2>&1`, `%t` and per-RUN check prefixes work.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools_cli/cli_test_dir.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using Outcome = TestOutcome;

constexpr const char* kModule =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 3), float32]) {\n"
    "  nn.relu(%x)\n"
    "}\n";

// One case: `directives` then the module.
Outcome RunCase(const std::string& name, const std::string& directives,
                std::vector<std::string> extra = {}) {
  return RunTestOn(name, directives + kModule, std::move(extra));
}

void ExpectPass(const Outcome& r) {
  EXPECT_EQ(r.code, kExitOk) << r.out;
  EXPECT_THAT(r.out, HasSubstr(" 0 failed")) << r.out;
}

void ExpectFail(const Outcome& r, const std::string& why) {
  EXPECT_EQ(r.code, kExitUserError) << r.out;
  EXPECT_THAT(r.out, HasSubstr(why));
}

TEST(GoldenStrictTest, FileCheckDirectivesAreHonoured) {
  ExpectPass(RunCase("ok.relay",
                     "// RUN: carve fmt %s\n"
                     "// CHECK-LABEL: def @main\n"
                     "// CHECK-SAME: {{%[a-z]+}}: Tensor\n"
                     "// CHECK-DAG: float32\n"
                     "// CHECK-NEXT: nn.relu(%[[X:[a-z]+]])\n"
                     "// CHECK-NOT: add\n"
                     "// CHECK: }\n"));
  // Each of these was ignored by the old runner and passed.
  ExpectFail(RunCase("label.relay", "// RUN: carve fmt %s\n// CHECK-LABEL: def @other\n"),
             "label.relay:2:17: error: CHECK-LABEL: expected string not found");
  ExpectFail(RunCase("dag.relay", "// RUN: carve fmt %s\n// CHECK-DAG: float64\n"),
             "CHECK-DAG: expected string not found");
  ExpectFail(RunCase("same.relay", "// RUN: carve fmt %s\n// CHECK: def\n// CHECK-SAME: relu\n"),
             "CHECK-SAME: is not on the same line");
  ExpectFail(RunCase("regex.relay", "// RUN: carve fmt %s\n// CHECK: nn.relu({{[0-9]+}})\n"),
             "expected string not found");
}

TEST(GoldenStrictTest, FailureShowsTheOutputAroundIt) {
  Outcome r = RunCase("around.relay", "// RUN: carve fmt %s\n// CHECK: def\n// CHECK-NEXT: add\n");
  ExpectFail(r, "around.relay:3:16: error: CHECK-NEXT: expected string not found in input");
  EXPECT_THAT(r.out, HasSubstr("<output>:2:4: note: scanning from here"));
  EXPECT_THAT(r.out, HasSubstr(">     2 | def @main(%x: Tensor[(1, 3), float32]) {"));
}

TEST(GoldenStrictTest, MisspelledAndUnknownDirectivesFail) {
  ExpectFail(RunCase("chek.relay", "// RUN: carve fmt %s\n// CHEK: def\n"),
             "chek.relay:2:4: error: misspelled directive 'CHEK:' (did you mean 'CHECK:'?)");
  ExpectFail(RunCase("chekc.relay", "// RUN: carve fmt %s\n// CHEKC: def\n"),
             "misspelled directive 'CHEKC:'");
  ExpectFail(RunCase("rum.relay", "// RUN: carve fmt %s\n// CHECK: def\n// RUM: carve fmt %s\n"),
             "misspelled directive 'RUM:' (did you mean 'RUN:'?)");
  ExpectFail(RunCase("ftm.relay",
                     "// RUN: carve fmt %s | FileCheck %s --check-prefix=FMT\n"
                     "// FMT: def\n// FTM: nn.relu\n"),
             "misspelled directive 'FTM:' (did you mean 'FMT:'?)");
  ExpectFail(RunCase("foo.relay", "// RUN: carve fmt %s\n// CHECK: def\n// CHECK-FOO: x\n"),
             "unknown directive 'CHECK-FOO:'");
  ExpectFail(RunCase("nxt.relay", "// RUN: carve fmt %s\n// CHECK: def\n// CHECK-NXT: x\n"),
             "unknown directive 'CHECK-NXT:'");
  ExpectFail(RunCase("lower.relay", "// RUN: carve fmt %s\n// Check: def\n"),
             "directive 'Check:' must be upper case");
  ExpectFail(RunCase("colon.relay", "// RUN: carve fmt %s\n// CHECK: def\n// CHECK-NEXT nn\n"),
             "missing ':' after directive 'CHECK-NEXT'");
  ExpectFail(RunCase("space.relay", "// RUN: carve fmt %s\n// CHECK : def\n"),
             "space between 'CHECK' and ':'");
  ExpectFail(RunCase("rnu.relay", "// RUN: carve fmt %s\n// Run: carve check %s\n"),
             "directive 'Run:' must be upper case");
  ExpectFail(RunCase("exit.relay", "// RUN: carve fmt %s\n// EXIT: one\n"),
             "EXIT: takes an exit code");
  ExpectFail(RunCase("diag.relay", "// RUN: carve check %s\n// expected-eror {{x}}\n"),
             "unknown directive 'expected-eror'");
  ExpectFail(RunCase("diag2.relay", "// RUN: carve check %s\n// expected-error: x\n"),
             "malformed 'expected-error'");
  // Prose is not a directive.
  ExpectPass(RunCase("prose.relay",
                     "// Note: prose. Forward: more prose. TODO: later\n"
                     "// RUN: carve fmt %s\n// CHECK: def\n"));
}

TEST(GoldenStrictTest, CasesWithoutRunFail) {
  ExpectFail(RunTestOn("norun.relay", std::string("// CHECK: def\n") + kModule),
             "norun.relay:1:1: error: this case has no RUN line");
  Outcome r = RunTestOn("second.relay", std::string("// RUN: carve fmt %s\n// CHECK: def\n") +
                                            kModule + "// -----\n// CHECK: x\n");
  ExpectFail(r, "second.relay:8:1: error: this case has no RUN line");
  EXPECT_THAT(r.out, HasSubstr("1 passed, 1 failed"));
}

TEST(GoldenStrictTest, EveryRunLineMustSucceedUnlessNegated) {
  ExpectFail(RunCase("first.relay",
                     "// RUN: carve check missing.relay\n// RUN: carve fmt %s\n// CHECK: def\n"),
             "first.relay:1:4: error: RUN line exited 1 (expected 0)");
  ExpectPass(RunCase("not.relay",
                     "// RUN: not carve check missing.relay\n// RUN: carve fmt %s\n"
                     "// CHECK: cannot read 'missing.relay'\n"));
  ExpectFail(RunCase("notok.relay", "// RUN: not carve fmt %s\n// CHECK: def\n"),
             "RUN line exited 1 (expected 0): not carve fmt exited 0");
  // A failing command early in a pipeline fails the RUN line (pipefail).
  ExpectFail(
      RunCase("pipe.relay", "// RUN: carve fmt missing.relay | carve fmt %s\n// CHECK: def\n"),
      "RUN line exited 1");
  ExpectFail(RunCase("exitnot.relay", "// RUN: not carve check missing.relay\n// EXIT: 1\n"),
             "EXIT: and 'not' both on the last RUN line");
}

TEST(GoldenStrictTest, FileCheckStagesWithTheirOwnPrefixes) {
  ExpectPass(RunCase("prefixes.relay",
                     "// RUN: carve fmt %s | FileCheck %s --check-prefix=FMT\n"
                     "// RUN: not carve check missing.relay 2>&1 | FileCheck %s "
                     "--check-prefixes=ERR,ALSO\n"
                     "// FMT: def @main\n// FMT-NEXT: nn.relu\n"
                     "// ERR: cannot read\n// ALSO: missing.relay\n"));
  ExpectFail(RunCase("wrongprefix.relay",
                     "// RUN: carve fmt %s | FileCheck %s --check-prefix=FMT\n"
                     "// FMT: def @main\n// FMT-NEXT: add\n"),
             "wrongprefix.relay:3:14: error: FMT-NEXT: expected string not found");
  // CHECK lines that no RUN line reads test nothing: an error.
  ExpectFail(RunCase("unread.relay",
                     "// RUN: carve fmt %s | FileCheck %s --check-prefix=FMT\n"
                     "// FMT: def @main\n// CHECK: anything\n"),
             "unread.relay:3: error: 'CHECK:' directives, but no RUN line checks prefix 'CHECK'");
  ExpectFail(RunCase("fmtfoo.relay",
                     "// RUN: carve fmt %s | FileCheck %s --check-prefix=FMT\n"
                     "// FMT: def @main\n// FMT-FOO: x\n"),
             "unknown directive 'FMT-FOO:'");
  // A FileCheck prefix without directives is an error, as in FileCheck.
  ExpectFail(RunCase("nodirs.relay", "// RUN: carve fmt %s | FileCheck %s --check-prefix=NONE\n"),
             "no check strings found with prefix 'NONE:'");
  // FileCheck on an empty output fails unless --allow-empty.
  ExpectFail(RunCase("empty.relay", "// RUN: carve check %s | FileCheck %s\n// CHECK-NOT: error\n"),
             "is empty");
  ExpectPass(RunCase("allowempty.relay",
                     "// RUN: carve check %s | FileCheck %s --allow-empty\n// CHECK-NOT: error\n"));
  ExpectFail(RunCase("badopt.relay",
                     "// RUN: carve fmt %s | FileCheck %s --strict-whitespace\n// CHECK: def\n"),
             "FileCheck option '--strict-whitespace' is not supported");
  ExpectFail(RunCase("shell.relay", "// RUN: carve fmt %s > out.txt\n// CHECK: def\n"),
             "'>' is not supported in RUN lines");
}

TEST(GoldenStrictTest, TempPathAndCommandLinePrefix) {
  ExpectPass(RunCase("temp.relay",
                     "// RUN: carve fmt %s -o %t\n// RUN: carve fmt %t\n// CHECK: nn.relu\n"));
  ExpectPass(RunCase("cmdprefix.relay", "// RUN: carve fmt %s\n// MINE: nn.relu\n",
                     {"--check-prefix", "MINE"}));
  Outcome bad = RunCase("badprefix.relay", "// RUN: carve fmt %s\n// CHECK: def\n",
                        {"--check-prefix", "1-bad"});
  EXPECT_EQ(bad.code, kExitUsage) << bad.out;
}

TEST(GoldenStrictTest, ErrorsThatNoExpectationCanNameFail) {
  const std::string bad =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 3), float32]) {\n"
      "  nn.relu(%y)  // expected-error {{%y}}\n"
      "}\n";
  ExpectPass(RunTestOn("diag_ok.relay", "// RUN: carve check %s\n" + bad));
  // The first RUN line's error names no line of this file.
  ExpectFail(RunTestOn("diag_other.relay",
                       "// RUN: not carve check missing.relay\n// RUN: carve check %s\n" + bad),
             "unexpected diagnostic: carve: error: cannot read 'missing.relay'");
}

TEST(GoldenStrictTest, ToleranceOnlyWhereAnExpectedFileIsCompared) {
  ExpectFail(RunCase("tol.relay", "// TOLERANCE: rtol=1e-4\n// RUN: carve fmt %s\n// CHECK: def\n"),
             "TOLERANCE: applies only to a case compared with");
}

TEST(GoldenStrictTest, ExpectedFileModeStillWorks) {
  std::string path = (std::filesystem::path(testing::TempDir()) / "exp.relay").string();
  std::filesystem::remove(path + ".expected");
  Outcome missing = RunCase("exp.relay", "// RUN: carve fmt %s\n");
  ExpectFail(missing, "missing");
  Outcome updated = RunCase("exp.relay", "// RUN: carve fmt %s\n", {"--update"});
  EXPECT_THAT(updated.out, HasSubstr("updated"));
  ExpectPass(RunCase("exp.relay", "// RUN: carve fmt %s\n"));
  EXPECT_THAT(RunCase("exp.relay", "// RUN: carve fmt %s\n").out, Not(HasSubstr("updated")));
  // A broken directive leaves the .expected file alone: the case might own
  // a part of it.
  Outcome broken = RunCase("exp.relay", "// RUN: carve fmt %s\n// CHEK: x\n", {"--update"});
  ExpectFail(broken, "not updated until the directives are fixed");
  ExpectPass(RunCase("exp.relay", "// RUN: carve fmt %s\n"));
}

// A case whose RUN line runs `carve test` on its own file recursed in process
// until the stack overflowed (a crash); it now fails with one line saying why.
TEST(GoldenStrictTest, RunLineTestingItsOwnFileIsAnErrorNotACrash) {
  const std::string self = (std::filesystem::path(testing::TempDir()) / "self.relay").string();
  const Outcome r = RunCase("self.relay", "// RUN: carve test " + self + "\n// CHECK: passed\n");
  EXPECT_EQ(r.code, kExitUserError) << r.out;
  EXPECT_THAT(r.out, HasSubstr("RUN lines nested more than 8 deep"));
}

// Lit-style cases: one command writes a file (-o %t), the next pipes a
// command on it into FileCheck. The CHECK lines are the FileCheck's; the
// writing command's output is checked by no directive and no .expected
// file, but its exit status still is.
TEST(GoldenStrictTest, CheckLinesBelongToTheFileCheckLine) {
  Outcome r = RunTestOn("prepare.relay", std::string("// RUN: carve fmt %s -o %t\n") +
                                             "// RUN: carve fmt %t | FileCheck %s\n" +
                                             "// CHECK: nn.relu(%x)\n" + kModule);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("1 passed, 0 failed"));
  EXPECT_THAT(r.out, Not(HasSubstr(".expected")));
}

TEST(GoldenStrictTest, TheFileCheckLineStillFails) {
  Outcome r = RunTestOn("wrong_check.relay", std::string("// RUN: carve fmt %s -o %t\n") +
                                                 "// RUN: carve fmt %t | FileCheck %s\n" +
                                                 "// CHECK: nn.sigmoid(%x)\n" + kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("0 passed, 1 failed"));
  EXPECT_THAT(r.out, HasSubstr("<stdout of RUN line 2>"));
}

TEST(GoldenStrictTest, AFailingPreparingCommandStillFails) {
  Outcome r = RunTestOn("bad_prepare.relay", std::string("// RUN: carve fmt %S/none.relay -o %t\n") +
                                                 "// RUN: carve fmt %s | FileCheck %s\n" +
                                                 "// CHECK: nn.relu(%x)\n" + kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("RUN line exited 1 (expected 0)"));
}

TEST(GoldenStrictTest, DirectivesNoFileCheckReadsStillCheckTheOtherOutputs) {
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
