// nn.max_pool2d_grad and nn.avg_pool2d_grad against values worked out by
// hand from topi's pool_grad_impl (include/tvm/topi/nn/pooling.h at
// v0.16.0). The call is (out_grad, data).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MaxPool2DGrad, ArgmaxOfEachWindowGetsItsGradient) {
  // Windows of 2x2, stride 2: maxima 5 at (0, 1), 8 at (1, 2), 9 at (3, 0)
  // and a tie of 1s whose first element (2, 2) wins.
  auto out = RunOp1("nn.max_pool2d_grad",
                    {Tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}),
                     Tensor<float>({1, 1, 4, 4}, {1, 5, 2, 0, 3, 4, 8, 6, 0, 0, 1, 1, 9, 2, 1, 1})},
                    {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(1, 1, 4, 4));
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 4, 0, 3, 0, 0, 0));
}

TEST(MaxPool2DGrad, OverlappingWindowsAddUp) {
  auto out = RunOp1("nn.max_pool2d_grad",
                    {Tensor<float>({1, 1, 1, 2}, {10, 20}), Tensor<float>({1, 1, 1, 3}, {1, 3, 2})},
                    {{"pool_size", Ints({1, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 30, 0));
}

TEST(MaxPool2DGrad, PaddingHoldsTheLowestValue) {
  // Each padded 2x2 window holds one negative data element and padding;
  // the padding is the lowest float, so the data element is the max.
  auto out = RunOp1("nn.max_pool2d_grad",
                    {Tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}),
                     Tensor<float>({1, 1, 2, 2}, {-1, -2, -3, -4})},
                    {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}, {"padding", Ints({1, 1})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, 3, 4));
}

TEST(MaxPool2DGrad, ElementsNoWindowCoversGetZero) {
  // Width 5, windows [0, 1] and [2, 3]: element 4 is in none.
  auto out = RunOp1("nn.max_pool2d_grad",
                    {Tensor<float>({1, 1, 1, 2}, {10, 20}),
                     Tensor<float>({1, 1, 1, 5}, {1, 2, 3, 4, 5})},
                    {{"pool_size", Ints({1, 2})}, {"strides", Ints({1, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 10, 0, 20, 0));
}

TEST(MaxPool2DGrad, CeilModeAndChannelsLast) {
  // ceil_mode: width 3 with windows of 2, stride 2 gives 2 windows, the
  // second over element 2 and padding.
  auto ceil = RunOp1("nn.max_pool2d_grad",
                     {Tensor<float>({1, 1, 1, 2}, {10, 20}), Tensor<float>({1, 1, 1, 3}, {1, 2, 3})},
                     {{"pool_size", Ints({1, 2})}, {"strides", Ints({1, 2})},
                      {"ceil_mode", Bool(true)}});
  CARVE_ASSERT_OK(ceil);
  EXPECT_THAT(Values<float>(*ceil), ElementsAre(0, 10, 20));
  // NHWC, two channels (1, 3, 2) and (5, 4, 6); windows of 2, stride 1.
  auto nhwc = RunOp1("nn.max_pool2d_grad",
                     {Tensor<float>({1, 1, 2, 2}, {10, 1, 20, 2}),
                      Tensor<float>({1, 1, 3, 2}, {1, 5, 3, 4, 2, 6})},
                     {{"pool_size", Ints({1, 2})}, {"layout", Str("NHWC")}});
  CARVE_ASSERT_OK(nhwc);
  EXPECT_THAT(Values<float>(*nhwc), ElementsAre(0, 1, 30, 0, 0, 2));
}

TEST(AvgPool2DGrad, SpreadsOverTheWindow) {
  // Windows [0, 1] and [1, 2] of 2 elements each.
  auto out = RunOp1("nn.avg_pool2d_grad",
                    {Tensor<float>({1, 1, 1, 2}, {2, 4}), Tensor<float>({1, 1, 1, 3}, {0, 0, 0})},
                    {{"pool_size", Ints({1, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 3, 2));
}

TEST(AvgPool2DGrad, CountIncludePad) {
  // Padded 2x2 windows, stride 2, each over one data element: without the
  // padding in the count each element takes its window's gradient, with it
  // a quarter.
  std::vector<NDArray> in = {Tensor<float>({1, 1, 2, 2}, {4, 8, 12, 16}),
                             Tensor<float>({1, 1, 2, 2}, {0, 0, 0, 0})};
  AttrList attrs = {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}, {"padding", Ints({1, 1})}};
  auto without = RunOp1("nn.avg_pool2d_grad", in, attrs);
  CARVE_ASSERT_OK(without);
  EXPECT_THAT(Values<float>(*without), ElementsAre(4, 8, 12, 16));
  attrs.emplace_back("count_include_pad", Bool(true));
  auto with = RunOp1("nn.avg_pool2d_grad", in, attrs);
  CARVE_ASSERT_OK(with);
  EXPECT_THAT(Values<float>(*with), ElementsAre(1, 2, 3, 4));
}

TEST(Pool2DGrad, Errors) {
  auto shape = RunOp1("nn.avg_pool2d_grad",
                      {Tensor<float>({1, 1, 1, 3}, {1, 2, 3}), Tensor<float>({1, 1, 1, 3}, {0, 0, 0})},
                      {{"pool_size", Ints({1, 2})}});
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), HasSubstr("not the pooled shape"));
  auto layout = RunOp1("nn.max_pool2d_grad",
                       {Tensor<float>({1, 1, 1, 2}, {1, 2}), Tensor<float>({1, 1, 1, 3}, {0, 0, 0})},
                       {{"pool_size", Ints({1, 2})}, {"layout", Str("NCHW2w")}});
  ASSERT_FALSE(layout.ok());
}

}  // namespace
}  // namespace carve::testing
