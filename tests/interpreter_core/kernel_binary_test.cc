// Binary elementwise kernels against hand-computed values: broadcasting
// corners, integer division and modulo signs, wrapping, comparisons.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

TEST(BinaryKernel, AddSameShape) {
  auto out = RunOp1("add", {Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                            Tensor<float>({2, 3}, {10, 20, 30, 40, 50, 60})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(Values<float>(*out), ElementsAre(11, 22, 33, 44, 55, 66));
}

TEST(BinaryKernel, BroadcastRowAgainstColumn) {
  // (3, 1) - (1, 4) -> (3, 4): out[i][j] = a[i] - b[j].
  auto out = RunOp1("subtract",
                    {Tensor<int32_t>({3, 1}, {10, 20, 30}), Tensor<int32_t>({1, 4}, {1, 2, 3, 4})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(9, 8, 7, 6, 19, 18, 17, 16, 29, 28, 27, 26));
}

TEST(BinaryKernel, BroadcastScalarAndRankExtension) {
  auto out = RunOp1("multiply",
                    {Tensor<double>({}, {2.5}), Tensor<double>({2, 1, 3}, {1, 2, 3, 4, 5, 6})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_THAT(Values<double>(*out), ElementsAre(2.5, 5, 7.5, 10, 12.5, 15));
}

TEST(BinaryKernel, BroadcastMiddleAxis) {
  // (2, 3, 2) + (3, 1): a channel-like bias broadcast over the last axis.
  std::vector<float> a(12);
  for (int i = 0; i < 12; ++i) a[i] = i;
  auto out = RunOp1("add", {Tensor<float>({2, 3, 2}, a), Tensor<float>({3, 1}, {100, 200, 300})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out),
              ElementsAre(100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311));
}

TEST(BinaryKernel, IncompatibleShapesFail) {
  auto out = RunOp1("add", {Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor<float>({2}, {1, 2})},
                    {}, TensorTy(DataType::Float(32), {2, 3}));
  EXPECT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("broadcast"));
}

TEST(BinaryKernel, IntegerDivideTruncates) {
  auto out = RunOp1("divide",
                    {Tensor<int32_t>({4}, {7, -7, 7, -7}), Tensor<int32_t>({4}, {2, 2, -2, -2})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(3, -3, -3, 3));
}

TEST(BinaryKernel, FloorDivideAndModIntegers) {
  auto a = Tensor<int32_t>({4}, {7, -7, 7, -7});
  auto b = Tensor<int32_t>({4}, {2, 2, -2, -2});
  auto q = RunOp1("floor_divide", {a, b});
  auto r = RunOp1("floor_mod", {a, b});
  CARVE_ASSERT_OK(q);
  CARVE_ASSERT_OK(r);
  EXPECT_THAT(Values<int32_t>(*q), ElementsAre(3, -4, -4, 3));
  // The remainder takes the sign of the divisor; q * b + r == a.
  EXPECT_THAT(Values<int32_t>(*r), ElementsAre(1, 1, -1, -1));
}

TEST(BinaryKernel, FloorDivideAndModFloats) {
  auto a = Tensor<float>({3}, {7.5f, -7.5f, 5.0f});
  auto b = Tensor<float>({3}, {2.0f, 2.0f, -3.0f});
  auto q = RunOp1("floor_divide", {a, b});
  auto r = RunOp1("floor_mod", {a, b});
  CARVE_ASSERT_OK(q);
  CARVE_ASSERT_OK(r);
  EXPECT_THAT(Values<float>(*q), ElementsAre(3.0f, -4.0f, -2.0f));
  EXPECT_THAT(Values<float>(*r), ElementsAre(1.5f, 0.5f, -1.0f));
}

TEST(BinaryKernel, TruncModIntegers) {
  auto out = RunOp1("mod", {Tensor<int64_t>({2}, {-7, 7}), Tensor<int64_t>({2}, {2, -2})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int64_t>(*out), ElementsAre(-1, 1));
}

TEST(BinaryKernel, IntegerDivisionByZeroIsAnError) {
  auto out = RunOp1("floor_divide", {Tensor<int32_t>({2}, {1, 2}), Tensor<int32_t>({2}, {1, 0})});
  EXPECT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("division by zero"));
}

TEST(BinaryKernel, IntMinDividedByMinusOneWraps) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  auto out = RunOp1("divide", {Tensor<int32_t>({1}, {kMin}), Tensor<int32_t>({1}, {-1})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(kMin));
}

TEST(BinaryKernel, IntegerAddAndMultiplyWrap) {
  auto sum = RunOp1("add", {Tensor<int8_t>({2}, {127, -128}), Tensor<int8_t>({2}, {1, -1})});
  auto prod = RunOp1("multiply", {Tensor<uint8_t>({1}, {200}), Tensor<uint8_t>({1}, {2})});
  auto big = RunOp1("multiply", {Tensor<int32_t>({1}, {1 << 30}), Tensor<int32_t>({1}, {4})});
  CARVE_ASSERT_OK(sum);
  CARVE_ASSERT_OK(prod);
  CARVE_ASSERT_OK(big);
  EXPECT_THAT(Values<int8_t>(*sum), ElementsAre(-128, 127));
  EXPECT_THAT(Values<uint8_t>(*prod), ElementsAre(144));
  EXPECT_THAT(Values<int32_t>(*big), ElementsAre(0));
}

TEST(BinaryKernel, PowerMaximumMinimum) {
  auto a = Tensor<float>({3}, {2, -1, 9});
  auto b = Tensor<float>({3}, {3, 2, 0.5});
  auto p = RunOp1("power", {a, b});
  auto mx = RunOp1("maximum", {a, b});
  auto mn = RunOp1("minimum", {a, b});
  CARVE_ASSERT_OK(p);
  CARVE_ASSERT_OK(mx);
  CARVE_ASSERT_OK(mn);
  EXPECT_THAT(Values<float>(*p), ElementsAre(8, 1, 3));
  EXPECT_THAT(Values<float>(*mx), ElementsAre(3, 2, 9));
  EXPECT_THAT(Values<float>(*mn), ElementsAre(2, -1, 0.5));
  auto ip = RunOp1("power", {Tensor<int32_t>({3}, {3, -2, 5}), Tensor<int32_t>({3}, {4, 3, -1})});
  CARVE_ASSERT_OK(ip);
  EXPECT_THAT(Values<int32_t>(*ip), ElementsAre(81, -8, 0));
}

TEST(BinaryKernel, ComparisonsProduceBool) {
  auto a = Tensor<float>({4}, {1, 2, 3, NAN});
  auto b = Tensor<float>({}, {2});
  auto lt = RunOp1("less", {a, b});
  auto ge = RunOp1("greater_equal", {a, b});
  auto ne = RunOp1("not_equal", {a, b});
  CARVE_ASSERT_OK(lt);
  CARVE_ASSERT_OK(ge);
  CARVE_ASSERT_OK(ne);
  EXPECT_EQ(lt->dtype(), DataType::Bool());
  EXPECT_THAT(Values<bool>(*lt), ElementsAre(true, false, false, false));
  EXPECT_THAT(Values<bool>(*ge), ElementsAre(false, true, true, false));
  EXPECT_THAT(Values<bool>(*ne), ElementsAre(true, false, true, true));
}

TEST(BinaryKernel, LogicalOps) {
  auto a = Tensor<bool>({4}, {true, true, false, false});
  auto b = Tensor<bool>({4}, {true, false, true, false});
  auto a_and = RunOp1("logical_and", {a, b});
  auto a_or = RunOp1("logical_or", {a, b});
  auto a_xor = RunOp1("logical_xor", {a, b});
  CARVE_ASSERT_OK(a_and);
  CARVE_ASSERT_OK(a_or);
  CARVE_ASSERT_OK(a_xor);
  EXPECT_THAT(Values<bool>(*a_and), ElementsAre(true, false, false, false));
  EXPECT_THAT(Values<bool>(*a_or), ElementsAre(true, true, true, false));
  EXPECT_THAT(Values<bool>(*a_xor), ElementsAre(false, true, true, false));
}

TEST(BinaryKernel, BitwiseAndShifts) {
  auto a = Tensor<int32_t>({4}, {12, -8, 1, 5});
  auto b = Tensor<int32_t>({4}, {10, 1, 40, 2});
  auto band = RunOp1("bitwise_and", {a, b});
  auto bxor = RunOp1("bitwise_xor", {a, b});
  auto shl = RunOp1("left_shift", {a, b});
  auto shr = RunOp1("right_shift", {a, b});
  CARVE_ASSERT_OK(band);
  CARVE_ASSERT_OK(bxor);
  CARVE_ASSERT_OK(shl);
  CARVE_ASSERT_OK(shr);
  EXPECT_THAT(Values<int32_t>(*band), ElementsAre(8, 0, 0, 0));
  EXPECT_THAT(Values<int32_t>(*bxor), ElementsAre(6, -7, 41, 7));
  EXPECT_THAT(Values<int32_t>(*shl), ElementsAre(12 << 10, -16, 0, 20));  // 40 >= 32 bits: 0
  EXPECT_THAT(Values<int32_t>(*shr), ElementsAre(0, -4, 0, 1));
  EXPECT_FALSE(RunOp1("left_shift", {Tensor<float>({1}, {1}), Tensor<float>({1}, {1})}).ok());
}

TEST(BinaryKernel, Float16ComputesThroughFloat) {
  auto a = Tensor<Half>({2}, {Half(1.5f), Half(-2.0f)});
  auto b = Tensor<Half>({2}, {Half(0.25f), Half(4.0f)});
  auto out = RunOp1("multiply", {a, b});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(0.375, -8.0));
}

TEST(BinaryKernel, DtypeMismatchFails) {
  auto out = RunOp1("add", {Tensor<float>({1}, {1}), Tensor<int32_t>({1}, {1})}, {},
                    TensorTy(DataType::Float(32), {1}));
  EXPECT_FALSE(out.ok());
}

TEST(BinaryKernel, LongBroadcastMatchesNaiveLoop) {
  // (4, 5, 6) * (5, 1) + the naive triple loop, covering collapsed runs.
  std::vector<int64_t> a(120), b(5);
  for (int i = 0; i < 120; ++i) a[i] = i - 60;
  for (int i = 0; i < 5; ++i) b[i] = 3 - i;
  auto out = RunOp1("multiply", {Tensor<int64_t>({4, 5, 6}, a), Tensor<int64_t>({5, 1}, b)});
  CARVE_ASSERT_OK(out);
  std::vector<int64_t> want;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 5; ++j) {
      for (int k = 0; k < 6; ++k) want.push_back(a[(i * 5 + j) * 6 + k] * b[j]);
    }
  }
  EXPECT_THAT(Values<int64_t>(*out), ElementsAreArray(want));
}

}  // namespace
}  // namespace carve::testing
