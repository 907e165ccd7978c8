// Constants: inline scalars of each printable dtype, everything else as
// meta[relay.Constant][i] numbered in order of first print, and the
// #[metadata] section (or TVM's note that it was omitted).
#include <cmath>

#include "grammar/metadata.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using testing::F32;
using testing::TestBuilder;

constexpr PrintOptions kBare{false, true, false};

std::string Scalar(DataType dtype, double value) {
  Module mod;
  return PrintExpr(mod.builder().MakeScalar(dtype, value), kBare);
}

TEST(PrinterScalars, EachPrintableDtype) {
  EXPECT_EQ(Scalar(DataType::Int(32), 42), "42");
  EXPECT_EQ(Scalar(DataType::Int(32), -5), "-5");
  EXPECT_EQ(Scalar(DataType::Int(16), 42), "42i16");
  EXPECT_EQ(Scalar(DataType::Int(64), 9000000000.0), "9000000000i64");
  EXPECT_EQ(Scalar(DataType::Float(32), 3), "3f");
  EXPECT_EQ(Scalar(DataType::Float(32), 2.5), "2.5f");
  EXPECT_EQ(Scalar(DataType::Float(32), 1e-5), "1e-05f");
  EXPECT_EQ(Scalar(DataType::Float(32), 1.0 / 3), "0.333333f");
  EXPECT_EQ(Scalar(DataType::Float(32), 3.4028234e38), "3.40282e+38f");
  EXPECT_EQ(Scalar(DataType::Float(32), -INFINITY), "-inff");
  EXPECT_EQ(Scalar(DataType::Float(32), INFINITY), "inff");
  EXPECT_EQ(Scalar(DataType::Float(16), 0.5), "0.5f16");
  EXPECT_EQ(Scalar(DataType::Float(16), 0.1), "0.0999756f16");  // the half value
  EXPECT_EQ(Scalar(DataType::Float(64), 0.001), "0.001f64");
  EXPECT_EQ(Scalar(DataType::Float(64), 1234567.0), "1.23457e+06f64");
  EXPECT_EQ(Scalar(DataType::Bool(), 1), "True");
  EXPECT_EQ(Scalar(DataType::Bool(), 0), "False");
}

TEST(PrinterScalars, OtherDtypesGoToMetadata) {
  for (DataType dtype : {DataType::Int(8), DataType::UInt(8), DataType::UInt(32)}) {
    std::string text = Scalar(dtype, 3);
    EXPECT_EQ(text.substr(0, text.find('\n')), "meta[relay.Constant][0]") << dtype.ToString();
  }
}

// Constants are numbered when first printed; a constant used twice keeps its
// number; distinct nodes with equal data get their own.
TEST(PrinterMeta, NumberedInPrintOrder) {
  Module mod;
  TestBuilder b(&mod);
  const Var* x = b.Param("x", F32({2}));
  const Constant* c0 = b.Tensor(NDArray::Empty(DataType::Float(32), {2}), F32({2}));
  const Constant* c1 = b.Tensor(NDArray::Empty(DataType::Float(32), {2}), F32({2}));
  const Expr* e = b.Op("add", {b.Op("multiply", {x, c1}, F32({2})), c0}, F32({2}));
  b.Def("main", {x}, b.Op("subtract", {e, c1}, F32({2})), F32({2}));
  PrintOptions options;
  options.show_types = true;
  options.show_metadata = false;
  EXPECT_EQ(PrintModule(mod, options),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2), float32] /* ty=Tensor[(2), float32] */) -> "
            "Tensor[(2), float32] {\n"
            "  %0 = multiply(%x, meta[relay.Constant][0] /* ty=Tensor[(2), float32] */) "
            "/* ty=Tensor[(2), float32] */;\n"
            "  %1 = add(%0, meta[relay.Constant][1] /* ty=Tensor[(2), float32] */) "
            "/* ty=Tensor[(2), float32] */;\n"
            "  subtract(%1, meta[relay.Constant][0] /* ty=Tensor[(2), float32] */) "
            "/* ty=Tensor[(2), float32] */\n"
            "}\n"
            "\n"
            "/* For debugging purposes the metadata section has been omitted.\n"
            " * If you would like to see the full metadata section you can set the \n"
            " * option to `True` when invoking `astext`. \n"
            " */");
}

TEST(PrinterMeta, SectionHoldsTheConstantsInOrder) {
  Module mod;
  TestBuilder b(&mod);
  NDArray first = NDArray::Empty(DataType::Float(32), {2, 3});
  for (int i = 0; i < 6; ++i) first.SetFromDouble(i, i + 1);
  NDArray second = NDArray::Scalar(DataType::Int(8), -3);
  const Expr* body =
      b.Tup({b.Tensor(first, F32({2, 3})), b.Tensor(second, ScalarTy(DataType::Int(8)))});
  b.Def("main", {}, body);
  std::string text = PrintModule(mod);
  std::string program =
      "#[version = \"0.0.5\"]\n"
      "def @main() {\n"
      "  (meta[relay.Constant][0], meta[relay.Constant][1])\n"
      "}\n"
      "\n"
      "#[metadata]\n";
  ASSERT_EQ(text.substr(0, program.size()), program);
  absl::StatusOr<Metadata> meta = ParseMetadata(text.substr(program.size()));
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_EQ(meta->constants.size(), 2u);
  EXPECT_TRUE(meta->constants[0].BitwiseEqual(first));
  EXPECT_TRUE(meta->constants[1].BitwiseEqual(second));
  EXPECT_EQ(text.substr(program.size()), WriteMetadata({first, second}));
}

// An expression's section follows its last line directly (TVM's AsText).
TEST(PrinterMeta, ExpressionSection) {
  Module mod;
  NDArray data = NDArray::Empty(DataType::Float(32), {1});
  std::string text = PrintExpr(mod.builder().MakeConstant(data), kBare);
  EXPECT_EQ(text, "meta[relay.Constant][0]\n#[metadata]\n" + WriteMetadata({data}));
}

TEST(PrinterMeta, NoSectionWithoutConstants) {
  Module mod;
  TestBuilder b(&mod);
  b.Def("main", {}, b.Int(1));
  EXPECT_EQ(PrintModule(mod), "#[version = \"0.0.5\"]\ndef @main() {\n  1\n}\n");
}

}  // namespace
}  // namespace carve
