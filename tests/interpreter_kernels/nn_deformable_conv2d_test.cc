// nn.deformable_conv2d against values worked out by hand from topi's
// definition (python/tvm/topi/nn/deformable_conv2d.py at v0.16.0): each
// tap reads the data bilinearly at its shifted position; taps outside the
// image (and the out-of-image corners of a bilinear sample) read 0.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A 3x3 image 0..8, a 2x2 all-ones weight and (1, 8, 2, 2) offsets that are
// dx for every tap (channels 1, 3, 5, 7) and dy = 0.
struct Case {
  NDArray data = Tensor<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  NDArray weight = Tensor<float>({1, 1, 2, 2}, {1, 1, 1, 1});
  NDArray Offsets(float dx) {
    std::vector<float> v(32, 0.0f);
    for (int ch = 1; ch < 8; ch += 2) {
      for (int i = 0; i < 4; ++i) v[ch * 4 + i] = dx;
    }
    return Tensor<float>({1, 8, 2, 2}, v);
  }
};

TEST(DeformableConv2D, ZeroOffsetsAreAConvolution) {
  Case c;
  auto out = RunOp1("nn.deformable_conv2d", {c.data, c.Offsets(0), c.weight},
                    {{"kernel_size", Ints({2, 2})}, {"channels", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(8, 12, 20, 24));
}

TEST(DeformableConv2D, HalfPixelOffsetsInterpolate) {
  // Each tap moves right by 0.5: d + 0.5 inside; a tap at x = 2.5 keeps
  // only its left corner's half (0.5 * d[y][2]; the right corner is outside).
  // (0, 0): 0.5 + 1.5 + 3.5 + 4.5; (0, 1): 1.5 + 1 + 4.5 + 2.5;
  // (1, 0): 3.5 + 4.5 + 6.5 + 7.5; (1, 1): 4.5 + 2.5 + 7.5 + 4.
  Case c;
  auto out = RunOp1("nn.deformable_conv2d", {c.data, c.Offsets(0.5f), c.weight},
                    {{"kernel_size", Ints({2, 2})}, {"channels", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(10, 9.5f, 22, 18.5f));
}

TEST(DeformableConv2D, TapsOutsideTheImageReadZero) {
  // Offset dx = -1 moves column 0's taps to x = -1 (outside, 0).
  // (0, 0): 0 + 0 + 0 + 3; (0, 1): 0 + 1 + 3 + 4.
  Case c;
  auto out = RunOp1("nn.deformable_conv2d", {c.data, c.Offsets(-1), c.weight},
                    {{"kernel_size", Ints({2, 2})}, {"channels", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(3, 8, 9, 20));
}

TEST(DeformableConv2D, ChannelsLastMatches) {
  // The same case in NHWC with an HWIO weight and (1, 2, 2, 8) offsets.
  Case c;
  NDArray offsets = NDArray::Empty(DataType::Float(32), {1, 2, 2, 8});
  NDArray nchw = c.Offsets(0.5f);
  for (int ch = 0; ch < 8; ++ch) {
    for (int p = 0; p < 4; ++p) offsets.data<float>()[p * 8 + ch] = nchw.data<float>()[ch * 4 + p];
  }
  auto out = RunOp1("nn.deformable_conv2d",
                    {Tensor<float>({1, 3, 3, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8}), offsets,
                     Tensor<float>({2, 2, 1, 1}, {1, 1, 1, 1})},
                    {{"kernel_size", Ints({2, 2})}, {"channels", Int(1)},
                     {"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWIO")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(10, 9.5f, 22, 18.5f));
}

TEST(DeformableConv2D, DeformableGroupsSplitTheOffsets) {
  // Two channels in two deformable groups: group 0 (channel 0) with zero
  // offsets, group 1 (channel 1, all ones) shifted far outside; a 1x1
  // weight (1, 1) sums the channels.
  std::vector<float> off(2 * 2 * 9, 0.0f);
  for (int p = 0; p < 9; ++p) off[3 * 9 + p] = 10;  // group 1's dx
  auto out = RunOp1("nn.deformable_conv2d",
                    {Tensor<float>({1, 2, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8,
                                                  1, 1, 1, 1, 1, 1, 1, 1, 1}),
                     Tensor<float>({1, 4, 3, 3}, off), Tensor<float>({1, 2, 1, 1}, {1, 1})},
                    {{"kernel_size", Ints({1, 1})}, {"channels", Int(1)},
                     {"deformable_groups", Int(2)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(DeformableConv2D, Errors) {
  Case c;
  auto groups = RunOp1("nn.deformable_conv2d", {c.data, c.Offsets(0), c.weight},
                       {{"kernel_size", Ints({2, 2})}, {"groups", Int(2)}},
                       TensorTy(DataType::Float(32), {1, 1, 2, 2}));
  ASSERT_FALSE(groups.ok());
  EXPECT_THAT(groups.status().message(), HasSubstr("groups"));
  auto nan = RunOp1("nn.deformable_conv2d", {c.data, c.Offsets(NAN), c.weight},
                    {{"kernel_size", Ints({2, 2})}});
  ASSERT_FALSE(nan.ok());
  EXPECT_THAT(nan.status().message(), HasSubstr("NaN"));
}

}  // namespace
}  // namespace carve::testing
