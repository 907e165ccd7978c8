// The parser's raw-text fast paths (grammar/parse_fast.cc) and the memos of
// recent texts they rest on: every text reads exactly as the general path
// reads it (the same nodes and spans, the same diagnostics at the same
// places), checked by parsing each text with the memos and without them
// (parser_internal::no_recent_memos_for_testing).
#include <string>
#include <unordered_map>

#include "fmt/format.h"
#include "grammar/parser.h"
#include "grammar/parser_impl.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "test_util.h"

namespace carve {
namespace {

using testing_util::Locations;

constexpr char kHeader[] = "#[version = \"0.0.5\"]\n";

// Every node of a module in evaluation order with its kind and span; a node
// met again (a graph binding used twice, a parameter) is written as its
// first visit's number, so the sharing is compared too.
class Dumper {
 public:
  std::string Module(const carve::Module& mod) {
    for (const auto& [global, fn] : mod.Functions()) {
      out_ += fmt::format("@{}: ", global->name());
      Node(fn);
      out_ += "\n";
    }
    return out_;
  }

 private:
  void Node(const Expr* e) {
    auto [it, inserted] = ids_.emplace(e, ids_.size());
    if (!inserted) {
      out_ += fmt::format("#{} ", it->second);
      return;
    }
    const Span span = e->span();
    out_ += fmt::format("({} {}-{}", int(e->kind()), span.begin, span.end);
    if (auto* var = DynCast<Var>(e)) out_ += fmt::format(" %{}", var->name());
    if (auto* op = DynCast<OpExpr>(e)) out_ += fmt::format(" {}", op->name());
    if (e->checked_type() != nullptr) out_ += " typed";
    out_ += " ";
    ForEachChild(e, [this](const Expr* child) { Node(child); });
    out_ += ") ";
  }

