// Reductions against hand-computed values: axis sets, keepdims, exclude,
// integer mean truncation, argmax ties, variance.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

// x[i][j][k] = 100 i + 10 j + k over (2, 3, 2).
NDArray Cube() {
  std::vector<float> v;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) v.push_back(100 * i + 10 * j + k);
  return Tensor<float>({2, 3, 2}, v);
}

TEST(ReduceKernel, SumOverAllAxesIsRankZero) {
  auto out = RunOp1("sum", {Cube()});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->rank(), 0u);
  EXPECT_THAT(Values<float>(*out), ElementsAre(726));  // 6*100 + 4*(0+10+20) + 6*1
}

TEST(ReduceKernel, SumMiddleAxisKeepdims) {
  auto out = RunOp1("sum", {Cube()}, {{"axis", Ints({1})}, {"keepdims", Bool(true)}});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_THAT(Values<float>(*out), ElementsAre(30, 33, 330, 333));
}

TEST(ReduceKernel, ExcludeReducesTheOtherAxes) {
  // exclude axis 1: reduce axes 0 and 2.
  auto out = RunOp1("max", {Cube()}, {{"axis", Ints({1})}, {"exclude", Bool(true)}});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{3}));
  EXPECT_THAT(Values<float>(*out), ElementsAre(101, 111, 121));
}

TEST(ReduceKernel, NegativeAxesMinProd) {
  auto mn = RunOp1("min", {Cube()}, {{"axis", Ints({-1, 0})}});
  CARVE_ASSERT_OK(mn);
  EXPECT_THAT(Values<float>(*mn), ElementsAre(0, 10, 20));
  auto prod = RunOp1("prod", {Tensor<int32_t>({2, 3}, {1, 2, 3, -4, 5, 6})}, {{"axis", Ints({1})}});
  CARVE_ASSERT_OK(prod);
  EXPECT_THAT(Values<int32_t>(*prod), ElementsAre(6, -120));
}

TEST(ReduceKernel, MeanOfIntegersTruncates) {
  auto out = RunOp1("mean", {Tensor<int32_t>({2, 2}, {1, 2, -3, -4})}, {{"axis", Ints({1})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(1, -3));  // 3/2 -> 1, -7/2 -> -3
  auto f = RunOp1("mean", {Cube()}, {{"axis", Ints({0, 2})}});
  CARVE_ASSERT_OK(f);
  EXPECT_THAT(Values<float>(*f), ElementsAre(50.5f, 60.5f, 70.5f));
}

TEST(ReduceKernel, Float16MeanAccumulatesInFloat) {
  // A float16 running sum of ones stalls at 2048 (2049 is not a float16), so
  // a mean of 4096 ones is 1 only when accumulated in float.
  std::vector<Half> v(4096, Half(1.0f));
  auto out = RunOp1("mean", {Tensor<Half>({4096}, v)});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->GetAsDouble(0), 1.0);
  auto sum = RunOp1("sum", {Tensor<Half>({4096}, v)});
  CARVE_ASSERT_OK(sum);
  EXPECT_EQ(sum->GetAsDouble(0), 4096.0);
}

TEST(ReduceKernel, ArgmaxTiesAndLastIndex) {
  auto x = Tensor<float>({2, 4}, {1, 5, 5, 2, 7, 0, 7, 7});
  auto first = RunOp1("argmax", {x}, {{"axis", Ints({1})}});
  auto last = RunOp1("argmax", {x}, {{"axis", Ints({1})}, {"select_last_index", Bool(true)}});
  auto amin = RunOp1("argmin", {x}, {{"axis", Ints({1})}, {"keepdims", Bool(true)}});
  CARVE_ASSERT_OK(first);
  CARVE_ASSERT_OK(last);
  CARVE_ASSERT_OK(amin);
  EXPECT_EQ(first->dtype(), DataType::Int(32));
  EXPECT_THAT(Values<int32_t>(*first), ElementsAre(1, 0));
  EXPECT_THAT(Values<int32_t>(*last), ElementsAre(2, 3));
  EXPECT_EQ(amin->shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_THAT(Values<int32_t>(*amin), ElementsAre(0, 1));
  // All axes: the flat index.
  auto all = RunOp1("argmax", {Cube()});
  CARVE_ASSERT_OK(all);
  EXPECT_THAT(Values<int32_t>(*all), ElementsAre(11));
}

TEST(ReduceKernel, VarianceBiasedAndUnbiased) {
  auto x = Tensor<float>({2, 3}, {1, 2, 3, 2, 4, 9});
  auto mean = RunOp1("mean", {x}, {{"axis", Ints({1})}, {"keepdims", Bool(true)}});
  CARVE_ASSERT_OK(mean);
  auto var = RunOp1("variance", {x, *mean}, {{"axis", Ints({1})}});
  auto unbiased = RunOp1("variance", {x, *mean}, {{"axis", Ints({1})}, {"unbiased", Bool(true)}});
  CARVE_ASSERT_OK(var);
  CARVE_ASSERT_OK(unbiased);
  EXPECT_THAT(Values<float>(*var),
              Pointwise(DoubleNear(1e-5), std::vector<float>{2.f / 3, 26.f / 3}));
  EXPECT_THAT(Values<float>(*unbiased), Pointwise(DoubleNear(1e-5), std::vector<float>{1, 13}));
}

TEST(ReduceKernel, AllAny) {
  auto x = Tensor<bool>({2, 2}, {true, false, true, true});
  auto all = RunOp1("all", {x}, {{"axis", Ints({1})}});
  auto any = RunOp1("any", {x}, {{"axis", Ints({0})}});
  CARVE_ASSERT_OK(all);
  CARVE_ASSERT_OK(any);
  EXPECT_THAT(Values<bool>(*all), ElementsAre(false, true));
  EXPECT_THAT(Values<bool>(*any), ElementsAre(true, true));
}

TEST(ReduceKernel, BadAxisFails) {
  auto out = RunOp1("sum", {Cube()}, {{"axis", Ints({3})}}, TensorTy(DataType::Float(32), {}));
  EXPECT_FALSE(out.ok());
}

}  // namespace
}  // namespace carve::testing
