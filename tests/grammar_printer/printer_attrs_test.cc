// Call and function attributes: which fields print (non-default ones and
// required ones, in schema order) and how each value type is spelled.
#include "grammar/printer.h"
#include "grammar/printer_text.h"
#include "gtest/gtest.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using print_internal::AppendAttrValue;
using print_internal::AppendStringLiteral;
using testing::TestBuilder;

std::string Value(const AttrValue& v, AttrType type = AttrType::kAny) {
  std::string out;
  AppendAttrValue(&out, v, type);
  return out;
}

TEST(PrinterAttrValue, Scalars) {
  EXPECT_EQ(Value(AttrValue()), "None");
  EXPECT_EQ(Value(AttrValue::Int(3)), "3");
  EXPECT_EQ(Value(AttrValue::Int(-3, 64)), "-3i64");
  EXPECT_EQ(Value(AttrValue::Int(7, 16)), "7i16");
  EXPECT_EQ(Value(AttrValue::Bool(true)), "True");
  EXPECT_EQ(Value(AttrValue::Float(0.5)), "0.5f");
  EXPECT_EQ(Value(AttrValue::Float(1e-5)), "1e-05f");
  EXPECT_EQ(Value(AttrValue::Float(-0.75)), "-0.75f");
  EXPECT_EQ(Value(AttrValue::Float(1.0 / 3)), "0.333333f");
  EXPECT_EQ(Value(AttrValue::Float(-INFINITY)), "-inff");
  EXPECT_EQ(Value(AttrValue::Str("NCHW")), "\"NCHW\"");
}

// C++-typed fields print as TVM's attribute visitor writes them.
TEST(PrinterAttrValue, FieldTypeRefinesTheSpelling) {
  EXPECT_EQ(Value(AttrValue::Int(1), AttrType::kBool), "True");
  EXPECT_EQ(Value(AttrValue::Int(0), AttrType::kBool), "False");
  EXPECT_EQ(Value(AttrValue::Int(6), AttrType::kDouble), "6f");
  EXPECT_EQ(Value(AttrValue::Int(5, 64), AttrType::kInt), "5");
  EXPECT_EQ(Value(AttrValue::Bool(true), AttrType::kInt), "1");
  EXPECT_EQ(Value(AttrValue::Str("int8"), AttrType::kDType), "\"int8\"");
}

TEST(PrinterAttrValue, Arrays) {
  EXPECT_EQ(Value(AttrValue::Ints({1, 1})), "[1, 1]");
  EXPECT_EQ(Value(AttrValue::Ints({})), "[]");
  EXPECT_EQ(Value(AttrValue::Array({AttrValue::Int(1, 64), AttrValue::Int(2, 64)})),
            "[1i64, 2i64]");
  AttrValue nested = AttrValue::Array({AttrValue::Ints({0, 0}), AttrValue::Ints({1, 1})});
  EXPECT_EQ(Value(nested, AttrType::kIntsArray), "[[0, 0], [1, 1]]");
  EXPECT_EQ(Value(AttrValue::Array({AttrValue::Int(0), AttrValue::Float(1.5)}), AttrType::kDoubles),
            "[0f, 1.5f]");
  EXPECT_EQ(Value(AttrValue::Array({AttrValue::Str("a"), AttrValue()})), "[\"a\", None]");
}

TEST(PrinterAttrValue, StringEscapesAsTvm) {
  std::string out;
  AppendStringLiteral(&out, std::string_view("a\"b\\c\n\t\r\x01\xc3\xa9~", 12));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\t\\r\\x01\\xC3\\xA9~\"");
}

// A schema with one field of each kind, to check selection and order.
const AttrsSchema& TestSchema() {
  static const AttrsSchema* schema =
      new AttrsSchema{"relay.attrs.TestAttrs",
                      {
                          {"units", AttrType::kInteger, true, AttrValue()},
                          {"strides", AttrType::kInts, false, AttrValue::Ints({1, 1})},
                          {"alpha", AttrType::kDouble, false, AttrValue::Float(0.25)},
                          {"ceil_mode", AttrType::kBool, false, AttrValue::Bool(false)},
                          {"layout", AttrType::kString, false, AttrValue::Str("NCHW")},
                          {"out_dtype", AttrType::kDType, false, AttrValue::Str("")},
                          {"axis", AttrType::kInt, false, AttrValue::Int(1)},
                      }};
  return *schema;
}

std::string PrintCall(const Expr* callee, const Attrs* attrs) {
  Module mod;
  const Var* x = mod.builder().MakeVar("x");
  std::vector<const Expr*> args = {x};
  return PrintExpr(mod.builder().MakeCall(callee, args, attrs), PrintOptions{false, true, false});
}

