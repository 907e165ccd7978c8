// The parser's table of local variables (grammar/parser_locals.h) and the
// scoping behaviour the parser builds on it.
#include "grammar/parser_locals.h"

#include <deque>
#include <string>

#include "fmt/format.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"

namespace carve::parser_internal {
namespace {

class LocalTableTest : public testing::Test {
 protected:
  // Names live in `text_`, as the parser's do, or elsewhere.
  const Var* NewVar(std::string_view name) { return &vars_.emplace_back(name, nullptr, Span{}); }
  std::deque<Var> vars_;
};

TEST_F(LocalTableTest, FindsShortAndLongNames) {
  const std::string text = "%a %abcdefg %abcdefgh %resnet_model/conv2d_15/kernel";
  LocalTable table(text);
  EXPECT_EQ(table.Find("a"), nullptr);
  const Var* a = NewVar(std::string_view(text).substr(1, 1));
  const Var* seven = NewVar(std::string_view(text).substr(4, 7));
  const Var* eight = NewVar(std::string_view(text).substr(13, 8));
  const Var* long_name = NewVar(std::string_view(text).substr(23));
  for (const Var* v : {a, seven, eight, long_name}) EXPECT_EQ(table.Bind(v), nullptr);
  EXPECT_EQ(table.size(), 4u);
  // Keys are exact: prefixes and names outside the text are told apart.
  EXPECT_EQ(table.Find("a"), a);
  EXPECT_EQ(table.Find(std::string("abcdefg")), seven);
  EXPECT_EQ(table.Find("abcdefgh"), eight);
  EXPECT_EQ(table.Find("resnet_model/conv2d_15/kernel"), long_name);
  EXPECT_EQ(table.Find("abcdef"), nullptr);
  EXPECT_EQ(table.Find("abcdefghi"), nullptr);
  EXPECT_EQ(table.Find("resnet_model/conv2d_16/kernel"), nullptr);
  EXPECT_EQ(table.Find(""), nullptr);
}

TEST_F(LocalTableTest, RebindsAndRestores) {
  LocalTable table("");
  const Var* outer = NewVar("x");
  const Var* inner = NewVar("x");
  EXPECT_EQ(table.Bind(outer), nullptr);
  EXPECT_EQ(table.Bind(inner), outer);
  EXPECT_EQ(table.Find("x"), inner);
  table.Restore("x", outer);
  EXPECT_EQ(table.Find("x"), outer);
  table.Restore("x", nullptr);
  EXPECT_EQ(table.Find("x"), nullptr);
  EXPECT_TRUE(table.empty());
}

TEST_F(LocalTableTest, ErasesInsideProbeRunsAndGrows) {
  // Enough names to grow many times and to form long probe runs; erasing
  // every other one must keep the rest findable (backward-shift deletion).
  LocalTable table("");
  std::deque<std::string> names;
  for (int i = 0; i < 5000; ++i) {
    names.push_back(i % 2 ? fmt::format("p{}", i) : fmt::format("FunctionVar_{}_{}", i, i % 7));
    EXPECT_EQ(table.Bind(NewVar(names.back())), nullptr);
  }
  EXPECT_EQ(table.size(), 5000u);
  EXPECT_GE(table.capacity() * 7, table.size() * 8);
  for (int i = 0; i < 5000; i += 2) table.Restore(names[i], nullptr);
  for (int i = 0; i < 5000; ++i) {
    const Var* v = table.Find(names[i]);
    if (i % 2) {
      ASSERT_NE(v, nullptr) << names[i];
      EXPECT_EQ(v->name(), names[i]);
    } else {
      EXPECT_EQ(v, nullptr) << names[i];
    }
  }
  table.Clear();
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.Find("p1"), nullptr);
}

TEST_F(LocalTableTest, ReserveMakesRoomAtOnce) {
  LocalTable table("");
  table.Reserve(57139);
  const size_t capacity = table.capacity();
  EXPECT_EQ(capacity, 65536u);
  std::deque<std::string> names;
  for (int i = 0; i < 57139; ++i) table.Bind(NewVar(names.emplace_back(fmt::format("w{}", i))));
  EXPECT_EQ(table.capacity(), capacity);
  EXPECT_EQ(table.Find("w57138")->name(), "w57138");
}

// The parser tries the parameter after the last one it found first; uses in
// any order, shadowing and nested scopes must still find the innermost
// binding.
TEST(ParserLocals, UsesInAnyOrderAndShadowing) {
  auto mod = ParseModule("t.relay",
                         "#[version = \"0.0.5\"]\n"
                         "def @main(%a: int32, %b: int32, %c: int32) {\n"
                         "  %0 = add(%b, %a);\n"
                         "  %1 = add(%0, %c);\n"
                         "  %2 = add(%a, %a);\n"
                         "  let %b = add(%1, %2);\n"
                         "  let %f = fn (%c: int32, %a: int32) { add(%c, %b) };\n"
                         "  %f(%a, %c)\n"
                         "}\n");
  ASSERT_TRUE(mod.ok()) << mod.status();
  const Function* main = mod->Lookup("main");
  auto params = main->params();
  const Let* let_b = Cast<Let>(main->body());
  const Call* sum = Cast<Call>(let_b->value());
  const Call* c1 = Cast<Call>(sum->args()[0]);
  const Call* c0 = Cast<Call>(c1->args()[0]);
  EXPECT_EQ(c0->args()[0], params[1]);
  EXPECT_EQ(c0->args()[1], params[0]);
  EXPECT_EQ(c1->args()[1], params[2]);
  const Call* c2 = Cast<Call>(sum->args()[1]);
  EXPECT_EQ(c2->args()[0], params[0]);
  EXPECT_EQ(c2->args()[1], params[0]);
  const Let* let_f = Cast<Let>(let_b->body());
  const Function* f = Cast<Function>(let_f->value());
  const Call* inner = Cast<Call>(f->body());
  EXPECT_EQ(inner->args()[0], f->params()[0]);  // the literal's %c
  EXPECT_EQ(inner->args()[1], let_b->var());    // the let's %b
  const Call* call_f = Cast<Call>(let_f->body());
  EXPECT_EQ(call_f->args()[0], params[0]);  // the scope of %f's params is closed
  EXPECT_EQ(call_f->args()[1], params[2]);
}

TEST(ParserLocals, DuplicateParametersOnlyWithinOneSignature) {
  // A function literal's parameter may shadow an outer one...
  EXPECT_TRUE(ParseModule("t.relay",
                          "#[version = \"0.0.5\"]\n"
                          "def @main(%x: int32) { let %f = fn (%x: int32) { %x }; %f(%x) }\n")
                  .ok());
  // ... but not another of its own.
  auto dup = ParseModule("t.relay",
                         "#[version = \"0.0.5\"]\n"
                         "def @main(%x: int32) { let %f = fn (%y: int32, %y: int32) { %y }; %f(%x) }\n");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(std::string(dup.status().message()).find("duplicate parameter '%y'"),
            std::string::npos)
      << dup.status();
}

}  // namespace
}  // namespace carve::parser_internal
