// Variable names: TVM's de-duplication (`%x`, `%x1`, ...), the `v` prefix,
// and the characters replaced so that the text re-parses.
#include <map>
#include <random>

#include "grammar/printer.h"
#include "grammar/printer_names.h"
#include "grammar/printer_text.h"
#include "gtest/gtest.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using print_internal::NameTable;
using print_internal::SanitizeName;
using print_internal::VarNameHint;
using testing::TestBuilder;

constexpr PrintOptions kBare{false, true, false};

// The printed parameter list of `def @f(<names>) { () }`.
std::string Params(std::initializer_list<std::string_view> names) {
  Module mod;
  TestBuilder b(&mod);
  std::vector<const Var*> params;
  for (std::string_view n : names) params.push_back(b.Untyped(n));
  b.Def("f", params, b.Tup({}));
  std::string text = PrintModule(mod, kBare);
  return text.substr(7, text.find(')') - 7);
}

TEST(PrinterNames, DuplicatesGetNumericSuffixes) {
  EXPECT_EQ(Params({"x", "x", "x"}), "%x, %x1, %x2");
  // `x1` is taken by a variable named so: the second `x` skips it.
  EXPECT_EQ(Params({"x1", "x", "x"}), "%x1, %x, %x2");
  EXPECT_EQ(Params({"x", "x", "x1"}), "%x, %x1, %x11");
}

TEST(PrinterNames, NamesNotStartingWithALetterGetAPrefix) {
  EXPECT_EQ(Params({"1", "", "_a", ""}), "%v1, %v, %v_a, %v2");
  EXPECT_EQ(VarNameHint("0x"), "v0x");
  EXPECT_EQ(VarNameHint("data"), "data");
}

TEST(PrinterNames, UnreadableCharactersReplaced) {
  EXPECT_EQ(SanitizeName("conv1.weight"), "conv1.weight");
  EXPECT_EQ(SanitizeName("byoc-target_0_i0"), "byoc-target_0_i0");
  EXPECT_EQ(SanitizeName("base/x"), "base/x");
  EXPECT_EQ(SanitizeName("x.0"), "x_0");  // would read as a projection
  EXPECT_EQ(SanitizeName("a-1"), "a_1");  // would read as a subtraction
  EXPECT_EQ(SanitizeName("a b:c"), "a_b_c");
  EXPECT_EQ(SanitizeName("x."), "x_");
  EXPECT_EQ(SanitizeName("\x01\n"), "__");  // never a marker byte in the text
  EXPECT_EQ(Params({"a b", "a_b"}), "%a_b, %a_b1");
}

// The name table spans the module: a second function's `%x` is `%x1`.
TEST(PrinterNames, TableSpansTheModule) {
  Module mod;
  TestBuilder b(&mod);
  const Var* x = b.Untyped("x");
  b.Def("a", {x}, x);
  const Var* x2 = b.Untyped("x");
  b.Def("b", {x2}, x2);
  EXPECT_EQ(PrintModule(mod, kBare), "def @a(%x) {\n  %x\n}\n\ndef @b(%x1) {\n  %x1\n}\n");
}

// A Var bound twice in one function is renamed at its second binding.
TEST(PrinterNames, VarBoundTwiceIsRenamed) {
  Module mod;
  TestBuilder b(&mod);
  const Var* v = b.Untyped("v");
  const Expr* inner = b.LetIn(v, b.Int(2), v);
  b.Def("main", {}, b.LetIn(v, b.Int(1), b.Op("add", {inner, b.Int(3)})));
  EXPECT_EQ(PrintModule(mod, kBare),
            "def @main() {\n"
            "  let %v = 1;\n"
            "  %0 = (\n"
            "    let %v1 = 2;\n"
            "    %v1\n"
            "  );\n"
            "  add(%0, 3)\n"
            "}\n");
}

// TVM's GetUniqueName over a map of strings: NameTable's reference.
class ReferenceNames {
 public:
  std::string Unique(std::string name) {
    auto it = map_.find(name);
    if (it != map_.end()) {
      while (true) {
        std::string candidate = name + std::to_string(++it->second);
        if (!map_.contains(candidate)) {
          name = candidate;
          break;
        }
      }
    }
    map_[name] = 0;
    return name;
  }

 private:
  std::map<std::string, int> map_;
};

std::string Unique(NameTable& table, std::string_view hint) {
  std::string out;
  table.AppendUnique(hint, &out);
  return out;
}

