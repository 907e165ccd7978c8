// The FileCheck library behind `carve test` (tools/cli/filecheck.h): parse
// errors, strict-mode rejections, failure reports, and the features whose
// semantics the differential test (filecheck_diff_test.cc) compares with LLVM.
#include "tools/cli/filecheck.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve::filecheck {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// "" when `check` passes on `input`, the report when it fails, and
// "PARSE: message" when the check file is rejected.
std::string Check(const std::string& check, const std::string& input, CheckOptions options = {}) {
  absl::StatusOr<CheckFile> file = CheckFile::Parse("t.check", check, options);
  if (!file.ok()) return "PARSE: " + std::string(file.status().message());
  return file->Match(input, "<out>");
}

CheckOptions Strict() {
  CheckOptions o;
  o.strict = true;
  return o;
}

TEST(FileCheckTest, PlainChecksMatchInOrderWithinLines) {
  EXPECT_THAT(Check("CHECK: foo\nCHECK: bar\n", "foo bar\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK: bar\nCHECK: foo\n", "foo bar\n"),
              HasSubstr("CHECK: expected string not found"));
}

TEST(FileCheckTest, FailureNamesTheDirectiveAndShowsTheOutputAroundIt) {
  std::string r = Check("// CHECK: a\n// CHECK-NEXT: c\n", "a\nb\nc\nd\n");
  EXPECT_THAT(r, HasSubstr("t.check:2:16: error: CHECK-NEXT: is not on the line after the "
                           "previous match"));
  EXPECT_THAT(r, HasSubstr("// CHECK-NEXT: c\n               ^"));
  EXPECT_THAT(r, HasSubstr("<out>:3:1: note: 'next' match was here"));
  EXPECT_THAT(r, HasSubstr("<out>:2:1: note: non-matching line after previous match is here"));
  EXPECT_THAT(r, HasSubstr("<out> around line 3:\n      1 | a\n      2 | b\n>     3 | c\n"));
}

TEST(FileCheckTest, NotFoundPointsAtWhereTheSearchBegan) {
  std::string r = Check("CHECK: a\nCHECK: zzz\n", "x\na b\nc\n");
  EXPECT_THAT(r, HasSubstr("t.check:2:8: error: CHECK: expected string not found in input"));
  EXPECT_THAT(r, HasSubstr("<out>:2:2: note: scanning from here\na b\n ^"));
}

TEST(FileCheckTest, SameNotDagLabelEmptyCount) {
  EXPECT_THAT(Check("CHECK: a\nCHECK-SAME: b\n", "a b\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK: a\nCHECK-SAME: b\n", "a\nb\n"), HasSubstr("CHECK-SAME: is not on"));
  EXPECT_THAT(Check("CHECK: a\nCHECK-NOT: x\nCHECK: b\n", "a\nx\nb\n"),
              HasSubstr("CHECK-NOT: excluded string found in input"));
  EXPECT_THAT(Check("CHECK-DAG: b\nCHECK-DAG: a\nCHECK: c\n", "a\nb\nc\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK-DAG: a\nCHECK-DAG: a\n", "a\n"), HasSubstr("CHECK-DAG: expected"));
  EXPECT_THAT(Check("CHECK-LABEL: f1\nCHECK: b\nCHECK-LABEL: f2\n", "f1\nf2\nb\n"),
              HasSubstr("CHECK: expected string not found"));
  EXPECT_THAT(Check("CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n", "a\n\nb\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK: a\nCHECK-EMPTY:\n", "a\nx\n\n"), HasSubstr("CHECK-EMPTY: is not on"));
  EXPECT_THAT(Check("CHECK-COUNT-2: a\n", "a\na\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK-COUNT-3: a\n", "a\na\n"), HasSubstr("(3 out of 3)"));
}

TEST(FileCheckTest, RegexesAndVariables) {
  EXPECT_THAT(Check("CHECK: %{{[0-9]+}} = add\n", "%12 = add\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK: %{{[0-9]+}} = add\n", "%x = add\n"), HasSubstr("not found"));
  const std::string defuse = "CHECK: %[[V:[0-9]+]] = add\nCHECK: relu(%[[V]])\n";
  EXPECT_THAT(Check(defuse, "%3 = add\nrelu(%3)\n"), IsEmpty());
  std::string r = Check(defuse, "%3 = add\nrelu(%4)\n");
  EXPECT_THAT(r, HasSubstr("not found"));
  EXPECT_THAT(r, HasSubstr("with \"V\" equal to \"3\""));
  // A value with regex characters is matched literally.
  EXPECT_THAT(Check("CHECK: x[[V:.*]]\nCHECK: y[[V]]\n", "x.+\nyab\n"), HasSubstr("not found"));
  EXPECT_THAT(Check("CHECK: [[U]]\n", "a\n"), HasSubstr("undefined variable: U"));
  EXPECT_THAT(Check("CHECK: line [[@LINE]]\nCHECK: [[@LINE-1]]\n", "line 1\n1\n"), IsEmpty());
}

