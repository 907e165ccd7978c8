// Convolution and pooling relations on the layouts TVM v0.16 accepts, ported
// from tests/python/relay/test_op_level2.py (the *_infer_type tests and the
// shapes of test_compile_depthwise_conv{2d_arm_cpu,3d}, test_pool*). TVM
// infers an untyped weight from channels and kernel_size; carve's relations
// see resolved argument types, so each case passes the weight TVM assigns
// (the comment says which) and checks the output type. Symbolic batch sizes
// are written as `?`.
#include <gtest/gtest.h>

#include "tests/ir_ops/rel_test_util.h"

namespace carve::testing {
namespace {

TEST(ConvRelTvmTest, Conv1DInferType) {
  // Weight assigned (2, 10, 3).
  EXPECT_EQ(Infer("nn.conv1d", {T({kAny, 10, 224}), T({2, 10, 3})},
                  {{"kernel_size", Ints({3})}, {"padding", Ints({1, 1})}, {"channels", Int(2)}}),
            "Tensor[(?, 2, 224), float32]");
  EXPECT_EQ(Infer("nn.conv1d", {T({kAny, 10, 224}, kI8), T({2, 10, 3}, kI8)},
                  {{"out_dtype", Str("int32")}}),
            "Tensor[(?, 2, 222), int32]");
  EXPECT_EQ(Infer("nn.conv1d", {T({kAny, 10, 224}, kU8), T({2, 10, 3}, kI8)},
                  {{"out_dtype", Str("int32")}}),
            "Tensor[(?, 2, 222), int32]");
  // NWC with the default kernel layout OIW: weight assigned (16, 32, 3).
  EXPECT_EQ(Infer("nn.conv1d", {T({4, 224, 32}, kI8), T({16, 32, 3}, kI8)},
                  {{"kernel_size", Ints({3})},
                   {"padding", Ints({1, 1})},
                   {"channels", Int(16)},
                   {"data_layout", Str("NWC")},
                   {"out_dtype", Str("int32")}}),
            "Tensor[(4, 224, 16), int32]");
}

TEST(ConvRelTvmTest, Conv2DInferType) {
  EXPECT_EQ(Infer("nn.conv2d", {T({kAny, 10, 224, 224}), T({2, 10, 3, 3})},
                  {{"kernel_size", Ints({3, 3})}, {"padding", Ints({1, 1})}, {"channels", Int(2)}}),
            "Tensor[(?, 2, 224, 224), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({kAny, 10, 224, 224}, kU8), T({2, 10, 3, 3}, kI8)},
                  {{"out_dtype", Str("int32")}}),
            "Tensor[(?, 2, 222, 222), int32]");
  // Split layouts on both sides: weight assigned (4, 8, 3, 3, 4, 4).
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 224, 224, 4, 4}, kI8), T({4, 8, 3, 3, 4, 4}, kI8)},
                  {{"kernel_size", Ints({3, 3})},
                   {"padding", Ints({1, 1})},
                   {"channels", Int(16)},
                   {"data_layout", Str("NCHW4n4c")},
                   {"kernel_layout", Str("OIHW4o4i")},
                   {"out_dtype", Str("int32")}}),
            "Tensor[(1, 4, 224, 224, 4, 4), int32]");
  // NHWC with the default kernel layout OIHW: weight assigned (16, 32, 3, 3).
  EXPECT_EQ(Infer("nn.conv2d", {T({4, 224, 224, 32}, kI8), T({16, 32, 3, 3}, kI8)},
                  {{"kernel_size", Ints({3, 3})},
                   {"padding", Ints({1, 1})},
                   {"channels", Int(16)},
                   {"data_layout", Str("NHWC")},
                   {"out_dtype", Str("int32")}}),
            "Tensor[(4, 224, 224, 16), int32]");
  // TestConv2D's group1 / group2 configs.
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 32, 18, 18}), T({32, 4, 3, 3})},
                  {{"padding", Ints({1, 1})},
                   {"channels", Int(32)},
                   {"groups", Int(8)},
                   {"kernel_size", Ints({3, 3})}}),
            "Tensor[(1, 32, 18, 18), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 32, 18, 18}), T({64, 1, 3, 3})},
                  {{"padding", Ints({1, 1})},
                   {"channels", Int(64)},
                   {"groups", Int(32)},
                   {"kernel_size", Ints({3, 3})}}),
            "Tensor[(1, 64, 18, 18), float32]");
}

