// The TOLERANCE directive of golden files: numbers compare within rtol /
// atol, everything else byte for byte, and real differences still fail.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools_cli/cli_test_dir.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"
#include "tools/cli/golden_compare.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

const NumericTolerance kTol{1e-4, 1e-6};

constexpr const char* kSummary =
    "out0: Tensor[(1, 18), float32] min=-156950 max=249884 mean=10904.3 "
    "first=[-65454.5, 55818.1, -3.79812e-05, ...]\n";

TEST(CompareTolerantTest, LastDigitDifferencesPass) {
  EXPECT_THAT(CompareTolerant(kSummary,
                              "out0: Tensor[(1, 18), float32] min=-156951 max=249884 "
                              "mean=10904.4 first=[-65454.6, 55818.1, -3.79813e-05, ...]\n",
                              kTol),
              IsEmpty());
}

TEST(CompareTolerantTest, NearZeroValuesUseAtol) {
  EXPECT_THAT(CompareTolerant("mean=1.2e-08 x\n", "mean=-3.4e-09 x\n", kTol), IsEmpty());
  EXPECT_THAT(CompareTolerant("mean=0\n", "mean=2e-06\n", kTol), HasSubstr("outside"));
}

TEST(CompareTolerantTest, NumberOutOfToleranceFails) {
  std::string why = CompareTolerant("mean=10904.3\n", "mean=10906.3\n", kTol);
  EXPECT_THAT(why, HasSubstr("output line 1"));
  EXPECT_THAT(why, HasSubstr("10904.3 against 10906.3"));
}

TEST(CompareTolerantTest, WrongShapeTextFails) {
  EXPECT_THAT(CompareTolerant("Tensor[(1, 18), float32]\n", "Tensor[(1, 19), float32]\n", kTol),
              HasSubstr("18 against 19"));
  EXPECT_THAT(CompareTolerant("Tensor[(1, 18), float32]\n", "Tensor[(1, 18, 1), float32]\n",
                              kTol),
              HasSubstr("output line 1"));
}

TEST(CompareTolerantTest, DigitsInsideWordsAreText) {
  // The 32 of float32 and the 0 of out0 are not numbers: a tolerance as
  // loose as 100% still fails float32 against float64, out0 against out1.
  const NumericTolerance loose{1.0, 1.0};
  EXPECT_THAT(CompareTolerant("float32\n", "float64\n", loose), HasSubstr("text"));
  EXPECT_THAT(CompareTolerant("out0: 1\n", "out1: 1\n", loose), HasSubstr("text"));
}

TEST(CompareTolerantTest, NumberAgainstTextFails) {
  EXPECT_THAT(CompareTolerant("max=1\n", "max=inf\n", kTol), HasSubstr("text 'max='"));
  EXPECT_THAT(CompareTolerant("1 x\n", "y x\n", kTol), HasSubstr("a number against text"));
  EXPECT_THAT(CompareTolerant("min=nan\n", "min=nan\n", kTol), IsEmpty());
}

TEST(CompareTolerantTest, MissingAndExtraLinesFail) {
  EXPECT_THAT(CompareTolerant("a=1\nb=2\n", "a=1\n", kTol), HasSubstr("a line is missing"));
  EXPECT_THAT(CompareTolerant("a=1\n", "a=1\nb=2\n", kTol), HasSubstr("an extra line"));
  EXPECT_THAT(CompareTolerant("a=1\n", "a=1", kTol), HasSubstr("a missing final newline"));
}

TEST(CompareTolerantTest, LinesWithoutToleranceCompareExactly) {
  std::vector<std::optional<NumericTolerance>> per_line = {std::nullopt, kTol};
  EXPECT_THAT(CompareTolerant("x=1.00001\ny=1.00001\n", "x=1.00001\ny=1.00002\n", per_line),
              IsEmpty());
  EXPECT_THAT(CompareTolerant("x=1.00001\ny=1.00001\n", "x=1.00002\ny=1.00001\n", per_line),
              HasSubstr("the lines differ"));
}

TEST(ParseToleranceTest, AcceptsBothFields) {
  auto t = ParseTolerance(" rtol=1e-5  atol=2e-7");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->rtol, 1e-5);
  EXPECT_EQ(t->atol, 2e-7);
}

TEST(ParseToleranceTest, RejectsMalformedSpecs) {
  for (const char* spec : {"", "rtol", "rtol=", "rtol=x", "rtol=-1", "rtol=inf", "tol=1",
                           "rtol=1e-5,atol=1"}) {
    EXPECT_FALSE(ParseTolerance(spec).ok()) << spec;
  }
}

// End to end through `carve test`: the .expected file is written by
// --update, then edited.
class GoldenToleranceFileTest : public testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs the tests of this file in parallel.
    dir_ = std::filesystem::path(testing::TempDir()) / "golden_tolerance" /
           testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "t.relay").string();
  }

  std::pair<int, std::string> Run(const std::string& text, bool update) {
    std::ofstream(path_) << text;
    TestOutcome r = RunCarveTest(path_, update ? std::vector<std::string>{"--update"}
                                               : std::vector<std::string>{});
    return {r.code, r.out};
  }

  std::string Expected() {
    std::ifstream in(path_ + ".expected");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  void EditExpected(const std::string& from, const std::string& to) {
    std::string text = Expected();
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from << " not in " << text;
    text.replace(at, from.size(), to);
    std::ofstream(path_ + ".expected") << text;
  }

  std::filesystem::path dir_;
  std::string path_;
};

constexpr const char* kCase =
    "// RUN: carve fmt %s\n"
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 3), float32]) {\n"
    "  add(%x, 1.5f)\n"
    "}\n";

TEST_F(GoldenToleranceFileTest, ToleratesSmallAndCatchesRealDifferences) {
  const std::string file = std::string("// TOLERANCE: rtol=1e-3 atol=0\n") + kCase;
  ASSERT_EQ(Run(file, true).first, kExitOk);
  ASSERT_THAT(Expected(), HasSubstr("1.5f"));
  EditExpected("1.5f", "1.5005f");
  EXPECT_EQ(Run(file, false).first, kExitOk);
  // --update leaves a matching file alone.
  EXPECT_THAT(Run(file, true).second, ::testing::Not(HasSubstr("updated")));
  EXPECT_THAT(Expected(), HasSubstr("1.5005f"));

  EditExpected("1.5005f", "1.51f");
  auto [code, out] = Run(file, false);
  EXPECT_EQ(code, kExitUserError);
  EXPECT_THAT(out, HasSubstr("1.51 against 1.5: outside"));

  EditExpected("1.51f", "1.5f");
  EditExpected("(1, 3)", "(1, 4)");
  EXPECT_EQ(Run(file, false).first, kExitUserError);

  EditExpected("(1, 4)", "(1, 3)");
  EditExpected("}\n", "}\nextra\n");
  EXPECT_EQ(Run(file, false).first, kExitUserError);
}

TEST_F(GoldenToleranceFileTest, WithoutTheDirectiveNumbersCompareExactly) {
  ASSERT_EQ(Run(kCase, true).first, kExitOk);
  EditExpected("1.5f", "1.5005f");
  EXPECT_EQ(Run(kCase, false).first, kExitUserError);
}

TEST_F(GoldenToleranceFileTest, MalformedDirectiveFailsTheCase) {
  const std::string file = std::string("// TOLERANCE: rtol=abc\n") + kCase;
  Run(file, true);
  auto [code, out] = Run(file, false);
  EXPECT_EQ(code, kExitUserError);
  EXPECT_THAT(out, HasSubstr("TOLERANCE"));
}

}  // namespace
}  // namespace carve::cli