const Attrs* Instance(std::vector<std::pair<std::string_view, AttrValue>> changes) {
  const Attrs* attrs = DefaultAttrs(&TestSchema());
  for (const auto& [key, value] : changes) attrs = WithField(attrs, key, value);
  return attrs;
}

TEST(PrinterCallAttrs, DefaultsOmittedRequiredAlwaysPrinted) {
  const Expr* op = GetOp("nn.relu");
  EXPECT_EQ(PrintCall(op, Instance({})), "free_var %x;\nnn.relu(%x, units=None)");
  EXPECT_EQ(PrintCall(op, Instance({{"units", AttrValue::Int(10)}})),
            "free_var %x;\nnn.relu(%x, units=10)");
}

TEST(PrinterCallAttrs, NonDefaultFieldsInSchemaOrder) {
  const Attrs* attrs =
      Instance({{"axis", AttrValue::Int(-1)},
                {"out_dtype", AttrValue::Str("int32")},
                {"layout", AttrValue::Str("NH\"WC")},
                {"ceil_mode", AttrValue::Bool(true)},
                {"alpha", AttrValue::Float(0.01)},
                {"strides", AttrValue::Array({AttrValue::Int(1, 64), AttrValue::Int(1, 64)})},
                {"units", AttrValue::Int(4, 64)}});
  EXPECT_EQ(PrintCall(GetOp("nn.relu"), attrs),
            "free_var %x;\nnn.relu(%x, units=4i64, strides=[1i64, 1i64], alpha=0.01f, "
            "ceil_mode=True, layout=\"NH\\\"WC\", out_dtype=\"int32\", axis=-1)");
  // Equal to the default within TVM's 1e-9 tolerance: omitted.
  EXPECT_EQ(PrintCall(GetOp("nn.relu"), Instance({{"alpha", AttrValue::Float(0.25 + 1e-12)}})),
            "free_var %x;\nnn.relu(%x, units=None)");
}

// A call to a non-op callee names the attrs type so that it can be rebuilt.
TEST(PrinterCallAttrs, NonOpCalleeGetsTypeKey) {
  Module mod;
  const Expr* callee = mod.GetGlobalVar("f");
  EXPECT_EQ(PrintCall(callee, Instance({})),
            "free_var %x;\n@f(%x, units=None, attrs_type_key=\"relay.attrs.TestAttrs\")");
}

TEST(PrinterCallAttrs, RegisteredOps) {
  Module mod;
  TestBuilder b(&mod);
  const Var* x = b.Untyped("x");
  const Var* w = b.Untyped("w");
  const Attrs* conv = DefaultAttrs(FindOp("nn.conv2d")->attrs);
  conv = WithField(conv, "padding", AttrValue::Ints({1, 1, 1, 1}));
  conv = WithField(conv, "channels", AttrValue::Int(4));
  conv = WithField(conv, "kernel_size", AttrValue::Ints({3, 3}));
  const Expr* e = b.Op("nn.conv2d", {x, w}, nullptr, conv);
  e = b.Op("annotation.compiler_end", {e}, nullptr, testing::CompilerAttrs("dnnl"));
  EXPECT_EQ(PrintExpr(e, PrintOptions{false, true, false}),
            "free_var %x;\n"
            "free_var %w;\n"
            "%0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
            "annotation.compiler_end(%0, compiler=\"dnnl\")");
}

TEST(PrinterFunctionAttrs, DictionaryOrderAndValues) {
  Module mod;
  TestBuilder b(&mod);
  const Var* x = b.Untyped("x");
  const Attrs* attrs = testing::FnAttrs({{"PartitionedFromPattern", AttrValue::Str("nn.conv2d_")},
                                         {"Composite", AttrValue::Str("dnnl.conv2d")},
                                         {"Primitive", AttrValue::Int(1)},
                                         {"Wide", AttrValue::Int(2, 64)},
                                         {"Flag", AttrValue::Bool(false)},
                                         {"Scale", AttrValue::Float(2)}});
  EXPECT_EQ(PrintExpr(b.Fn({x}, x, nullptr, attrs), PrintOptions{false, true, false}),
            "fn (%x, PartitionedFromPattern=\"nn.conv2d_\", Composite=\"dnnl.conv2d\", "
            "Primitive=1, Wide=2i64, Flag=False, Scale=2f) {\n"
            "  %x\n"
            "}");
  // Attributes without parameters need no leading comma.
  EXPECT_EQ(
      PrintExpr(b.Fn({}, b.Int(1), nullptr, testing::FnAttrs({{"Inline", AttrValue::Int(1)}})),
                PrintOptions{false, true, false}),
      "fn (Inline=1) {\n"
      "  1\n"
      "}");
}

}  // namespace
}  // namespace carve
