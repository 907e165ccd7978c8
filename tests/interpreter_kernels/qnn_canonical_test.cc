// Kernels of qnn.leaky_relu, qnn.softmax, qnn.avg_pool2d and
// qnn.conv2d_transpose against values worked through TVM v0.16's rewrites
// by hand (src/relay/qnn/op/{leaky_relu,softmax,avg_pool2d}.cc and the
// conv2d_transpose legalization); each case shows the integer steps.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NDArray F32(float v) { return Tensor<float>({}, {v}); }
NDArray I32(int32_t v) { return Tensor<int32_t>({}, {v}); }

TEST(QnnCanonical, LeakyReluFollowsTheFixedPointRewrite) {
  // Same parameters in and out: x' = x. alpha 0.25 is 2^30 * 2^(-1-31):
  // (x + 2) >> 2, so -10 -> -2 (-2.5 rounds up) and -1 -> 0.
  auto same = RunOp1("qnn.leaky_relu",
                     {Tensor<int8_t>({5}, {-10, -1, 0, 5, 100}), F32(0.5), I32(0), F32(0.5), I32(0)},
                     {{"alpha", Float(0.25)}});
  CARVE_ASSERT_OK(same);
  EXPECT_THAT(Values<int8_t>(*same), ElementsAre(-2, 0, 0, 5, 100));

  // Zero point 10: for x = 2 < 10, 0.25 * 2 -> 1 and 0.75 * 10 = 7.5 -> 8,
  // each rounded up on its own: 9 (a float leaky_relu would give 8).
  auto zp = RunOp1("qnn.leaky_relu",
                   {Tensor<int8_t>({2}, {2, 12}), F32(0.5), I32(10), F32(0.5), I32(10)},
                   {{"alpha", Float(0.25)}});
  CARVE_ASSERT_OK(zp);
  EXPECT_THAT(Values<int8_t>(*zp), ElementsAre(9, 12));

  // Scale 1 -> 0.5 requantizes first: 3 -> 6, -3 -> -6 -> (-6 + 2) >> 2 =
  // -1, 100 -> 200, clipped to 127.
  auto requant = RunOp1("qnn.leaky_relu",
                        {Tensor<int8_t>({3}, {3, -3, 100}), F32(1), I32(0), F32(0.5), I32(0)},
                        {{"alpha", Float(0.25)}});
  CARVE_ASSERT_OK(requant);
  EXPECT_THAT(Values<int8_t>(*requant), ElementsAre(6, -1, 127));
}