// Depthwise with a channel multiplier (issue 21): groups == C == weight O,
// channels == M * C, the weight (C, M, kh, kw) in OIHW terms. TVM types it
// only when channels and kernel_size are both set (it assigns the weight);
// from the weight alone C / groups == 1 must equal M.
TEST(ConvRelTvmTest, DepthwiseChannelMultiplier) {
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 8, 4}), T({3, 3, 4, 2})},
                  {{"padding", Ints({1, 1, 1, 1})},
                   {"groups", Int(4)},
                   {"channels", Int(8)},
                   {"kernel_size", Ints({3, 3})},
                   {"data_layout", Str("NHWC")},
                   {"kernel_layout", Str("HWOI")}}),
            "Tensor[(1, 8, 8, 8), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 8, 4}), T({3, 3, 4, 2})},
                  {{"padding", Ints({1, 1, 1, 1})},
                   {"groups", Int(4)},
                   {"data_layout", Str("NHWC")},
                   {"kernel_layout", Str("HWOI")}}),
            "error: input channels 4 / groups 4 = 1 do not match weight input channels 2");
  // test_compile_depthwise_conv2d_arm_cpu: NCHW, weight (C, M, kh, kw) OIHW.
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 512, 32, 32}), T({512, 1, 3, 3})},
                  {{"kernel_size", Ints({3, 3})},
                   {"padding", Ints({1, 1})},
                   {"channels", Int(512)},
                   {"groups", Int(512)}}),
            "Tensor[(1, 512, 32, 32), float32]");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 16, 16}), T({8, 3, 3, 3})},
                  {{"kernel_size", Ints({3, 3})}, {"channels", Int(24)}, {"groups", Int(8)}}),
            "Tensor[(1, 24, 14, 14), float32]");
  // A weight I that is not the multiplier is rejected.
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 16, 16}), T({8, 2, 3, 3})},
                  {{"kernel_size", Ints({3, 3})}, {"channels", Int(24)}, {"groups", Int(8)}}),
            "error: depthwise weight input channels 2 do not match channels 24 / groups 8");
  // A G-layout weight takes the grouped rule first: dnnl.py's reshape of
  // the (8, 3, 3, 3) weight above to (8, 1, 3, 3, 3) types in no conv
  // (TVM fails there); the GOIHW it means is (8, 3, 1, 3, 3).
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 16, 16}), T({8, 1, 3, 3, 3})},
                  {{"kernel_size", Ints({3, 3})},
                   {"channels", Int(24)},
                   {"groups", Int(8)},
                   {"kernel_layout", Str("GOIHW")}}),
            "error: channels 24 does not match weight output channels 8");
  EXPECT_EQ(Infer("nn.conv2d", {T({1, 8, 16, 16}), T({8, 3, 1, 3, 3})},
                  {{"kernel_size", Ints({3, 3})},
                   {"channels", Int(24)},
                   {"groups", Int(8)},
                   {"kernel_layout", Str("GOIHW")}}),
            "Tensor[(1, 24, 14, 14), float32]");
  // test_compile_depthwise_conv3d: Conv3DRel has the same rule.
  EXPECT_EQ(Infer("nn.conv3d", {T({1, 16, 10, 10, 10}), T({16, 2, 1, 1, 1})},
                  {{"kernel_size", Ints({1, 1, 1})},
                   {"padding", Ints({0, 0, 0})},
                   {"channels", Int(32)},
                   {"groups", Int(16)}}),
            "Tensor[(1, 32, 10, 10, 10), float32]");
  EXPECT_EQ(Infer("nn.conv3d", {T({1, 10, 10, 10, 16}), T({1, 1, 1, 16, 2})},
                  {{"kernel_size", Ints({1, 1, 1})},
                   {"channels", Int(32)},
                   {"groups", Int(16)},
                   {"data_layout", Str("NDHWC")},
                   {"kernel_layout", Str("DHWOI")}}),
            "Tensor[(1, 10, 10, 10, 32), float32]");
}

// test_conv2d_transpose_nhwc_run: NHWC data with HWOI and IHWO kernels
// (Conv2DTransposeRel reads any layout of IOHW's axes).
TEST(ConvRelTvmTest, TransposeNhwcKernelLayouts) {
  const std::pair<const char*, const TensorType*> kernels[] = {{"HWOI", T({3, 3, 10, 3})},
                                                               {"IHWO", T({3, 3, 3, 10})}};
  for (auto [layout, weight] : kernels) {
    EXPECT_EQ(Infer("nn.conv2d_transpose", {T({1, 18, 18, 3}), weight},
                    {{"channels", Int(10)},
                     {"kernel_size", Ints({3, 3})},
                     {"strides", Ints({2, 2})},
                     {"padding", Ints({1, 1})},
                     {"output_padding", Ints({1, 1})},
                     {"data_layout", Str("NHWC")},
                     {"kernel_layout", Str(layout)}}),
              "Tensor[(1, 36, 36, 10), float32]")
        << layout;
  }
}