TEST(PrinterNameTable, StemsAndNumbers) {
  NameTable t;
  EXPECT_EQ(Unique(t, "x0"), "x0");
  EXPECT_EQ(Unique(t, "x"), "x");
  EXPECT_EQ(Unique(t, "x"), "x1");
  EXPECT_EQ(Unique(t, "x0"), "x01");  // (x0, 1): not x1's (x, 1)
  EXPECT_EQ(Unique(t, "x0"), "x02");
  EXPECT_EQ(Unique(t, "x00"), "x00");
  EXPECT_EQ(Unique(t, "x00"), "x001");
  EXPECT_EQ(Unique(t, "x"), "x2");
  EXPECT_TRUE(t.Contains("x01"));
  EXPECT_FALSE(t.Contains("x3"));
  EXPECT_FALSE(t.Contains("x000"));
  // Runs longer than a decomposition's number.
  EXPECT_EQ(Unique(t, "y12345678901"), "y12345678901");
  EXPECT_EQ(Unique(t, "y12345678901"), "y123456789011");
  EXPECT_FALSE(t.Contains("y1234567890"));
  EXPECT_EQ(Unique(t, "y1234567890"), "y1234567890");
  // Numbers far beyond a stem's bitset.
  EXPECT_EQ(Unique(t, "z999999"), "z999999");
  EXPECT_EQ(Unique(t, "z9999991"), "z9999991");
  EXPECT_EQ(Unique(t, "z999999"), "z9999992");  // z9999991 is taken
  EXPECT_EQ(Unique(t, "z"), "z");
  EXPECT_EQ(Unique(t, "z"), "z1");
  EXPECT_EQ(Unique(t, ""), "");
  EXPECT_EQ(Unique(t, ""), "1");
  EXPECT_EQ(Unique(t, "1"), "11");
}

// Random names over few stems, digits and zeros collide in every way the
// decomposition distinguishes; the table must agree with TVM's map.
TEST(PrinterNameTable, AgreesWithTvmMap) {
  std::mt19937 rng(7);
  const char* stems[] = {"p", "x", "x0", "FunctionVar_1_", "a_b", ""};
  for (int round = 0; round < 4; ++round) {
    NameTable table;
    ReferenceNames reference;
    for (int i = 0; i < 20000; ++i) {
      std::string hint = stems[rng() % 6];
      switch (rng() % 5) {
        case 0:
          break;
        case 1:
          hint += std::to_string(rng() % 50);
          break;
        case 2:
          hint += "0" + std::to_string(rng() % 20);
          break;
        case 3:
          hint += std::to_string(rng() % (round == 3 ? 100000000u : 5000u));
          break;
        default:
          hint += std::to_string(i);  // dense, in order
      }
      ASSERT_EQ(Unique(table, hint), reference.Unique(hint)) << "hint " << hint;
    }
  }
}

// Thousands of stems (the table grows and moves while counters are kept in
// it), stems longer than an entry holds, and names whose counters pass 255.
TEST(PrinterNameTable, ManyStemsAgreeWithTvmMap) {
  std::mt19937 rng(11);
  NameTable table;
  ReferenceNames reference;
  const std::string long_stem(40, 'q');
  for (int i = 0; i < 60000; ++i) {
    std::string hint;
    switch (rng() % 4) {
      case 0:  // composite-like parameters: a new stem, then again
        hint = "FunctionVar_" + std::to_string(rng() % 8000) + "_" + std::to_string(rng() % 3);
        break;
      case 1:
        hint = long_stem + std::to_string(rng() % 700) + "_";
        break;
      case 2:
        hint = "h" + std::to_string(rng() % 3);  // counters far beyond 255
        break;
      default:
        hint = "s" + std::to_string(rng() % 30000) + "x";
    }
    ASSERT_EQ(Unique(table, hint), reference.Unique(hint)) << "hint " << hint;
  }
}

// Stems of 64 KiB and more are found again (a 16-bit stored length wrapped
// and every use of such a name looked free).
TEST(PrinterNameTable, StemsLongerThan64KiB) {
  NameTable t;
  const std::string stem(70000, 's');
  EXPECT_EQ(Unique(t, stem), stem);
  EXPECT_TRUE(t.Contains(stem));
  EXPECT_FALSE(t.Contains(stem + "1"));
  EXPECT_EQ(Unique(t, stem), stem + "1");
  EXPECT_EQ(Unique(t, stem + "7"), stem + "7");
  EXPECT_EQ(Unique(t, stem), stem + "2");
  const std::string at_limit(65536, 'u');  // wrapped to 0
  EXPECT_EQ(Unique(t, at_limit), at_limit);
  EXPECT_EQ(Unique(t, ""), "");
  EXPECT_EQ(Unique(t, at_limit), at_limit + "1");
}

// The printer renames a let whose 65,540-byte name a parameter already took.
TEST(PrinterNames, LongNamesStillDeduplicated) {
  Module mod;
  TestBuilder b(&mod);
  const std::string name(65540, 'a');
  const Var* x = b.Untyped(name);
  const Var* y = b.Untyped(name);
  b.Def("main", {x}, b.LetIn(y, x, y));
  EXPECT_EQ(PrintModule(mod, kBare), "def @main(%" + name + ") {\n  let %" + name + "1 = %" +
                                         name + ";\n  %" + name + "1\n}\n");
}

TEST(PrinterNames, GlobalNamesSanitised) {
  Module mod;
  TestBuilder b(&mod);
  b.Def("f g", {}, b.CallGlobal("f g", {}));
  EXPECT_EQ(PrintModule(mod, kBare), "def @f_g() {\n  @f_g()\n}\n");
}

}  // namespace
}  // namespace carve
