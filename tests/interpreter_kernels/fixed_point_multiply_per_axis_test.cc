// fixed_point_multiply_per_axis against values worked out by hand from
// TVM's q_multiply_shift_per_axis legalization (src/target/intrin_rule.cc at
// v0.16.0): ((x << ls) * m + 2^(rs + 30)) >> (rs + 31) in int64.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FixedPointMultiplyPerAxis, PerChannelScales) {
  // x (2, 2); channel 0 multiplies by 0.5 (m = 2^30), channel 1 by 0.75
  // (m = 3 * 2^29) with right shift 1 (0.375). Values round half up.
  auto out = RunOp1("fixed_point_multiply_per_axis",
                    {Tensor<int32_t>({2, 2}, {10, 10, -3, 7}),
                     Tensor<int32_t>({2}, {1 << 30, 3 << 29}), Tensor<int32_t>({2}, {0, 0}),
                     Tensor<int32_t>({2}, {0, 1})},
                    {{"axes", Ints({1})}});  // the right shift applies without the flag
  CARVE_ASSERT_OK(out);
  // 5, 3.75 -> 4, -1.5 -> -1, 2.625 -> 3.
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(5, 4, -1, 3));
}

TEST(FixedPointMultiplyPerAxis, LeftShiftOnlyWhenRequired) {
  // m = 2^30 (0.5), left shift 2: 3 * 4 * 0.5 = 6 with the flag, 1.5 -> 2
  // without it.
  std::vector<NDArray> in = {Tensor<int32_t>({1, 1}, {3}), Tensor<int32_t>({1}, {1 << 30}),
                             Tensor<int32_t>({1}, {2}), Tensor<int32_t>({1}, {0})};
  auto with = RunOp1("fixed_point_multiply_per_axis", in,
                     {{"axes", Ints({0})}, {"is_lshift_required", Bool(true)}});
  CARVE_ASSERT_OK(with);
  EXPECT_THAT(Values<int32_t>(*with), ElementsAre(6));
  auto without = RunOp1("fixed_point_multiply_per_axis", in, {{"axes", Ints({0})}});
  CARVE_ASSERT_OK(without);
  EXPECT_THAT(Values<int32_t>(*without), ElementsAre(2));
}

TEST(FixedPointMultiplyPerAxis, ParameterShapeAndShiftErrors) {
  auto shape = RunOp1("fixed_point_multiply_per_axis",
                      {Tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor<int32_t>({2}, {1, 1}),
                       Tensor<int32_t>({2}, {0, 0}), Tensor<int32_t>({2}, {0, 0})},
                      {{"axes", Ints({1})}});
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), HasSubstr("x's extents at axes"));
  auto shift = RunOp1("fixed_point_multiply_per_axis",
                      {Tensor<int32_t>({1}, {1}), Tensor<int32_t>({1}, {1}),
                       Tensor<int32_t>({1}, {0}), Tensor<int32_t>({1}, {40})},
                      {{"axes", Ints({0})}});
  ASSERT_FALSE(shift.ok());
  EXPECT_THAT(shift.status().message(), HasSubstr("outside the int64 range"));
}

}  // namespace
}  // namespace carve::testing