// A depthwise NHWC conv2d with a multiplier in other kernel layouts: the
// weight is (C, M, kh, kw) read as OIHW, so IHWO is (M, kh, kw, C); a
// (C, kh, kw, M) weight in IHWO is not depthwise (O = M != groups) and
// fails as in TVM.
TEST(ConvRelTvmTest, DepthwiseMultiplierKernelLayouts) {
  auto infer = [](const TensorType* weight, const char* kernel) {
    return Infer("nn.conv2d", {T({1, 8, 8, 4}), weight},
                 {{"padding", Ints({1, 1, 1, 1})},
                  {"groups", Int(4)},
                  {"channels", Int(8)},
                  {"kernel_size", Ints({3, 3})},
                  {"data_layout", Str("NHWC")},
                  {"kernel_layout", Str(kernel)}});
  };
  EXPECT_EQ(infer(T({2, 3, 3, 4}), "IHWO"), "Tensor[(1, 8, 8, 8), float32]");
  EXPECT_EQ(infer(T({4, 2, 3, 3}), "OIHW"), "Tensor[(1, 8, 8, 8), float32]");
  EXPECT_EQ(infer(T({4, 3, 3, 2}), "IHWO"),
            "error: channels 8 does not match weight output channels 2");
}

TEST(ConvRelTvmTest, Conv3DInferType) {
  EXPECT_EQ(
      Infer("nn.conv3d", {T({kAny, 10, 224, 224, 224}), T({2, 10, 3, 3, 3})},
            {{"kernel_size", Ints({3, 3, 3})}, {"padding", Ints({1, 1, 1})}, {"channels", Int(2)}}),
      "Tensor[(?, 2, 224, 224, 224), float32]");
  EXPECT_EQ(Infer("nn.conv3d", {T({kAny, 10, 224, 224, 224}, kI8), T({2, 10, 3, 3, 3}, kI8)},
                  {{"out_dtype", Str("int32")}}),
            "Tensor[(?, 2, 222, 222, 222), int32]");
  // NDHWC with the default kernel layout: weight assigned (16, 32, 3, 3, 3).
  EXPECT_EQ(Infer("nn.conv3d", {T({4, 224, 224, 224, 32}, kI8), T({16, 32, 3, 3, 3}, kI8)},
                  {{"kernel_size", Ints({3, 3, 3})},
                   {"padding", Ints({1, 1, 1})},
                   {"channels", Int(16)},
                   {"data_layout", Str("NDHWC")},
                   {"out_dtype", Str("int32")}}),
            "Tensor[(4, 224, 224, 224, 16), int32]");
  // Infer with groups.
  EXPECT_EQ(Infer("nn.conv3d", {T({1, 16, 224, 224, 224}), T({4, 4, 1, 1, 1})},
                  {{"groups", Int(4)}, {"kernel_size", Ints({1, 1, 1})}, {"channels", Int(4)}}),
            "Tensor[(1, 4, 224, 224, 224), float32]");
}

