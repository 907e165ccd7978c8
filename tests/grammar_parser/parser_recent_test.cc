// The parser's memo of recently matched texts (grammar/parser_recent.h), and
// the parses that go through it: a text found again by its bytes must read
// exactly as the slow path would read it.
#include "grammar/parser_recent.h"

#include <string>
#include <vector>

#include "fmt/format.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace carve {
namespace {

using parser_internal::kRecentKey;
using parser_internal::RecentTexts;

TEST(RecentTexts, FindsARememberedTextAgainByItsBytes) {
  const std::string text =
      "Tensor[(64, 64, 3, 3), float32] Tensor[(64, 64, 3, 3), float32] "
      "Tensor[(64, 64, 3, 3), float16] Tensor[(64, 64, 3, 3), float32]";
  const char* end = text.data() + text.size();
  RecentTexts<int> table;
  const std::string_view first = std::string_view(text).substr(0, 31);
  EXPECT_EQ(table.Match(text.data(), kRecentKey, end, nullptr), nullptr);
  table.Remember(first, kRecentKey, end, nullptr, 7);
  const auto* again = table.Match(text.data() + 32, kRecentKey, end, nullptr);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->value, 7);
  EXPECT_EQ(again->size, first.size());
  // Other bytes (same key bytes) or another tag: no match.
  EXPECT_EQ(table.Match(text.data() + 64, kRecentKey, end, nullptr), nullptr);
  int tag = 0;
  EXPECT_EQ(table.Match(text.data() + 32, kRecentKey, end, &tag), nullptr);
  // Nothing is read past the end: the last copy ends the text, but a
  // position closer than kRecentKey to the end is never looked at.
  EXPECT_NE(table.Match(end - 31, kRecentKey, end, nullptr), nullptr);
  EXPECT_EQ(table.Match(end - kRecentKey + 1, kRecentKey, end, nullptr), nullptr);
}

TEST(RecentTexts, ShortTextsArePlacedByTheirOwnBytes) {
  const std::string text = "nn.relu(%1) nn.relu(%22) add(%3) nn.relu_x nn.relu(%4)       ";
  const char* end = text.data() + text.size();
  RecentTexts<int> table;
  table.Remember(std::string_view(text).substr(0, 7), 7, end, nullptr, 1);
  // Key bytes longer than the text would include other bytes: not kept.
  table.Remember(std::string_view(text).substr(25, 3), 8, end, nullptr, 2);
  ASSERT_NE(table.Match(text.data() + 12, 7, end, nullptr), nullptr);
  EXPECT_EQ(table.Match(text.data() + 25, 3, end, nullptr), nullptr);
  // A longer name with the remembered one as prefix matches the bytes; the
  // caller checks what follows (RecentOp).
  EXPECT_NE(table.Match(text.data() + 33, 7, end, nullptr), nullptr);
}

TEST(RecentTexts, KeepsTheTwoMostRecentTextsOfASet) {
  // Three texts with the same key bytes fall in one set of two ways.
  const std::string text =
      "abcdefghijklmnop-1 abcdefghijklmnop-22 abcdefghijklmnop-333 "
      "abcdefghijklmnop-1 abcdefghijklmnop-22 abcdefghijklmnop-333 ";
  const char* end = text.data() + text.size();
  RecentTexts<int> table;
  table.Remember(std::string_view(text).substr(0, 18), kRecentKey, end, nullptr, 1);
  table.Remember(std::string_view(text).substr(19, 19), kRecentKey, end, nullptr, 2);
  table.Remember(std::string_view(text).substr(39, 20), kRecentKey, end, nullptr, 3);
  // Both remaining ways match the bytes of the third copy; the most recent
  // ("-333") is tried first, and "-1" was dropped.
  const auto* hit = table.Match(text.data() + 60 + 39, kRecentKey, end, nullptr);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->value, 3);
  hit = table.Match(text.data() + 60 + 19, kRecentKey, end, nullptr);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->value, 2);
  hit = table.Match(text.data() + 60, kRecentKey, end, nullptr);
  EXPECT_EQ(hit, nullptr);
}

// Parses `body` as a module; its @main, or nullptr with the diagnostics in
// `*errors`.
const Function* Main(const std::string& body, Module& mod, std::string* errors) {
  auto parsed = ParseModule("recent", "#[version = \"0.0.5\"]\n" + body);
  if (!parsed.ok()) {
    *errors = testing_util::Diagnostics(parsed);
    return nullptr;
  }
  mod = *std::move(parsed);
  return mod.Lookup("main");
}

// The calls of a chain `%0 = f(...); %1 = g(%0, ...); ... h(%n)`, first
// first.
std::vector<const Call*> ChainCalls(const Function* fn) {
  std::vector<const Call*> calls;
  for (const Expr* e = fn->body(); e != nullptr && Isa<Call>(e);) {
    const Call* call = Cast<Call>(e);
    calls.insert(calls.begin(), call);
    e = call->args().empty() ? nullptr : call->args()[0];
  }
  return calls;
}

