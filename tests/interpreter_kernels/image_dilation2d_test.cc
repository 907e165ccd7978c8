// image.dilation2d against values worked out by hand from topi's definition
// (python/tvm/topi/image/dilation2d.py at v0.16.0): out = max over the
// window of padded data + weight, in out_dtype, zero padding.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = float(i);
  return v;
}

TEST(Dilation2D, MaxOfDataPlusWeight) {
  // max(d[y][x] + 10, d[y][x+1], d[y+1][x], d[y+1][x+1]) = d[y][x] + 10.
  auto out = RunOp1("image.dilation2d",
                    {Tensor<float>({1, 1, 3, 3}, Iota(9)), Tensor<float>({1, 2, 2}, {10, 0, 0, 0})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(10, 11, 13, 14));
}

TEST(Dilation2D, PaddingIsZero) {
  // A single -5 padded by 1: the window of each border output holds only
  // padding (0).
  auto out = RunOp1("image.dilation2d",
                    {Tensor<float>({1, 1, 1, 1}, {-5}), Tensor<float>({1, 1, 1}, {0})},
                    {{"padding", Ints({1, 1})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0, 0, 0, -5, 0, 0, 0, 0));
}

TEST(Dilation2D, StridesAndDilations) {
  // 5x5 iota, 2x2 zero weight dilated by 2 (3x3 span), stride 2:
  // out[y][x] = d[2y + 2][2x + 2].
  auto out = RunOp1("image.dilation2d",
                    {Tensor<float>({1, 1, 5, 5}, Iota(25)), Tensor<float>({1, 2, 2}, {0, 0, 0, 0})},
                    {{"strides", Ints({2, 2})}, {"dilations", Ints({2, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(12, 14, 22, 24));
}

TEST(Dilation2D, ChannelsLast) {
  // NHWC 1x2x2x2 (channel 1 = -channel 0) with an HWI 1x1x2 weight (1, 2):
  // a 1x1 window, so each output is data + weight of its channel.
  auto out = RunOp1("image.dilation2d",
                    {Tensor<float>({1, 2, 2, 2}, {0, 0, 1, -1, 2, -2, 3, -3}),
                     Tensor<float>({1, 1, 2}, {1, 2})},
                    {{"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWI")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, 2, 1, 3, 0, 4, -1));
}

TEST(Dilation2D, IntegerSumsWrapInTheDType) {
  // 120 + 10 in int8 is -126: TVM adds in out_dtype.
  auto out = RunOp1("image.dilation2d",
                    {Tensor<int8_t>({1, 1, 1, 1}, {120}), Tensor<int8_t>({1, 1, 1}, {10})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int8_t>(*out), ElementsAre(-126));
}

TEST(Dilation2D, EmptyBatch) {
  auto out = RunOp1("image.dilation2d",
                    {Tensor<float>({0, 1, 2, 2}, {}), Tensor<float>({1, 1, 1}, {0})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->num_elements(), 0);
}

TEST(Dilation2D, LayoutPairsWithoutACompute) {
  auto out = RunOp1("image.dilation2d",
                    {Tensor<float>({1, 1, 2, 2}, Iota(4)), Tensor<float>({1, 1, 1}, {0})},
                    {{"kernel_layout", Str("HWI")}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("no compute in TVM"));
}

}  // namespace
}  // namespace carve::testing
