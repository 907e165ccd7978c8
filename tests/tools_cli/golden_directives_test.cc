// `carve test` on golden files whose directives carry absurd numbers: the
// case fails with a report, the runner neither throws nor overflows.
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

using Outcome = TestOutcome;

constexpr const char* kModule = "#[version = \"0.0.5\"]\ndef @main() {\n  0\n}\n";

TEST(GoldenDirectivesTest, HugeRelativeLineFailsTheCase) {
  Outcome r = RunTestOn("huge_plus.relay", std::string("// RUN: carve check %s\n") +
                                               "// expected-error@+99999999999999999999 {{x}}\n" +
                                               kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("0 passed, 1 failed"));
}

TEST(GoldenDirectivesTest, HugeNegativeLineAndColumnFailTheCase) {
  Outcome r = RunTestOn("huge_minus.relay",
                        std::string("// RUN: carve check %s\n") +
                            "// expected-error@-2147483648:2147483648 {{x}}\n" + kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("0 passed, 1 failed"));
}

TEST(GoldenDirectivesTest, HugeAbsoluteLineFailsTheCase) {
  Outcome r = RunTestOn("huge_abs.relay", std::string("// RUN: carve check %s\n") +
                                              "// expected-error@4294967296 {{x}}\n" + kModule);
  EXPECT_EQ(r.code, kExitUserError);
  EXPECT_THAT(r.out, HasSubstr("0 passed, 1 failed"));
}

}  // namespace
}  // namespace carve::cli