std::string AttrText(const Call* call, std::string_view key) {
  const AttrValue* v = call->attrs()->Find(key);
  return v == nullptr ? "none" : AttrValueToString(*v);
}

TEST(ParseRecentTexts, RepeatedTextsReadAsTheFirstOne) {
  // Each construct repeats often enough to be remembered, then comes back
  // extended or changed: the memo must not swallow the difference.
  std::string body = "def @main(";
  for (int i = 0; i < 4; ++i) body += fmt::format("%w{}: Tensor[(8, 8, 3, 3), float32], ", i);
  body += "%w4: Tensor[(8, 8, 3, 3), float16], %x: Tensor[(1, 8, 8, 8), float32]) {\n";
  body += "  %0 = nn.relu(%x);\n";
  for (int i = 1; i < 5; ++i) {
    body += fmt::format(
        "  %{} = nn.conv2d(%{}, %w{}, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);\n", i,
        i - 1, i - 1);
  }
  body += "  %5 = nn.conv2d(%4, %w0, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3] );\n";
  body +=
      "  %6 = nn.conv2d(%5, %w0, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], "
      "strides=[2, 2]);\n";
  body += "  %7 = nn.conv2d(%6, %w0, padding=[1, 1, 1, 1], channels=9, kernel_size=[3, 3]);\n";
  body += "  %8 = nn.relu(%7);\n  %9 = nn.relu (%8);\n  %10 = nn.relu(%9);\n  nn.relu(%10)\n}\n";
  Module mod;
  std::string errors;
  const Function* main = Main(body, mod, &errors);
  ASSERT_NE(main, nullptr) << errors;
  auto params = main->params();
  ASSERT_EQ(params.size(), 6u);
  for (int i = 1; i < 4; ++i) EXPECT_EQ(params[i]->annotation(), params[0]->annotation());
  EXPECT_EQ(static_cast<const TensorType*>(params[4]->annotation())->dtype(), DataType::Float(16));
  EXPECT_EQ(static_cast<const TensorType*>(params[5]->annotation())->rank(), 4u);
  std::vector<const Call*> calls = ChainCalls(main);
  ASSERT_EQ(calls.size(), 12u);
  for (int i = 2; i <= 5; ++i) EXPECT_EQ(calls[i]->attrs(), calls[1]->attrs()) << i;
  EXPECT_EQ(AttrText(calls[5], "strides"), "[1, 1]");
  EXPECT_EQ(AttrText(calls[6], "strides"), "[2, 2]");
  EXPECT_EQ(AttrText(calls[7], "channels"), "9");
  for (int i : {8, 9, 10, 11}) EXPECT_EQ(calls[i]->callee(), calls[0]->callee()) << i;
}

TEST(ParseRecentTexts, AnExtendedOpNameIsNotTheRememberedOne) {
  std::string body = "def @main(%x: Tensor[(1, 8, 8, 8), float32]) {\n";
  for (int i = 0; i < 4; ++i) {
    body += fmt::format("  %{} = nn.relu(%{});\n", i, i == 0 ? "x" : std::to_string(i - 1));
  }
  body += "  %4 = nn.relu_x(%3);\n  %4\n}\n";
  Module mod;
  std::string errors;
  EXPECT_EQ(Main(body, mod, &errors), nullptr);
  EXPECT_NE(errors.find("unknown operator 'nn.relu_x'"), std::string::npos) << errors;
}

// A chain of graph bindings in the printed shape, most of which the fast
// path reads (parse_fast.cc), with the odd line it must leave to the general
// path.
std::string Chain(const std::vector<std::string>& extra_lines) {
  std::string body =
      "def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(8, 8, 3, 3), float32], "
      "%b: Tensor[(8), float32]) {\n  %0 = nn.relu(%x);\n";
  int n = 1;
  for (int i = 0; i < 6; ++i, n += 3) {
    body +=
        fmt::format("  %{} = nn.conv2d(%{}, %w, padding=[1, 1, 1, 1], channels=8);\n", n, n - 1);
    body += fmt::format("  %{} = nn.bias_add(%{},   %b );\n", n + 1, n);
    body += fmt::format("  %{} = nn.relu(%{});\n", n + 2, n + 1);
  }
  for (const std::string& line : extra_lines) body += "  " + line + "\n";
  return body + "  %" + std::to_string(n - 1) + "\n}\n";
}

TEST(ParseFastBindings, CallsHaveTheSpansOfTheirText) {
  const std::string body = Chain({});
  Module mod;
  std::string errors;
  const Function* main = Main(body, mod, &errors);
  ASSERT_NE(main, nullptr) << errors;
  const std::string text = "#[version = \"0.0.5\"]\n" + body;
  std::vector<const Call*> calls = ChainCalls(main);
  ASSERT_EQ(calls.size(), 19u);
  size_t line = text.find("  %0 = ");
  for (const Call* call : calls) {
    // Each call spans from its op name to its ')'.
    const size_t callee = text.find(" = ", line) + 3;
    const size_t close = text.find(";\n", line);
    EXPECT_EQ(call->span().begin, callee);
    EXPECT_EQ(call->span().end, close);
    line = close + 2;
  }
  for (size_t i = 4; i < calls.size(); i += 3) {
    EXPECT_EQ(calls[i]->attrs(), calls[1]->attrs());
    EXPECT_EQ(calls[i + 1]->args()[1], main->params()[2]);
  }
}

