// Convolution relations (spec/ops.md §7).
#include <gtest/gtest.h>

#include "tests/ir_ops/rel_test_util.h"

namespace carve::testing {
namespace {

TEST(Conv2DRelTest, Nchw) {
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 224, 224}), T({64, 3, 7, 7})},
                  {{"strides", Ints({2, 2})}, {"padding", Ints({3, 3})}}),
            "Tensor[(1, 64, 112, 112), float32]");
  // The corpus's typical Python-built call.
  EXPECT_EQ(
      Infer(
          "nn.conv2d", {T({1, 64, 56, 56}), T({64, 64, 3, 3})},
          {{"padding", Ints({1, 1, 1, 1})}, {"channels", Int(64)}, {"kernel_size", Ints({3, 3})}}),
      "Tensor[(1, 64, 56, 56), float32]");
}

TEST(Conv2DRelTest, PaddingForms) {
  auto conv = [](AttrValue padding) {
    return Infer("nn.conv2d", {T({1, 1, 10, 10}), T({1, 1, 3, 3})}, {{"padding", padding}});
  };
  EXPECT_EQ(conv(Ints({1})), "Tensor[(1, 1, 10, 10), float32]");
  EXPECT_EQ(conv(Ints({1, 0})), "Tensor[(1, 1, 10, 8), float32]");
  EXPECT_EQ(conv(Ints({1, 0, 2, 3})), "Tensor[(1, 1, 11, 11), float32]");
  EXPECT_EQ(conv(Ints({1, 2, 3})), "error: padding must have 1, 2 or 4 values, got [1, 2, 3]");
}

TEST(Conv2DRelTest, StrideAndDilation) {
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 32, 32}), T({16, 8, 3, 3})},
                  {{"dilation", Ints({2, 2})}, {"strides", Ints({2, 1})}}),
            "Tensor[(1, 16, 14, 28), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 32, 32}), T({16, 8, 3, 3})}, {{"strides", Ints({0, 1})}}),
            "error: strides must be positive, got [0, 1]");
}

TEST(Conv2DRelTest, NhwcAndHwio) {
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 56, 56, 32}), T({3, 3, 32, 64})},
                  {{"padding", Ints({1, 1})},
                   {"data_layout", Str("NHWC")},
                   {"kernel_layout", Str("HWIO")}}),
            "Tensor[(1, 56, 56, 64), float32]");
  // out_layout differs from data_layout.
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 56, 56, 32}), T({64, 3, 3, 32})},
                  {{"data_layout", Str("NHWC")},
                   {"kernel_layout", Str("OHWI")},
                   {"out_layout", Str("NCHW")}}),
            "Tensor[(1, 64, 54, 54), float32]");
  // Blocked layouts convert too.
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 2, 8, 8, 16}), T({64, 32, 1, 1})},
                  {{"data_layout", Str("NCHW16c")}, {"out_layout", Str("NCHW8c")}}),
            "Tensor[(1, 8, 8, 8, 8), float32]");
}

TEST(Conv2DRelTest, DepthwiseAndGroups) {
  // Depthwise: groups == C == weight O, weight (C, 1, kh, kw).
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 32, 112, 112}), T({32, 1, 3, 3})},
                  {{"padding", Ints({1, 1})},
                   {"groups", Int(32)},
                   {"channels", Int(32)},
                   {"kernel_size", Ints({3, 3})}}),
            "Tensor[(1, 32, 112, 112), float32]");
  // Depthwise NHWC/HWOI, channels read from the weight.
  EXPECT_EQ(
      Infer("nn.conv2d", {T({1, 16, 16, 8}), T({3, 3, 8, 1})},
            {{"groups", Int(8)}, {"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWOI")}}),
      "Tensor[(1, 14, 14, 8), float32]");
  // Grouped conv: weight I = C / groups.
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 64, 28, 28}), T({128, 16, 3, 3})},
                  {{"groups", Int(4)}, {"padding", Ints({1, 1})}}),
            "Tensor[(1, 128, 28, 28), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 64, 28, 28}), T({128, 32, 3, 3})}, {{"groups", Int(4)}}),
            "error: input channels 64 / groups 4 = 16 do not match weight input channels 32");
  // DNNL-style grouped weight (G, O/G, I/G, kh, kw).
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 64, 28, 28}), T({4, 32, 16, 3, 3})},
                  {{"groups", Int(4)}, {"kernel_layout", Str("GOIHW")}}),
            "Tensor[(1, 128, 26, 26), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 64, 28, 28}), T({4, 32, 16, 3, 3})},
                  {{"groups", Int(4)},
                   {"kernel_layout", Str("GOIHW")},
                   {"channels", Int(128)},
                   {"kernel_size", Ints({3, 3})}}),
            "Tensor[(1, 128, 26, 26), float32]");
}

