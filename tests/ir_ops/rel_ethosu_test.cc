// The Ethos-U relations, ported from TVM v0.16's
// tests/python/contrib/test_ethosu/test_type_inference.py (the weights and
// scale_bias tensors as its infra.make_ethosu_* helpers build them).
#include <gtest/gtest.h>

#include <string>

#include "tests/ir_ops/rel_test_util.h"

namespace carve::testing {
namespace {

// A conv2d / depthwise_conv2d call as test_type_inference.py builds it:
// kernel (3, 2), strides (1, 2), padding (0, 1, 2, 3), dilation (2, 1).
std::string ConvLike(std::string_view op, const TensorType* ifm, const TensorType* weight,
                     const TensorType* scale_bias, int64_t channels, std::string_view ifm_layout,
                     std::string_view ofm_layout, std::string_view upscale) {
  return Infer(op, {ifm, weight, scale_bias, T({0}, kI8)},
               {{"ifm_scale", Float(0.5)},
                {"ifm_zero_point", Int(10)},
                {"weight_zero_point", Int(0)},
                {"ofm_scale", Float(0.25)},
                {"ofm_zero_point", Int(20)},
                {"kernel_shape", Ints({3, 2})},
                {"ofm_channels", Int(channels)},
                {"strides", Ints({1, 2})},
                {"padding", Ints({0, 1, 2, 3})},
                {"dilation", Ints({2, 1})},
                {"upscale", Str(upscale)},
                {"ifm_layout", Str(ifm_layout)},
                {"ofm_layout", Str(ofm_layout)}});
}

std::string Conv(const TensorType* ifm, std::string_view ifm_layout, std::string_view ofm_layout,
                 DataType weight_dtype = DataType::Int(8),
                 DataType scale_bias_dtype = DataType::UInt(8), std::string_view upscale = "NONE") {
  return ConvLike("contrib.ethosu.conv2d", ifm, T({122, 3, 2, 55}, weight_dtype),
                  T({122, 10}, scale_bias_dtype), 122, ifm_layout, ofm_layout, upscale);
}

TEST(RelEthosu, Conv2DTypeInference) {
  const TensorType* nhwc = T({1, 56, 72, 55}, kI8);
  const TensorType* brick = T({1, 56, 4, 72, 16}, kI8);
  for (const TensorType* ifm : {nhwc, brick}) {
    std::string layout = ifm == nhwc ? "NHWC" : "NHCWB16";
    EXPECT_EQ(Conv(ifm, layout, "NHWC"), "Tensor[(1, 54, 38, 122), int8]");
    EXPECT_EQ(Conv(ifm, layout, "NHCWB16"), "Tensor[(1, 54, 8, 38, 16), int8]");
  }
}

TEST(RelEthosu, Conv2DInvalidDtypesAndUpscale) {
  EXPECT_EQ(Conv(T({1, 56, 72, 55}, kF32), "NHWC", "NHWC"),
            "error: expected ethosu_conv2d to have type in {uint8, int8} for ifm but was float32");
  EXPECT_EQ(Conv(T({1, 56, 72, 55}, kI8), "NHWC", "NHWC", kF32),
            "error: expected ethosu_conv2d to have type in {uint8, int8} for weight but was "
            "float32");
  EXPECT_EQ(Conv(T({1, 56, 72, 55}, kI8), "NHWC", "NHWC", kI8, kF32),
            "error: expected ethosu_conv2d to have type in {uint8} for scale bias but was float32");
  EXPECT_EQ(Conv(T({1, 56, 72, 55}, kI8), "NHWC", "NHWC", kI8, kU8, "FOO"),
            "error: expected ethosu_conv2d to have upscale method in {NONE, ZEROS, NEAREST} but "
            "was FOO");
  // Upscaling doubles H and W before the window: (2 * 56 + 2 - 5) / 1 + 1.
  EXPECT_EQ(Conv(T({1, 56, 72, 55}, kI8), "NHWC", "NHWC", kI8, kU8, "NEAREST"),
            "Tensor[(1, 110, 74, 122), int8]");
}

std::string Depthwise(const TensorType* ifm, std::string_view ifm_layout,
                      std::string_view ofm_layout, DataType weight_dtype = DataType::Int(8)) {
  return ConvLike("contrib.ethosu.depthwise_conv2d", ifm, T({55, 3, 2, 1}, weight_dtype),
                  T({55, 10}, kU8), 55, ifm_layout, ofm_layout, "NONE");
}

TEST(RelEthosu, DepthwiseConv2DTypeInference) {
  EXPECT_EQ(Depthwise(T({1, 46, 71, 55}, kI8), "NHWC", "NHWC"), "Tensor[(1, 44, 37, 55), int8]");
  EXPECT_EQ(Depthwise(T({1, 46, 4, 71, 16}, kI8), "NHCWB16", "NHCWB16"),
            "Tensor[(1, 44, 4, 37, 16), int8]");
  EXPECT_EQ(Depthwise(T({1, 46, 71, 55}, kI8), "NHWC", "NHWC", kF32),
            "error: expected ethosu_depthwise_conv2d to have type in {uint8, int8} for weight but "
            "was float32");
}

std::string Pool(const TensorType* ifm, std::string_view type, std::string_view ofm_dtype,
                 std::string_view ifm_layout = "NHWC", std::string_view ofm_layout = "NHWC",
                 std::string_view upscale = "NONE") {
  return Infer("contrib.ethosu.pooling", {ifm, T({0}, kI8)},
               {{"pooling_type", Str(type)},
                {"ifm_scale", Float(1)},
                {"ifm_zero_point", Int(0)},
                {"ofm_scale", Float(1)},
                {"ofm_zero_point", Int(0)},
                {"pool_shape", Ints({3, 2})},
                {"ofm_channels", Int(55)},
                {"ofm_dtype", Str(ofm_dtype)},
                {"strides", Ints({1, 2})},
                {"padding", Ints({0, 1, 2, 3})},
                {"upscale", Str(upscale)},
                {"ifm_layout", Str(ifm_layout)},
                {"ofm_layout", Str(ofm_layout)}});
}

TEST(RelEthosu, PoolingTypeInference) {
  EXPECT_EQ(Pool(T({1, 56, 72, 55}, kI8), "AVG", "int8"), "Tensor[(1, 56, 38, 55), int8]");
  EXPECT_EQ(Pool(T({1, 56, 4, 72, 16}, kI8), "AVG", "int8", "NHCWB16", "NHCWB16"),
            "Tensor[(1, 56, 4, 38, 16), int8]");
  EXPECT_EQ(Pool(T({1, 56, 72, 55}, kI8), "SUM", "int32"), "Tensor[(1, 56, 38, 55), int32]");
  EXPECT_EQ(Pool(T({1, 56, 72, 55}, kI8), "A", "int8"),
            "error: expected ethosu_pooling type 'AVG', 'MAX', or 'SUM' but was A");
  EXPECT_EQ(Pool(T({1, 56, 72, 55}, kI32), "MAX", "int32"),
            "error: expected ethosu_pooling MAX to have type in {uint8, int8, int16} for ifm but "
            "was int32");
  EXPECT_EQ(Pool(T({1, 56, 72, 55}, kI8), "MAX", "int8", "NHWC", "NHWC", "FOO"),
            "error: expected ethosu_pooling to have upscale method in {NONE, ZEROS, NEAREST} but "
            "was FOO");
}

std::string Binary(const TensorType* ifm, const TensorType* ifm2, std::string_view type,
                   std::string_view ofm_dtype, std::string_view ifm_layout = "NHWC",
                   std::string_view ofm_layout = "NHWC") {
  return Infer("contrib.ethosu.binary_elementwise", {ifm, ifm2, T({0}, kI8)},
               {{"operator_type", Str(type)},
                {"ifm_scale", Float(1)},
                {"ifm_zero_point", Int(0)},
                {"ifm2_scale", Float(1)},
                {"ifm2_zero_point", Int(0)},
                {"ofm_scale", Float(1)},
                {"ofm_zero_point", Int(0)},
                {"ifm_channels", Int(33)},
                {"ifm2_channels", Int(33)},
                {"ifm_layout", Str(ifm_layout)},
                {"ifm2_layout", Str(ifm_layout)},
                {"ofm_layout", Str(ofm_layout)},
                {"ofm_dtype", Str(ofm_dtype)}});
}

TEST(RelEthosu, BinaryElementwise) {
  const TensorType* nhwc = T({1, 4, 5, 33}, kI8);
  const TensorType* brick = T({1, 4, 3, 5, 16}, kI8);
  EXPECT_EQ(Binary(nhwc, nhwc, "ADD", "int8"), "Tensor[(1, 4, 5, 33), int8]");
  EXPECT_EQ(Binary(nhwc, nhwc, "ADD", "int8", "NHWC", "NHCWB16"), "Tensor[(1, 4, 3, 5, 16), int8]");
  EXPECT_EQ(Binary(brick, brick, "ADD", "int8", "NHCWB16", "NHWC"), "Tensor[(1, 4, 5, 33), int8]");
  EXPECT_EQ(Binary(nhwc, nhwc, "A", "int8"),
            "error: expected ethosu_binary_elementwise 'ADD' or 'SUB' or 'MUL' or 'MIN' or 'MAX' "
            "or 'SHR' or 'SHL' for operator_type but was A");
  EXPECT_EQ(Binary(nhwc, T({1, 4, 5, 33}, kI32), "ADD", "int8"),
            "error: expected ethosu_binary_elementwise ADD data types for ifm and ifm2 to match, "
            "but was int8 and int32");
  for (const char* op : {"MIN", "MAX"}) {
    EXPECT_NE(Binary(T({1, 4, 5, 33}, kI32), T({1, 4, 5, 33}, kI32), op, "int32").find("error:"),
              std::string::npos);
  }
  for (DataType d : {kI8, kU8}) {
    EXPECT_NE(Binary(T({1, 4, 5, 33}, d), T({1, 4, 5, 33}, d), "SHR", "int32").find("error:"),
              std::string::npos);
  }
  EXPECT_EQ(Binary(T({1, 4, 5, 33}, kI32), T({1, 4, 5, 33}, kI32), "SHR", "int8"),
            "Tensor[(1, 4, 5, 33), int8]");
}

TEST(RelEthosu, Identity) {
  for (auto shape :
       {T({1, 56, 72, 55}, kI8), T({241, 7, 755}, kI8), T({28, 44}, kI8), T({5003}, kI8)}) {
    EXPECT_EQ(Infer("contrib.ethosu.identity", {shape, T({0}, kI8)},
                    {{"ifm_scale", Float(1)},
                     {"ifm_zero_point", Int(0)},
                     {"ofm_scale", Float(1)},
                     {"ofm_zero_point", Int(0)}}),
              TypeToString(shape));
  }
  EXPECT_NE(Infer("contrib.ethosu.identity", {T({1, 2, 3, 4, 5}, kI8), T({0}, kI8)})
                .find("at most 4 dimensional"),
            std::string::npos);
  EXPECT_EQ(Infer("contrib.ethosu.identity", {T({6000}, kI32), T({0}, kI8)}),
            "error: expected ethosu_identity to have type in {uint8, int8, int16} for ifm but "
            "was int32");
}

std::string Unary(const TensorType* ifm, std::string_view type, std::string_view ifm_layout,
                  std::string_view ofm_layout) {
  return Infer("contrib.ethosu.unary_elementwise", {ifm, T({0}, kI8)},
               {{"operator_type", Str(type)},
                {"ifm_scale", Float(1)},
                {"ifm_zero_point", Int(0)},
                {"ofm_scale", Float(1)},
                {"ofm_zero_point", Int(0)},
                {"ofm_channels", Int(33)},
                {"ifm_layout", Str(ifm_layout)},
                {"ofm_layout", Str(ofm_layout)}});
}

TEST(RelEthosu, UnaryElementwise) {
  EXPECT_EQ(Unary(T({1, 4, 5, 33}, kI8), "ABS", "NHWC", "NHWC"), "Tensor[(1, 4, 5, 33), int8]");
  EXPECT_EQ(Unary(T({1, 4, 3, 5, 16}, kI32), "CLZ", "NHCWB16", "NHCWB16"),
            "Tensor[(1, 4, 3, 5, 16), int32]");
  EXPECT_EQ(Unary(T({1, 4, 5, 33}, kI8), "CLZ", "NHWC", "NHWC"),
            "error: expected ethosu_unary_elementwise CLZ to have type in {int32} for ifm but was "
            "int8");
  EXPECT_EQ(Unary(T({1, 4, 5, 33}, kI8), "NEG", "NHWC", "NHWC"),
            "error: expected ethosu_unary_elementwise 'ABS' or 'CLZ' for operator_type but was "
            "NEG");
}

}  // namespace
}  // namespace carve::testing