TEST(ConvRelTvmTest, TransposeInferType) {
  // test_conv3d_transpose_infer_type: weight assigned (10, 2, 3, 3, 3).
  EXPECT_EQ(
      Infer("nn.conv3d_transpose", {T({kAny, 10, 224, 224, 224}), T({10, 2, 3, 3, 3})},
            {{"kernel_size", Ints({3, 3, 3})}, {"padding", Ints({1, 1, 1})}, {"channels", Int(2)}}),
      "Tensor[(?, 2, 224, 224, 224), float32]");
  EXPECT_EQ(
      Infer("nn.conv3d_transpose", {T({kAny, 10, 224, 224, 224}, kU8), T({10, 12, 3, 3, 3}, kI8)},
            {{"out_dtype", Str("int32")}}),
      "Tensor[(?, 12, 226, 226, 226), int32]");
  // test_conv2d_transpose_infer_type: weight assigned (10, 15, 3, 3); NHWC
  // data with an IOHW weight.
  EXPECT_EQ(
      Infer("nn.conv2d_transpose", {T({kAny, 10, 10, 12}), T({10, 15, 3, 3})},
            {{"kernel_size", Ints({3, 3})}, {"padding", Ints({1, 1})}, {"channels", Int(15)}}),
      "Tensor[(?, 15, 10, 12), float32]");
  EXPECT_EQ(
      Infer(
          "nn.conv2d_transpose", {T({kAny, 10, 10, 12}), T({12, 11, 5, 5})},
          {{"output_padding", Ints({1, 1})}, {"channels", Int(11)}, {"data_layout", Str("NHWC")}}),
      "Tensor[(?, 15, 15, 11), float32]");
  // All three TVM v0.16 transposed relations read the weight alike with
  // groups: I == C, O == channels // groups, out channels == O when
  // channels is not set.
  for (const char* op : {"nn.conv1d_transpose", "nn.conv3d_transpose"}) {
    const bool one = std::string_view(op) == "nn.conv1d_transpose";
    const Type* data = one ? T({1, 4, 5}) : T({1, 4, 5, 5, 5});
    const Type* weight = one ? T({4, 3, 3}) : T({4, 3, 3, 3, 3});
    SCOPED_TRACE(op);
    EXPECT_EQ(Infer(op, {data, weight}, {{"groups", Int(2)}}),
              one ? "Tensor[(1, 3, 7), float32]" : "Tensor[(1, 3, 7, 7, 7), float32]");
    EXPECT_EQ(Infer(op, {data, weight}, {{"groups", Int(2)}, {"channels", Int(6)}}),
              one ? "Tensor[(1, 3, 7), float32]" : "Tensor[(1, 3, 7, 7, 7), float32]");
    EXPECT_EQ(Infer(op, {data, weight}, {{"groups", Int(2)}, {"channels", Int(3)}}),
              "error: weight output channels 3 do not match channels 3 / groups 2");
  }
}

// test_pool1d / test_pool2d / test_pool3d shapes and the layouts TVM's
// Pool*Rel accept: any layout whose pooled axes are unsplit, the output in
// the input's layout (out_layout does not change the type).
TEST(PoolRelTvmTest, Layouts) {
  EXPECT_EQ(
      Infer("nn.max_pool2d", {T({1, 3, 28, 28})},
            {{"pool_size", Ints({3, 3})}, {"strides", Ints({2, 2})}, {"padding", Ints({1, 1})}}),
      "Tensor[(1, 3, 14, 14), float32]");
  EXPECT_EQ(Infer("nn.avg_pool2d", {T({1, 28, 28, 3})},
                  {{"pool_size", Ints({2, 2})},
                   {"strides", Ints({2, 2})},
                   {"layout", Str("NHWC")},
                   {"out_layout", Str("NCHW")}}),
            "Tensor[(1, 14, 14, 3), float32]");
  EXPECT_EQ(
      Infer("nn.max_pool2d", {T({1, 1, 28, 28, 16})},
            {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}, {"layout", Str("NCHW16c")}}),
      "Tensor[(1, 1, 14, 14, 16), float32]");
  EXPECT_EQ(Infer("nn.max_pool2d", {T({1, 3, 28, 28})},
                  {{"pool_size", Ints({2, 2})}, {"layout", Str("NCH2hW")}}),
            "error: layout NCH2hW must contain unsplit HW axes");
  EXPECT_EQ(Infer("nn.max_pool1d", {T({1, 32, 3})},
                  {{"pool_size", Ints({3})}, {"strides", Ints({1})}, {"layout", Str("NWC")}}),
            "Tensor[(1, 30, 3), float32]");
  EXPECT_EQ(Infer("nn.avg_pool3d", {T({1, 8, 8, 8, 3})},
                  {{"pool_size", Ints({2, 2, 2})},
                   {"strides", Ints({2, 2, 2})},
                   {"padding", Ints({0, 0, 0, 1, 1, 1})},
                   {"ceil_mode", Bool(true)},
                   {"layout", Str("NDHWC")}}),
            "Tensor[(1, 5, 5, 5, 3), float32]");
  EXPECT_EQ(Infer("nn.global_avg_pool2d", {T({1, 7, 7, 64})}, {{"layout", Str("NHWC")}}),
            "Tensor[(1, 1, 1, 64), float32]");
  EXPECT_EQ(Infer("nn.adaptive_max_pool2d", {T({1, 7, 9, 64})},
                  {{"output_size", Ints({3})}, {"layout", Str("NHWC")}}),
            "Tensor[(1, 3, 3, 64), float32]");
}

}  // namespace
}  // namespace carve::testing