TEST(Conv2DRelTest, ConsistencyErrors) {
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 8, 8}), T({16, 3, 3, 3})}, {{"channels", Int(8)}}),
            "error: channels 8 does not match weight output channels 16");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 8, 8}), T({16, 3, 3, 3})},
                  {{"channels", Int(16)}, {"kernel_size", Ints({5, 5})}}),
            "error: kernel_size [5, 5] does not match the weight's kernel (3, 3)");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 4, 8, 8}), T({16, 3, 3, 3})}),
            "error: input channels 4 do not match weight input channels 3");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3}), T({16, 3, 3, 3})}),
            "error: expected 4-d input in layout NCHW, got (1, 3)");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 8, 8}), T({16, 3, 3})}),
            "error: expected 4-d weight in layout OIHW, got (16, 3, 3)");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 8, 8}), T({16, 3, 3, 3})}, {{"data_layout", Str("NCW")}}),
            "error: data_layout NCW is not convertible to NCHW");
  EXPECT_EQ(
      Infer("nn.conv2d", {T({1, 3, 8, 8}), T({16, 3, 3, 3})}, {{"kernel_layout", Str("OIHW4")}}),
      "error: kernel_layout: invalid layout 'OIHW4': factor without a sub-axis at the end");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 2, 2}), T({16, 3, 3, 3})}),
            "error: padded input height 2 is smaller than the dilated kernel 3");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 8, 8}), Tup({T({1})})}),
            "error: expected weight to be a tensor, got (Tensor[(1), float32],)");
}

TEST(Conv2DRelTest, DTypes) {
  const DataType i8 = DataType::Int(8);
  EXPECT_EQ(
      Infer("nn.conv2d", {T({1, 3, 8, 8}, i8), T({4, 3, 1, 1}, i8)}, {{"out_dtype", Str("int32")}}),
      "Tensor[(1, 4, 8, 8), int32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 3, 8, 8}, i8), T({4, 3, 1, 1}, i8)}),
            "Tensor[(1, 4, 8, 8), int8]");
}

TEST(Conv2DRelTest, DynamicAndWideDims) {
  EXPECT_EQ(Infer("nn.conv2d", {T({kAny, 3, kAny, 32}), T({8, 3, 3, 3})}),
            "Tensor[(?, 8, ?, 30), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, kAny, 8, 8}), T({8, 3, 3, 3})}),
            "Tensor[(1, 8, 6, 6), float32]");
  // Copied dims keep their width; computed ones follow the input's.
  EXPECT_EQ(Infer("nn.conv2d", {TWide({1, 3, 8, 8}), T({8, 3, 3, 3})}),
            "Tensor[(1i64, 8, 6i64, 6i64), float32]");
}

TEST(Conv1DRelTest, Basics) {
  EXPECT_EQ(Infer("nn.conv1d", {T({1, 4, 100}), T({8, 4, 5})}, {{"padding", Ints({2, 2})}}),
            "Tensor[(1, 8, 100), float32]");
  EXPECT_EQ(
      Infer("nn.conv1d", {T({1, 100, 4}), T({5, 4, 8})},
            {{"data_layout", Str("NWC")}, {"kernel_layout", Str("WIO")}, {"strides", Ints({2})}}),
      "Tensor[(1, 48, 8), float32]");
  // conv1d reads padding[0] + padding[1]: exactly two values.
  EXPECT_EQ(Infer("nn.conv1d", {T({1, 4, 100}), T({8, 4, 5})}, {{"padding", Ints({2})}}),
            "error: padding must have 2 values, got [2]");
  // TVM quirk: without channels/kernel_size the weight's I is compared with
  // C, ignoring groups.
  EXPECT_EQ(Infer("nn.conv1d", {T({1, 4, 10}), T({8, 2, 3})}, {{"groups", Int(2)}}),
            "error: input channels 4 do not match weight input channels 2");
  EXPECT_EQ(Infer("nn.conv1d", {T({1, 4, 10}), T({8, 2, 3})},
                  {{"groups", Int(2)}, {"channels", Int(8)}, {"kernel_size", Ints({3})}}),
            "Tensor[(1, 8, 8), float32]");
}