TEST(QnnCanonical, SoftmaxIntegerAlgorithm) {
  // Scale 1/16: x0 = 16. For (16, 0): x - max = (0, -16); x_p = (0, -16 - 8
  // + 1 = -23); q = (0, 23 / 16 = 1); r = (0, -23 + 16 = -7); x_b = (16,
  // (-7 >> 1) + 16 = 12); exps = (16 << 1, 12 << 0) = (32, 12), sum 44;
  // 2^30 / 44 = 24403223; (24403223 * 32) >> 23 = 93, (24403223 * 12) >> 23
  // = 34, at scale 1/128.
  auto same = RunOp1("qnn.softmax",
                     {Tensor<int8_t>({1, 2}, {16, 0}), F32(1.0f / 16), I32(0), F32(1.0f / 128),
                      I32(0)});
  CARVE_ASSERT_OK(same);
  EXPECT_THAT(Values<int8_t>(*same), ElementsAre(93, 34));
  // To scale 1/256, zero point -128: 2 * 93 - 128, 2 * 34 - 128. Along
  // axis 0 of the transposed input, the same values.
  auto out = RunOp1("qnn.softmax",
                    {Tensor<int8_t>({2, 1}, {16, 0}), F32(1.0f / 16), I32(0), F32(1.0f / 256),
                     I32(-128)},
                    {{"axis", Int(0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int8_t>(*out), ElementsAre(58, -60));

  auto big_scale = RunOp1("qnn.softmax",
                          {Tensor<int8_t>({2}, {1, 2}), F32(2), I32(0), F32(1.0f / 128), I32(0)});
  ASSERT_FALSE(big_scale.ok());
  EXPECT_THAT(big_scale.status().message(), HasSubstr("(0, 1]"));
}

TEST(QnnCanonical, AvgPool2DPoolsInInt32AfterRequantizing) {
  const AttrList attrs = {{"pool_size", Ints({2, 2})}};
  // Same parameters: (1 + 2 + 3 + 5) / 4 in int32 = 2 (truncated).
  auto same = RunOp1("qnn.avg_pool2d",
                     {Tensor<int8_t>({1, 1, 2, 2}, {1, 2, 3, 5}), F32(1), I32(0), F32(1), I32(0)},
                     attrs);
  CARVE_ASSERT_OK(same);
  EXPECT_THAT(Values<int8_t>(*same), ElementsAre(2));
  // Scale 1 -> 0.5, zero point 3: 2x + 3 = (5, 7, 9, 13), 34 / 4 = 8.
  auto requant = RunOp1(
      "qnn.avg_pool2d",
      {Tensor<uint8_t>({1, 1, 2, 2}, {1, 2, 3, 5}), F32(1), I32(0), F32(0.5), I32(3)}, attrs);
  CARVE_ASSERT_OK(requant);
  EXPECT_THAT(Values<uint8_t>(*requant), ElementsAre(8));
  // 200 -> 2 * 200 + 3 = 403 in int32, clipped to 255.
  auto clipped = RunOp1(
      "qnn.avg_pool2d",
      {Tensor<uint8_t>({1, 1, 2, 2}, {200, 200, 200, 200}), F32(1), I32(0), F32(0.5), I32(3)},
      attrs);
  CARVE_ASSERT_OK(clipped);
  EXPECT_THAT(Values<uint8_t>(*clipped), ElementsAre(255));
}

TEST(QnnCanonical, Conv2DTransposeSubtractsZeroPointsInInt16) {
  // One input pixel (3 - 1 = 2) spread over a 2x2 kernel (w - 2).
  auto one = RunOp1("qnn.conv2d_transpose",
                    {Tensor<uint8_t>({1, 1, 1, 1}, {3}), Tensor<int8_t>({1, 1, 2, 2}, {1, 2, 3, 4}),
                     I32(1), I32(2), F32(1), F32(1)},
                    {{"kernel_size", Ints({2, 2})}, {"channels", Int(1)},
                     {"out_dtype", Str("int32")}});
  CARVE_ASSERT_OK(one);
  EXPECT_THAT(Values<int32_t>(*one), ElementsAre(-2, 0, 2, 4));

  // A larger case against nn.conv2d_transpose on the shifted values.
  std::vector<uint8_t> x(2 * 3 * 3);
  std::vector<int8_t> w(2 * 3 * 2 * 2);
  std::vector<float> xs, ws;
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = uint8_t((i * 37) % 256);
    xs.push_back(float(int(x[i]) - 128));
  }
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = int8_t(int(i * 53 % 256) - 128);
    ws.push_back(float(int(w[i]) + 3));
  }
  const AttrList attrs = {{"kernel_size", Ints({2, 2})}, {"channels", Int(3)},
                          {"strides", Ints({2, 2})},     {"padding", Ints({1, 0, 0, 1})},
                          {"out_dtype", Str("int32")}};
  auto q = RunOp1("qnn.conv2d_transpose",
                  {Tensor<uint8_t>({1, 2, 3, 3}, x), Tensor<int8_t>({2, 3, 2, 2}, w), I32(128),
                   I32(-3), F32(1), F32(1)},
                  attrs);
  AttrList float_attrs = attrs;
  float_attrs.back() = {"out_dtype", Str("float32")};
  auto f = RunOp1("nn.conv2d_transpose",
                  {Tensor<float>({1, 2, 3, 3}, xs), Tensor<float>({2, 3, 2, 2}, ws)}, float_attrs);
  CARVE_ASSERT_OK(q);
  CARVE_ASSERT_OK(f);
  EXPECT_EQ(AsDoubles(*q), AsDoubles(*f));
}

}  // namespace
}  // namespace carve::testing
