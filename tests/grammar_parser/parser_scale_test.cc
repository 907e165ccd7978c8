// The parser at scale: large graphs stay within the memory budget and parse
// quickly, and adversarial shapes (huge parameter lists, attribute lists,
// operator runs) take linear time.
#include <chrono>
#include <ctime>
#include <string>

#include "fmt/format.h"
#include "grammar/lexer.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace carve {
namespace {

using testing_util::Diagnostics;

// A printed conv / bias_add / relu chain of `n` ops with type comments, the
// shape of a large TVM-printed model.
std::string ConvChain(int n) {
  std::string t =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 64, 56, 56), float32], %w: Tensor[(64, 64, 3, 3), float32], "
      "%b: Tensor[(64), float32]) -> Tensor[(1, 64, 56, 56), float32] {\n"
      "  %0 = nn.relu(%x) /* ty=Tensor[(1, 64, 56, 56), float32] */;\n";
  for (int i = 1; i < n; ++i) {
    switch (i % 3) {
      case 0:
        t += fmt::format(
            "  %{} = nn.conv2d(%{}, %w, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]) "
            "/* ty=Tensor[(1, 64, 56, 56), float32] */;\n",
            i, i - 1);
        break;
      case 1:
        t += fmt::format(
            "  %{} = nn.bias_add(%{}, %b) /* ty=Tensor[(1, 64, 56, 56), float32] */;\n", i, i - 1);
        break;
      default:
        t += fmt::format("  %{} = nn.relu(%{}) /* ty=Tensor[(1, 64, 56, 56), float32] */;\n", i,
                         i - 1);
    }
  }
  return t + fmt::format("  %{}\n}}\n", n - 1);
}

double CpuSeconds(std::clock_t since) { return double(std::clock() - since) / CLOCKS_PER_SEC; }

TEST(ParseScale, HundredThousandOpsWithinBudget) {
  const int n = 100000;
  std::string text = ConvChain(n);
  const double megabytes = text.size() / 1e6;
  std::clock_t start = std::clock();
  auto m = ParseModule("chain", text);
  const double parse_seconds = CpuSeconds(start);
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  // IR nodes, argument arrays and names: the parser's share of the
  // pipeline's 300 bytes per op (the text itself takes ~93 more).
  const double arena_per_op = double(m->arena()->bytes_allocated()) / n;
  EXPECT_LT(arena_per_op, 100) << "arena bytes per op";
  start = std::clock();
  Lexer lexer(text, 0, nullptr);
  size_t tokens = 0;
  while (!lexer.Next().Is(TokenKind::kEof)) ++tokens;
  const double lex_seconds = CpuSeconds(start);
  EXPECT_GT(tokens, size_t(n) * 10);
  std::printf("%.1f MB: parse %.0f MB/s, lex %.0f MB/s (CPU time), arena %.0f B/op\n", megabytes,
              megabytes / parse_seconds, megabytes / lex_seconds, arena_per_op);
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  // Far below what an optimised build does (~150 / ~300 MB/s): catches an
  // accidental slow path, not noise.
  EXPECT_GT(megabytes / parse_seconds, 30);
  EXPECT_GT(megabytes / lex_seconds, 60);
#endif
}

TEST(ParseScale, AdversarialShapesTakeLinearTime) {
  const int n = 100000;
  std::string params = "#[version = \"0.0.5\"]\ndef @main(";
  std::string attrs = "#[version = \"0.0.5\"]\ndef @main(";
  for (int i = 0; i < n; ++i) {
    params += fmt::format("%p{}, ", i);
    attrs += fmt::format("a{}={}, ", i, i);
  }
  params += "%p0) { %p1 }";  // one duplicate, at the end
  attrs += "a0=1) { () }";
  auto p = ParseModule("params", params);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(StatusToDiagnostics(p.status()).size(), 1u);
  auto a = ParseModule("attrs", attrs);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(StatusToDiagnostics(a.status()).size(), 1u);
  // Operator runs, unclosed attributes and meta references on one line.
  for (std::string unit : {"-", "#[", "meta[", "/*", "%", "\"", "1.", "@"}) {
    std::string text = "#[version = \"0.0.5\"]\ndef @main() { ";
    for (int i = 0; i < n; ++i) text += unit;
    EXPECT_FALSE(ParseModule("run", text).ok()) << unit;
  }
}

}  // namespace
}  // namespace carve
