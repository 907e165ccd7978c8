// Hostile `.pat` files (issue 14): long operator chains and floods of bad
// characters end in a bounded error, never a stack overflow or a
// quadratic-time diagnostic dump.
#include <string>

#include "gmock/gmock.h"
#include "grammar/pattern_parser.h"
#include "gtest/gtest.h"
#include "patterns/compile.h"
#include "support/diagnostics.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

std::string Join(const std::string& item, const std::string& sep, int n) {
  std::string out = item;
  for (int i = 1; i < n; ++i) out += sep + item;
  return out;
}

// `a | a | ...` builds Alt(Alt(a, a), a)...: the compiler and the matcher
// recurse on that tree, and 100k alternatives overflowed the stack. A chain
// counts against the nesting limit like parentheses.
TEST(DslLimits, LongAlternationIsNestedTooDeeply) {
  auto lib = ParsePatternFile("alt.pat", "pattern p = " + Join("nn.relu(?x)", " | ", 100000) + ";");
  ASSERT_FALSE(lib.ok());
  EXPECT_THAT(std::string(lib.status().message()), HasSubstr("pattern nested too deeply"));
}

TEST(DslLimits, LongAndOrChainsAreNestedTooDeeply) {
  for (const char* op : {" and ", " or "}) {
    auto lib = ParsePatternFile(
        "and.pat", "pattern p = nn.relu(?x) where " + Join("?x.rank == 2", op, 100000) + ";");
    ASSERT_FALSE(lib.ok()) << op;
    EXPECT_THAT(std::string(lib.status().message()), HasSubstr("pattern nested too deeply")) << op;
  }
}

TEST(DslLimits, LongProjectionChainIsNestedTooDeeply) {
  std::string chain;
  for (int i = 0; i < 100000; ++i) chain += ".0";
  auto lib = ParsePatternFile("proj.pat", "pattern p = ?x" + chain + ";");
  ASSERT_FALSE(lib.ok());
  EXPECT_THAT(std::string(lib.status().message()), HasSubstr("pattern nested too deeply"));
}

// Chains within the limit still parse and compile.
TEST(DslLimits, ChainsWithinTheLimitCompile) {
  auto lib = ParsePatternFile(
      "ok.pat", "pattern p = " + Join("nn.relu(?x)", " | ", 200) + " where " +
                    Join("?x.rank == 2", " and ", 200) + ";");
  ASSERT_TRUE(lib.ok()) << RenderStatus(lib.status());
  const NamedPattern* p = lib->FindPattern("p");
  ASSERT_NE(p, nullptr);
  auto compiled = CompilePattern(p->pattern);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
}

// Every bad character is a lexer error; they used to be unbounded (one per
// `&` here), each rendering its 250 KB line: seconds of CPU and megabytes of
// output. Now the parse stops after the usual 20 errors.
TEST(DslLimits, LexerErrorsStopAtTheLimit) {
  auto lib = ParsePatternFile(
      "amp.pat", "pattern p = nn.relu(?x) where " + Join("?x.rank == 2", " && ", 20000) + ";");
  ASSERT_FALSE(lib.ok());
  std::vector<Diagnostic> diags = StatusToDiagnostics(lib.status());
  EXPECT_LE(diags.size(), 21u);
  EXPECT_EQ(diags.back().message, "too many errors; stopping here");
}

}  // namespace
}  // namespace carve::testing