TEST(ParseFastBindings, OtherShapesReadAsBefore) {
  // Lines the fast path must not take: a comment, a literal, a projection,
  // an infix operator, a nested call, a local name with a dash.
  const std::string body = Chain({
      "%90 = nn.relu(/* c */ %18);",
      "%91 = add(%90, 1f);",
      "%92 = (%91, %91);",
      "%93 = nn.relu(%92.0) + %90;",
      "%94 = nn.relu(nn.relu(%93));",
      "%95 = add(%94, %93)",
  });
  Module mod;
  std::string errors;
  EXPECT_EQ(Main(body, mod, &errors), nullptr);
  EXPECT_NE(errors.find("expected ';' after the graph binding"), std::string::npos) << errors;
  EXPECT_EQ(errors.find("%9"), std::string::npos) << errors;
}

TEST(ParseFastBindings, ErrorsAreTheGeneralPaths) {
  Module mod;
  std::string errors;
  EXPECT_EQ(Main(Chain({"%4 = nn.relu(%18);"}), mod, &errors), nullptr);
  EXPECT_NE(errors.find("graph variable '%4' is already bound"), std::string::npos) << errors;
  EXPECT_NE(errors.find("previous binding is here"), std::string::npos) << errors;
  EXPECT_EQ(Main(Chain({"%90 = nn.relu(%77);"}), mod, &errors), nullptr);
  EXPECT_NE(errors.find("undefined variable '%77'"), std::string::npos) << errors;
  EXPECT_EQ(Main(Chain({"%90 = nn.relu(%y);"}), mod, &errors), nullptr);
  EXPECT_NE(errors.find("undefined variable '%y'"), std::string::npos) << errors;
  // A trailing comma is the general path's to read (it accepts it).
  EXPECT_NE(Main(Chain({"%90 = nn.bias_add(%18, %b,);"}), mod, &errors), nullptr) << errors;
}

TEST(ParseFastParams, ReadAsTheGeneralPathReadsThem) {
  // Enough parameters of a few types for the fast path to take over, with
  // names the lexer glues (`%a.b`, `%c-d`) and other shapes among them.
  std::string body = "def @main(";
  for (int i = 0; i < 6; ++i) {
    body += fmt::format("%w{}: Tensor[(8, 8, 3, 3), float32], %b{} : Tensor[(8), float32],", i, i);
  }
  body +=
      " %a.b: Tensor[(8), float32], %c-d: Tensor[(8), float32], %e /* c */: "
      "Tensor[(8), float32], %f: Tensor[(8), float16], %g:Tensor[(8), float32], %h) {\n"
      "  %0 = add(%a.b, %c-d);\n  %1 = add(%0, %g);\n  add(%1, %b5)\n}\n";
  Module mod;
  std::string errors;
  const Function* main = Main(body, mod, &errors);
  ASSERT_NE(main, nullptr) << errors;
  const std::string text = "#[version = \"0.0.5\"]\n" + body;
  auto params = main->params();
  ASSERT_EQ(params.size(), 18u);
  std::vector<std::string> names;
  for (const Var* p : params) {
    names.push_back(std::string(p->name()));
    // Each parameter spans its `%name`.
    EXPECT_EQ(text.substr(p->span().begin, p->span().end - p->span().begin), "%" + names.back());
  }
  EXPECT_EQ(names[12], "a.b");
  EXPECT_EQ(names[13], "c-d");
  EXPECT_EQ(names[17], "h");
  EXPECT_EQ(params[17]->annotation(), nullptr);
  EXPECT_EQ(params[14]->annotation(), params[1]->annotation());
  EXPECT_EQ(params[16]->annotation(), params[1]->annotation());
  EXPECT_EQ(static_cast<const TensorType*>(params[15]->annotation())->dtype(), DataType::Float(16));
}

TEST(ParseFastParams, DuplicatesAreReported) {
  std::string body = "def @main(";
  for (int i = 0; i < 6; ++i) body += fmt::format("%w{}: Tensor[(8), float32], ", i);
  body += "%w2: Tensor[(8), float32], %w9: Tensor[(8), float32]) {\n  %w9\n}\n";
  Module mod;
  std::string errors;
  EXPECT_EQ(Main(body, mod, &errors), nullptr);
  EXPECT_NE(errors.find("duplicate parameter '%w2'"), std::string::npos) << errors;
  EXPECT_NE(errors.find("first declared here"), std::string::npos) << errors;
}

}  // namespace
}  // namespace carve
