#include <chrono>
#include "fmt/format.h"
#include "grammar/lexer.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "test_util.h"
namespace carve {
std::string Big(int n) {
  std::string t = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 64, 56, 56), float32] /* ty=Tensor[(1, 64, 56, 56), float32] */, %w: Tensor[(64, 64, 3, 3), float32], %b: Tensor[(64), float32]) -> Tensor[(1, 64, 56, 56), float32] {\n";
  t += "  %0 = nn.relu(%x) /* ty=Tensor[(1, 64, 56, 56), float32] */;\n";
  for (int i = 1; i < n; ++i) {
    switch (i % 3) {
      case 0: t += fmt::format("  %{} = nn.conv2d(%{}, %w, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]) /* ty=Tensor[(1, 64, 56, 56), float32] */;\n", i, i-1); break;
      case 1: t += fmt::format("  %{} = nn.bias_add(%{}, %b) /* ty=Tensor[(1, 64, 56, 56), float32] */;\n", i, i-1); break;
      case 2: t += fmt::format("  %{} = nn.relu(%{}) /* ty=Tensor[(1, 64, 56, 56), float32] */;\n", i, i-1); break;
    }
  }
  t += fmt::format("  %{}\n}}\n", n-1);
  return t;
}
TEST(Bench, Parse) {
  std::string text = Big(100000);
  auto c0 = std::clock(); auto t0 = std::chrono::steady_clock::now();
  size_t tokens = 0;
  for (int r = 0; r < (getenv("NOLEX") ? 0 : 3); ++r) {
    Lexer lex(text, 0, nullptr);
    while (!lex.Next().Is(TokenKind::kEof)) ++tokens;
  }
  auto c1 = std::clock(); auto t1 = std::chrono::steady_clock::now();
  double lex_s = std::chrono::duration<double>(t1 - t0).count() / 3;
  if (getenv("NOLEX")) { auto c = std::clock(); for (int i = 0; i < 5; ++i) ParseModule("big", text); printf("parse cpu %.1f MB/s\n", 5*text.size()/1e6/((std::clock()-c)/double(CLOCKS_PER_SEC))); }
  auto m = ParseModule("big", text);
  auto c2 = std::clock(); auto t2 = std::chrono::steady_clock::now();
  ASSERT_TRUE(m.ok());
  double parse_s = std::chrono::duration<double>(t2 - t1).count();
  printf("cpu: lex %.1f MB/s parse %.1f MB/s\n", text.size()/1e6/((c1-c0)/double(CLOCKS_PER_SEC)/3), text.size()/1e6/((c2-c1)/double(CLOCKS_PER_SEC)));
  printf("size %.1f MB, lex %.1f MB/s (%zu tokens), parse %.1f MB/s, arena %zu bytes (%.1f B/op)\n", text.size()/1e6, text.size()/1e6/lex_s, tokens/3, text.size()/1e6/parse_s, m->arena()->bytes_allocated(), m->arena()->bytes_allocated()/1e5);
}
}