  std::unordered_map<const Expr*, size_t> ids_;
  std::string out_;
};

// A parse's nodes, spans and printed text, or its diagnostics.
std::string Reading(const std::string& text) {
  auto m = ParseModule("t.relay", text);
  if (!m.ok()) return "ERRORS\n" + Locations(m.status());
  PrintOptions options;
  options.show_types = true;
  return Dumper().Module(*m) + PrintModule(*m, options);
}

// The reading of `text` with the memos and fast paths, after checking that
// it is the general path's reading.
std::string ReadBothWays(const std::string& text) {
  parser_internal::no_recent_memos_for_testing = true;
  const std::string general = Reading(text);
  parser_internal::no_recent_memos_for_testing = false;
  const std::string fast = Reading(text);
  EXPECT_EQ(fast, general) << "text:\n" << text;
  return fast;
}

// A graph of `lines` bindings whose lines have the fast path's shape (and
// some that stop it: literals, projections, nested calls, comments), with
// parameters whose types repeat.
std::string GraphText(int lines) {
  std::string text = kHeader;
  text += "def @main(%x: Tensor[(1, 8, 4, 4), float32], %w: Tensor[(8, 8, 3, 3), float32], "
          "%b: Tensor[(8), float32],\n    %w2: Tensor[(8, 8, 3, 3), float32], "
          "%b2: Tensor[(8), float32], %w.k: Tensor[(8, 8, 3, 3), float32]) {\n";
  text += "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);\n";
  for (int i = 1; i < lines; ++i) {
    const int prev = i - 1;
    switch (i % 7) {
      case 0:
        text += fmt::format("  %{} = nn.conv2d(%{}, %w2, padding=[1, 1, 1, 1], channels=8, "
                            "kernel_size=[3, 3]);\n",
                            i, prev);
        break;
      case 1:
        text += fmt::format("  %{} = nn.bias_add(%{},   %b2 );\n", i, prev);
        break;
      case 2:
        text += fmt::format("  %{}=nn.relu(%{});   // a comment\n", i, prev);
        break;
      case 3:
        text += fmt::format("  %{} = add(%{}, 1f);\n", i, prev);
        break;
      case 4:
        text += fmt::format("  %{} = nn.conv2d(%{}, %w.k, padding=[1, 1, 1, 1], channels=8, "
                            "kernel_size=[3, 3]) ;\n",
                            i, prev);
        break;
      case 5:
        text += fmt::format("  %{} = (%{}, %{});\n", i, prev, prev);
        text += fmt::format("  %{} = nn.relu(%{}.0);\n", i + 100000, i);
        text += fmt::format("  %{} = nn.relu(%{});\n", i + 200000, i + 100000);
        text += fmt::format("  %{} = add(%{}, %{});\n", i + 300000, i + 200000, i + 100000);
        text += fmt::format("  %{} = multiply(%{}, %{});\n", i + 400000, i + 300000, i + 300000);
        break;
      default:
        text += fmt::format("  %{} = add(%{}, %{});\n", i, i - 2 < 0 ? 0 : i - 2, prev);
    }
  }
  text += fmt::format("  %{}\n}}\n", lines - 1);
  text += "def @second(%p: Tensor[(8), float32], %q: Tensor[(8), float32], "
          "%r: Tensor[(8, 8, 3, 3), float32]) {\n"
          "  %0 = add(%p, %q);\n  %1 = add(%0, %q);\n  %2 = nn.relu(%1);\n  %2\n}\n";
  return text;
}

TEST(ParserFast, ReadsAsTheGeneralPath) {
  const std::string reading = ReadBothWays(GraphText(200));
  EXPECT_EQ(reading.find("ERRORS"), std::string::npos) << reading;
}

// A duplicate binding inside a run of fast lines: the `%N` span comes from
// NextFastBindingHead.
TEST(ParserFast, DuplicateBindingInAFastRun) {
  const std::string text = std::string(kHeader) +
                           "def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {\n"
                           "  %0 = add(%x, %y);\n"
                           "  %1 = add(%0, %y);\n"
                           "  %2 = add(%1, %0);\n"
                           "    %1 = add(%2, %0);\n"
                           "  %3 = add(%1, %2);\n"
                           "  %3\n"
                           "}\n";
  EXPECT_EQ(ReadBothWays(text),
            "ERRORS\n"
            "6:5: graph variable '%1' is already bound\n"
            "  note 4:8: previous binding is here\n");
}

// `%N` with more digits than the unchecked scan takes leaves the fast path:
// 19 digits still fit int64, 20 do not.
TEST(ParserFast, LongGraphNumbers) {
  const std::string head = std::string(kHeader) +
                           "def @main(%x: Tensor[(4), float32]) {\n"
                           "  %0 = add(%x, %x);\n"
                           "  %1 = add(%0, %0);\n";
  const std::string nineteen = "1234567890123456789";
  const std::string reading = ReadBothWays(head + "  %" + nineteen + " = add(%1, %0);\n" +
                                           "  %2 = add(%" + nineteen + ", %1);\n  %2\n}\n");
  EXPECT_EQ(reading.find("ERRORS"), std::string::npos) << reading;
  EXPECT_EQ(ReadBothWays(head + "  %12345678901234567890 = add(%1, %0);\n  %1\n}\n"),
            "ERRORS\n5:3: graph variable number is too large\n"
            "5:25: expected '}' after the function body\n"
            "  note 2:37: to close '{' here\n");
  EXPECT_EQ(ReadBothWays(head + "  %2 = add(%1, %12345678901234567890);\n  %2\n}\n"),
            "ERRORS\n5:16: graph variable number is too large\n");
}

// The text ends inside a line the fast path would read: it reads nothing of
// it, and the general path reports what is missing where it is missing.
TEST(ParserFast, EndOfTextInsideAFastLine) {
  const std::string head = std::string(kHeader) +
                           "def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {\n"
                           "  %0 = add(%x, %y);\n"
                           "  %1 = add(%0, %y);\n";
  for (const char* tail : {"  %2 = add(%1, %0", "  %2 = add(%1, %0)", "  %2 = add(%1, ",
                           "  %2 = add(%1,", "  %2 = add(", "  %2 = add", "  %2 = ", "  %2",
                           "  %2 = add(%1, %0);", "  %2 = add(%1, %0);\n  %3 = add(%2",
                           "def @f(%a: Tensor[(4), float32], %b: Tensor[(4), float32]",
                           "def @f(%a: Tensor[(4), float32], %b: Tensor[(4), float32],",
                           "def @f(%a: Tensor[(4), float32], %b: Tensor[(4), float32"}) {
    const std::string reading = ReadBothWays(head + tail);
    EXPECT_EQ(reading.rfind("ERRORS\n", 0), 0u) << tail;
  }
  EXPECT_EQ(ReadBothWays(head + "  %2 = add(%1, %0"),
            "ERRORS\n5:18: expected ')' after call arguments\n"
            "  note 5:11: to close '(' here\n");
}

// Shapes the fast path declines, each read by the general path as before.
TEST(ParserFast, DeclinedShapesReadAsTheGeneralPath) {
  const std::string head = std::string(kHeader) +
                           "def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {\n"
                           "  %0 = add(%x, %y);\n"
                           "  %1 = add(%0, %y);\n";
  for (const char* line :
       {"  %2 = add(%1, %0,);\n  %2\n}\n", "  %2 = add(%1, %undefined);\n  %2\n}\n",
        "  %2 = add(%1 %0);\n  %2\n}\n", "  %2 == add(%1, %0);\n  %2\n}\n",
        "  %2 = add(%1, %0) /* c */;\n  %2\n}\n", "  %2 = add(%1, %0)\n  %2\n}\n",
        "  %2 = add(%1, %9);\n  %2\n}\n", "  %2a = add(%1, %0);\n  %2\n}\n",
        "  %2 = add(%1, %0); %2 = add(%1, %0);\n  %2\n}\n"}) {
    ReadBothWays(head + line);
  }
}

}  // namespace
}  // namespace carve