TEST(Conv3DRelTest, Basics) {
  EXPECT_EQ(Infer("nn.conv3d", {T({1, 3, 16, 32, 32}), T({8, 3, 3, 3, 3})},
                  {{"padding", Ints({1, 1, 1, 1, 1, 1})}}),
            "Tensor[(1, 8, 16, 32, 32), float32]");
  EXPECT_EQ(Infer("nn.conv3d", {T({1, 3, 16, 32, 32}), T({8, 3, 3, 3, 3})},
                  {{"padding", Ints({0, 1, 1})}, {"strides", Ints({1, 2, 2})}}),
            "Tensor[(1, 8, 14, 16, 16), float32]");
  EXPECT_EQ(Infer("nn.conv3d", {T({1, 16, 32, 32, 3}), T({3, 3, 3, 3, 8})},
                  {{"data_layout", Str("NDHWC")}, {"kernel_layout", Str("DHWIO")}}),
            "Tensor[(1, 14, 30, 30, 8), float32]");
  EXPECT_EQ(Infer("nn.conv3d", {T({1, 3, 16, 32, 32}), T({8, 3, 3, 3, 3})},
                  {{"padding", Ints({0, 1, 1, 1})}}),
            "error: padding must have 1, 3 or 6 values, got [0, 1, 1, 1]");
}

TEST(ConvTransposeRelTest, Conv2DTranspose) {
  // dcgan: (1, 512, 4, 4) -> (1, 256, 8, 8) with a 4x4 kernel, stride 2, pad 1.
  EXPECT_EQ(Infer("nn.conv2d_transpose", {T({1, 512, 4, 4}), T({512, 256, 4, 4})},
                  {{"channels", Int(256)},
                   {"kernel_size", Ints({4, 4})},
                   {"strides", Ints({2, 2})},
                   {"padding", Ints({1, 1})}}),
            "Tensor[(1, 256, 8, 8), float32]");
  EXPECT_EQ(Infer("nn.conv2d_transpose", {T({1, 8, 5, 5}), T({8, 4, 3, 3})},
                  {{"strides", Ints({2, 2})}, {"output_padding", Ints({1, 1})}}),
            "Tensor[(1, 4, 12, 12), float32]");
  // Out channels are weight.O, not multiplied by groups.
  EXPECT_EQ(Infer("nn.conv2d_transpose", {T({1, 8, 5, 5}), T({8, 2, 3, 3})}, {{"groups", Int(2)}}),
            "Tensor[(1, 2, 7, 7), float32]");
  EXPECT_EQ(Infer("nn.conv2d_transpose", {T({1, 8, 5, 5}), T({4, 4, 3, 3})}),
            "error: input channels 8 do not match weight input channels 4 (groups 1)");
  EXPECT_EQ(
      Infer("nn.conv2d_transpose", {T({1, 8, 5, 5}), T({8, 4, 3, 3})}, {{"channels", Int(6)}}),
      "error: weight output channels 4 do not match channels 6 / groups 1");
  EXPECT_EQ(Infer("nn.conv2d_transpose", {T({1, 5, 5, 8}), T({8, 4, 3, 3})},
                  {{"data_layout", Str("NHWC")}}),
            "Tensor[(1, 7, 7, 4), float32]");
}

TEST(ConvTransposeRelTest, Conv1DAnd3DTranspose) {
  EXPECT_EQ(Infer("nn.conv1d_transpose", {T({1, 4, 10}), T({4, 8, 3})},
                  {{"strides", Ints({2})}, {"padding", Ints({1})}}),
            "Tensor[(1, 8, 19), float32]");
  EXPECT_EQ(Infer("nn.conv3d_transpose", {T({1, 4, 2, 4, 4}), T({4, 2, 2, 2, 2})},
                  {{"strides", Ints({2, 2, 2})}}),
            "Tensor[(1, 2, 4, 8, 8), float32]");
  EXPECT_EQ(Infer("nn.conv3d_transpose", {T({1, 4, 2, 4, 4}), T({4, 2, 2, 2, 2})},
                  {{"output_padding", Ints({1, 1})}}),
            "error: output_padding must have 3 values, got [1, 1]");
}

}  // namespace
}  // namespace carve::testing