TEST(FileCheckTest, WhitespaceRunsAreOneSpace) {
  EXPECT_THAT(Check("CHECK: a   b\n", "a\tb\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK: ab\n", "a b\n"), HasSubstr("not found"));
}

TEST(FileCheckTest, MalformedCheckFilesAreRejected) {
  EXPECT_THAT(Check("CHECK:\n", "a\n"), HasSubstr("PARSE: t.check:1:7: error: found empty check"));
  EXPECT_THAT(Check("CHECK-NEXT: a\n", "a\n"), HasSubstr("without previous 'CHECK: line"));
  EXPECT_THAT(Check("CHECK: {{a\n", "a\n"), HasSubstr("no end '}}'"));
  EXPECT_THAT(Check("CHECK: {{(}}\n", "(\n"), HasSubstr("invalid regex"));
  EXPECT_THAT(Check("CHECK-COUNT-0: a\n", "a\n"), HasSubstr("invalid count"));
  EXPECT_THAT(Check("CHECK-LABEL: [[X:a]]\n", "a\n"), HasSubstr("variable definition or use"));
  EXPECT_THAT(Check("nothing\n", "a\n"), HasSubstr("no check strings found with prefix 'CHECK:'"));
  CheckOptions two;
  two.check_prefixes = {"A", "B"};
  EXPECT_THAT(Check("A: a\n", "a\n", two), HasSubstr("no check strings found with prefix 'B:'"));
  two.check_prefixes = {"A", "A"};
  EXPECT_THAT(Check("A: a\n", "a\n", two), HasSubstr("must be unique"));
}

TEST(FileCheckTest, UnsupportedFeaturesAreErrorsNotSilentDifferences) {
  EXPECT_THAT(Check("CHECK: [[#N:]]\n", "1\n"), HasSubstr("numeric substitution blocks"));
  EXPECT_THAT(Check("CHECK: [[V:a]] [[V]]\n", "a a\n"), HasSubstr("back-reference"));
}

TEST(FileCheckTest, StrictModeRejectsWhatFileCheckSkips) {
  // Outside strict mode these lines are not directives (as in FileCheck).
  EXPECT_THAT(Check("CHECK: a\nCHECK-FOO: b\n", "a\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK: a\nCHECK-FOO: b\n", "a\n", Strict()),
              HasSubstr("PARSE: t.check:2:1: error: unknown directive 'CHECK-FOO'"));
  EXPECT_THAT(Check("CHECK: a\nCHECK_NEXT: b\n", "a\n", Strict()),
              HasSubstr("misspelled directive 'CHECK_NEXT'"));
  EXPECT_THAT(Check("CHECK : a\nCHECK: a\n", "a\n", Strict()), HasSubstr("space between 'CHECK'"));
  EXPECT_THAT(Check("CHECK: a\nCHECK-NEXT b\n", "a\n", Strict()),
              HasSubstr("missing ':' after 'CHECK-NEXT'"));
  EXPECT_THAT(Check("CHECK{LITRAL}: a\nCHECK: a\n", "a\n", Strict()),
              HasSubstr("malformed modifiers"));
  // Other words that merely start with the prefix are prose.
  EXPECT_THAT(Check("CHECK: a\nCHECKS are fine. XCHECK-FOO: too\n", "a\n", Strict()), IsEmpty());
}

TEST(FileCheckTest, CommentsAndLiteralModifier) {
  EXPECT_THAT(Check("CHECK: a\nCOM: CHECK: b\nRUN: CHECK: c\n", "a\n"), IsEmpty());
  EXPECT_THAT(Check("CHECK{LITERAL}: [[x]] {{y}}\n", "[[x]] {{y}}\n"), IsEmpty());
}

TEST(FileCheckTest, AllowUnusedPrefixesLeavesNoChecks) {
  CheckOptions o;
  o.allow_unused_prefixes = true;
  absl::StatusOr<CheckFile> file = CheckFile::Parse("t", "no directives\n", o);
  ASSERT_TRUE(file.ok());
  EXPECT_THAT(file->checks(), IsEmpty());
}

TEST(FileCheckTest, EditDistanceCountsTranspositionsOnce) {
  EXPECT_EQ(EditDistance("CHECK", "CHECK"), 0);
  EXPECT_EQ(EditDistance("CHEK", "CHECK"), 1);
  EXPECT_EQ(EditDistance("CHEKC", "CHECK"), 1);
  EXPECT_EQ(EditDistance("CHECK-NXET", "CHECK-NEXT"), 1);
  EXPECT_THAT(EditDistance("FORWARD", "CHECK"), Not(::testing::Le(2)));
}

}  // namespace
}  // namespace carve::filecheck
