// Elementwise (§1-§5), reductions (§13), QNN (§14) and annotation (§15)
// relations.
#include <gtest/gtest.h>

#include "tests/ir_ops/rel_test_util.h"

namespace carve::testing {
namespace {

TEST(ElementwiseRelTest, Broadcast) {
  EXPECT_EQ(Infer("add", {T({1, 3}), T({2, 1})}), "Tensor[(2, 3), float32]");
  EXPECT_EQ(Infer("multiply", {T({}), T({4, 5})}), "Tensor[(4, 5), float32]");
  EXPECT_EQ(Infer("add", {T({1, 3}), T({4})}), "error: cannot broadcast (1, 3) and (4,)");
  EXPECT_EQ(Infer("subtract", {T({kAny, 3}), T({4, 1})}), "Tensor[(4, 3), float32]");
  EXPECT_EQ(Infer("add", {T({2}), T({2}, kI32)}), "error: dtype mismatch: float32 and int32");
  EXPECT_EQ(Infer("less", {T({2, 1}), T({3})}), "Tensor[(2, 3), bool]");
  EXPECT_EQ(Infer("logical_and", {T({2}, DataType::Bool()), T({2}, DataType::Bool())}),
            "Tensor[(2), bool]");
}

TEST(ElementwiseRelTest, UnaryAndComparisons) {
  EXPECT_EQ(Infer("exp", {T({2, 3})}), "Tensor[(2, 3), float32]");
  EXPECT_EQ(Infer("isnan", {T({2, 3})}), "Tensor[(2, 3), bool]");
  EXPECT_EQ(Infer("clip", {T({2})}, {{"a_min", Float(0)}, {"a_max", Float(6)}}),
            "Tensor[(2), float32]");
  EXPECT_EQ(Infer("zeros_like", {T({2}, kI32)}), "Tensor[(2), int32]");
}

TEST(ElementwiseRelTest, CastWhereAndConstants) {
  EXPECT_EQ(Infer("cast", {T({2, 3})}, {{"dtype", Str("float16")}}), "Tensor[(2, 3), float16]");
  EXPECT_EQ(Infer("cast", {T({2, 3})}), "error: attribute 'dtype' must be set");
  EXPECT_EQ(Infer("where", {T({2, 1}, DataType::Bool()), T({3}), T({1})}),
            "Tensor[(2, 3), float32]");
  EXPECT_EQ(Infer("where", {T({2}, DataType::Bool()), T({2}), T({2}, kI32)}),
            "error: x and y must have the same dtype, got float32 and int32");
  EXPECT_EQ(Infer("zeros", {}, {{"shape", Ints({2, 3})}, {"dtype", Str("float32")}}),
            "Tensor[(2, 3), float32]");
  EXPECT_EQ(Infer("ones", {},
                  {{"shape", AttrValue::Array({AttrValue::Int(4, 64)})}, {"dtype", Str("int64")}}),
            "Tensor[(4i64), int64]");
  EXPECT_EQ(Infer("zeros", {}, {{"dtype", Str("float32")}}),
            "error: attribute 'shape' must be set");
  EXPECT_EQ(Infer("full", {T({}, kI32)}, {{"shape", Ints({2})}}), "Tensor[(2), int32]");
  EXPECT_EQ(Infer("full", {T({1})}, {{"shape", Ints({2})}}),
            "error: fill_value must be a scalar, got Tensor[(1), float32]");
}

TEST(ReduceRelTest, AxisKeepdimsExclude) {
  const TensorType* x = T({2, 3, 4});
  EXPECT_EQ(Infer("sum", {x}), "float32");
  EXPECT_EQ(Infer("sum", {x}, {{"axis", Ints({})}}), "float32");
  EXPECT_EQ(Infer("mean", {x}, {{"axis", Ints({1})}}), "Tensor[(2, 4), float32]");
  EXPECT_EQ(Infer("max", {x}, {{"axis", Ints({-1, 0})}, {"keepdims", Bool(true)}}),
            "Tensor[(1, 3, 1), float32]");
  EXPECT_EQ(Infer("min", {x}, {{"axis", Ints({1})}, {"exclude", Bool(true)}}),
            "Tensor[(3), float32]");
  EXPECT_EQ(Infer("prod", {x}, {{"axis", Ints({0, 1, 2})}, {"exclude", Bool(true)}}),
            "Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(Infer("sum", {x}, {{"axis", Ints({3})}}), "error: axis 3 is out of range for rank 3");
  EXPECT_EQ(Infer("sum", {x}, {{"axis", Ints({1, -2})}}),
            "error: duplicate axis 1 in axis [1, -2]");
  EXPECT_EQ(Infer("sum", {T({kAny, 3})}, {{"axis", Ints({1})}}), "Tensor[(?), float32]");
}

TEST(ReduceRelTest, ArgmaxAndVariance) {
  EXPECT_EQ(Infer("argmax", {T({2, 3})}, {{"axis", Ints({1})}}), "Tensor[(2), int32]");
  EXPECT_EQ(Infer("argmin", {T({2, 3})}), "int32");
  // The index dtype follows the dtype of the first extent.
  EXPECT_EQ(Infer("argmax", {TWide({2, 3})}, {{"axis", Ints({1})}, {"keepdims", Bool(true)}}),
            "Tensor[(2i64, 1), int64]");
  EXPECT_EQ(Infer("argmax", {T({})}), "error: expected input of rank >= 1, got float32");
  EXPECT_EQ(Infer("variance", {T({2, 5}), T({2, 1})}, {{"axis", Ints({1})}}),
            "Tensor[(2), float32]");
  EXPECT_EQ(Infer("variance", {T({2, 5}), T({2})}, {{"axis", Ints({1})}}),
            "error: mean must have the rank of the data (2), got Tensor[(2), float32]");
}

TEST(QnnRelTest, QuantizeDequantize) {
  EXPECT_EQ(Infer("qnn.quantize", {T({1, 5}), T({}), T({}, kI32)}, {{"out_dtype", Str("int8")}}),
            "Tensor[(1, 5), int8]");
  EXPECT_EQ(Infer("qnn.quantize", {T({1, 4}), T({4}), T({4}, kI32)}, {{"out_dtype", Str("uint8")}}),
            "Tensor[(1, 4), uint8]");
  EXPECT_EQ(Infer("qnn.quantize", {T({1, 4}), T({3}), T({}, kI32)}, {{"out_dtype", Str("int8")}}),
            "error: expected output_scale to be a scalar or of type Tensor[(4), float32], got "
            "Tensor[(3), float32]");
  EXPECT_EQ(
      Infer("qnn.quantize", {T({1, 4}, kI32), T({}), T({}, kI32)}, {{"out_dtype", Str("int8")}}),
      "error: expected input dtype in (float32), got int32");
  EXPECT_EQ(Infer("qnn.quantize", {T({1, 4}), T({}), T({}, kI32)}),
            "error: expected out_dtype dtype in (int8, uint8, int16, uint16, int32), got void");
  EXPECT_EQ(Infer("qnn.dequantize", {T({1, 4}, kU8), T({}), T({}, kI32)},
                  {{"out_dtype", Str("float32")}}),
            "Tensor[(1, 4), float32]");
  EXPECT_EQ(
      Infer("qnn.dequantize", {T({1, 4}, kU8), T({}), T({}, kI8)}, {{"out_dtype", Str("float32")}}),
      "error: expected input_zero_point of dtype int32, got int8");
}

TEST(QnnRelTest, Requantize) {
  EXPECT_EQ(Infer("qnn.requantize", {T({1, 4}, kI8), T({}), T({}, kI32), T({}), T({}, kI32)},
                  {{"out_dtype", Str("int8")}}),
            "Tensor[(1, 4), int8]");
  EXPECT_EQ(Infer("qnn.requantize", {T({1, 4}, kI32), T({4}), T({4}, kI32), T({}), T({}, kI32)},
                  {{"out_dtype", Str("uint8")}}),
            "Tensor[(1, 4), uint8]");
  // The C++ default out_dtype (void) is rejected, as in TVM.
  EXPECT_EQ(Infer("qnn.requantize", {T({1, 4}, kI8), T({}), T({}, kI32), T({}), T({}, kI32)}),
            "error: expected out_dtype dtype in (int8, uint8, int16, int32), got void");
  EXPECT_EQ(Infer("qnn.requantize", {T({1, 4}, kI8), T({}), T({}, kI32), T({4}), T({}, kI32)},
                  {{"out_dtype", Str("int8")}}),
            "error: expected output_scale to be a scalar float32, got Tensor[(4), float32]");
}

TEST(QnnRelTest, Conv2D) {
  // Call order: data, weight, input_zp, kernel_zp, input_scale, kernel_scale.
  Fields attrs = {{"out_dtype", Str("int32")},
                  {"channels", Int(8)},
                  {"kernel_size", Ints({3, 3})},
                  {"padding", Ints({1, 1, 1, 1})}};
  EXPECT_EQ(
      Infer("qnn.conv2d",
            {T({1, 4, 8, 8}, kU8), T({8, 4, 3, 3}, kI8), T({}, kI32), T({}, kI32), T({}), T({8})},
            attrs),
      "Tensor[(1, 8, 8, 8), int32]");
  EXPECT_EQ(
      Infer("qnn.conv2d",
            {T({1, 4, 8, 8}, kU8), T({8, 4, 3, 3}, kI8), T({}, kI32), T({}, kI32), T({}), T({4})},
            attrs),
      "error: expected kernel_scale to be a scalar or of type Tensor[(8), float32], got "
      "Tensor[(4), float32]");
  EXPECT_EQ(
      Infer("qnn.conv2d",
            {T({1, 4, 8, 8}), T({8, 4, 3, 3}, kI8), T({}, kI32), T({}, kI32), T({}), T({})}, attrs),
      "error: expected input dtype in (int8, uint8, int16), got float32");
  EXPECT_EQ(Infer("qnn.conv2d", {T({1, 4, 8, 8}, kU8), T({8, 4, 3, 3}, kI8), T({}, kI32),
                                 T({}, kI32), T({}), T({})}),
            "error: expected out_dtype dtype in (int16, int32, int64), got void");
  // Grouped (here depthwise) convs: the kernel scale has `channels` entries.
  EXPECT_EQ(
      Infer("qnn.conv2d",
            {T({1, 8, 8, 8}, kU8), T({8, 1, 3, 3}, kI8), T({}, kI32), T({8}, kI32), T({}), T({8})},
            {{"out_dtype", Str("int32")},
             {"groups", Int(8)},
             {"channels", Int(8)},
             {"kernel_size", Ints({3, 3})}}),
      "Tensor[(1, 8, 6, 6), int32]");
  // Shape errors come from the conv2d rule.
  EXPECT_EQ(
      Infer("qnn.conv2d",
            {T({1, 4, 8, 8}, kU8), T({8, 3, 3, 3}, kI8), T({}, kI32), T({}, kI32), T({}), T({})},
            {{"out_dtype", Str("int32")}}),
      "error: input channels 4 do not match weight input channels 3");
}

TEST(QnnRelTest, DenseAndAdd) {
  EXPECT_EQ(Infer("qnn.dense",
                  {T({2, 16}, kI8), T({4, 16}, kI8), T({}, kI32), T({}, kI32), T({}), T({4})},
                  {{"units", Int(4)}, {"out_dtype", Str("int32")}}),
            "Tensor[(2, 4), int32]");
  // units=None (TVM's Python default, test_pass_fold_constant.py's
  // test_fold_qnn_const): the weight's rows; a per-unit scale must match them.
  EXPECT_EQ(Infer("qnn.dense",
                  {T({2, 16}, kI8), T({4, 16}, kI8), T({}, kI32), T({}, kI32), T({}), T({4})},
                  {{"out_dtype", Str("int32")}}),
            "Tensor[(2, 4), int32]");
  const std::string mismatch =
      Infer("qnn.dense", {T({2, 16}, kI8), T({4, 16}, kI8), T({}, kI32), T({}, kI32), T({}), T({3})},
            {{"out_dtype", Str("int32")}});
  EXPECT_TRUE(mismatch.starts_with("error: ")) << mismatch;
  EXPECT_EQ(Infer("qnn.dense",
                  {T({2, 16}, kI8), T({4, 16}, kI32), T({}, kI32), T({}, kI32), T({}), T({4})},
                  {{"units", Int(4)}, {"out_dtype", Str("int32")}}),
            "error: expected weight dtype in (int8, uint8), got int32");
  EXPECT_EQ(Infer("qnn.add", {T({1, 4}, kU8), T({4}, kU8), T({}), T({}, kI32), T({}), T({}, kI32),
                              T({}), T({}, kI32)}),
            "Tensor[(1, 4), uint8]");
  EXPECT_EQ(Infer("qnn.add", {T({1, 4}, kU8), T({4}, kU8), T({4}), T({4}, kI32), T({}), T({}, kI32),
                              T({2}), T({}, kI32)}),
            "error: expected output_scale to be a scalar float32, got Tensor[(2), float32]");
}

TEST(AnnotationRelTest, IdentityOnAnyType) {
  EXPECT_EQ(Infer("annotation.compiler_begin", {T({1, 3})}, {{"compiler", Str("dnnl")}}),
            "Tensor[(1, 3), float32]");
  EXPECT_EQ(Infer("annotation.compiler_end", {Tup({T({1}), T({2})})}, {{"compiler", Str("dnnl")}}),
            "(Tensor[(1), float32], Tensor[(2), float32])");
}

TEST(RelRobustnessTest, EveryRelationSurvivesMissingAndWrongArguments) {
  // No relation may crash on too few arguments, non-tensor arguments or
  // default attrs; each must return an error or a type.
  const Type* junk = Tup({});
  for (const OpInfo* op : AllOps()) {
    for (size_t n = 0; n <= 8; ++n) {
      std::vector<const Type*> args(n, junk);
      TypeRelCall call{op, args, op->attrs ? DefaultAttrs(op->attrs) : EmptyAttrs()};
      absl::StatusOr<const Type*> r = op->type_rel(call);
      if (r.ok()) {
        EXPECT_NE(*r, nullptr) << op->name;
      }
      std::vector<const Type*> tensors(n, T({2, 3}));
      TypeRelCall call2{op, tensors, nullptr};
      absl::StatusOr<const Type*> r2 = op->type_rel(call2);
      if (r2.ok()) {
        EXPECT_NE(*r2, nullptr) << op->name;
      }
    }
  }
}

}  // namespace
}  // namespace carve::testing
