// The Arm GEMM conv2d forms: the weight transform's tiles checked by hand
// on a small kernel, and the transform followed by the convolution against
// nn.conv2d (NHWC / HWIO) for float and int8.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

TEST(ConvGemm, WeightTransformTilesByHand) {
  // HWIO (1, 1, 2, 3): K = 2, N = 3; tile_N 2 pads N to 4, tile_K 1 pads K
  // to 4 (a multiple of 4 * tile_K). Float tiles (N/2, K/1, 1, 2) hold
  // flat[k, n] at [n / 2, k, 0, n % 2].
  auto t = RunOp1("nn.contrib_conv2d_gemm_weight_transform",
                  {Tensor<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                  {{"tile_N", Int(2)}, {"tile_K", Int(1)}});
  CARVE_ASSERT_OK(t);
  EXPECT_EQ(t->shape(), (std::vector<int64_t>{2, 4, 1, 2}));
  EXPECT_THAT(Values<float>(*t), ElementsAre(1, 2, 4, 5, 0, 0, 0, 0,  //
                                             3, 0, 6, 0, 0, 0, 0, 0));
  // int8 tiles (N/2, K/1, 2, 1) swap the inner two: the same order here
  // since tile_K is 1; with tile_K 2 the pairs of k interleave.
  auto i8 = RunOp1("nn.contrib_conv2d_gemm_weight_transform",
                   {Tensor<int8_t>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                   {{"tile_N", Int(2)}, {"tile_K", Int(2)}});
  CARVE_ASSERT_OK(i8);
  EXPECT_EQ(i8->shape(), (std::vector<int64_t>{2, 4, 2, 2}));
  // Tile (0, 0): [n][k] = [[1, 4], [2, 5]]; (1, 0): [[3, 6], [0, 0]].
  const std::vector<int8_t> v = Values<int8_t>(*i8);
  EXPECT_THAT(std::vector<int8_t>(v.begin(), v.begin() + 4), ElementsAre(1, 4, 2, 5));
  EXPECT_THAT(std::vector<int8_t>(v.begin() + 16, v.begin() + 20), ElementsAre(3, 6, 0, 0));
}

template <typename T>
void CheckAgainstConv2D(int64_t tile_n, int64_t tile_k, double lo, double hi) {
  std::vector<T> x(2 * 6 * 5 * 3), w(3 * 2 * 3 * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(lo + double((i * 29) % 17) * (hi - lo) / 16);
  for (size_t i = 0; i < w.size(); ++i) w[i] = T(lo + double((i * 13) % 11) * (hi - lo) / 10);
  const NDArray data = Tensor<T>({2, 6, 5, 3}, x), hwio = Tensor<T>({3, 2, 3, 5}, w);
  const std::string out_dtype = std::is_integral_v<T> ? "int32" : "";
  const AttrList conv = {{"strides", Ints({1, 2})},        {"padding", Ints({1, 0, 1, 1})},
                         {"dilation", Ints({2, 1})},       {"channels", Int(5)},
                         {"kernel_size", Ints({3, 2})},    {"data_layout", Str("NHWC")},
                         {"out_dtype", Str(out_dtype)}};
  AttrList plain_attrs = conv;
  plain_attrs.push_back({"kernel_layout", Str("HWIO")});
  auto plain = RunOp1("nn.conv2d", {data, hwio}, plain_attrs);
  auto tiled = RunOp1("nn.contrib_conv2d_gemm_weight_transform", {hwio},
                      {{"tile_N", Int(tile_n)}, {"tile_K", Int(tile_k)}});
  CARVE_ASSERT_OK(plain);
  CARVE_ASSERT_OK(tiled);
  auto gemm = RunOp1("nn.contrib_conv2d_gemm_without_weight_transform", {data, *tiled}, conv);
  CARVE_ASSERT_OK(gemm);
  EXPECT_EQ(gemm->shape(), plain->shape());
  const std::vector<double> g = AsDoubles(*gemm), p = AsDoubles(*plain);
  ASSERT_EQ(g.size(), p.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], p[i], 1e-5 * std::max(1.0, std::abs(p[i])));
}

TEST(ConvGemm, TransformThenConvEqualsConv2D) {
  CheckAgainstConv2D<float>(4, 4, -1, 1);
  CheckAgainstConv2D<float>(3, 1, -1, 1);
  CheckAgainstConv2D<int8_t>(4, 16, -128, 127);
  CheckAgainstConv2D<uint8_t>(8, 4, 0, 255);
}

}  // namespace
}  // namespace carve::testing
