// max / min with TVM v0.16's reducer semantics: the identity is the dtype's
// lowest / highest finite value (tir min_value / max_value), and the
// combine is LLVM's select(acc > x, acc, x) of tir Max (an ordered compare),
// so a NaN replaces the running value and the next element replaces it.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(TvmReduceSemantics, EmptyAxisGivesTheFiniteLimits) {
  NDArray empty = Tensor<float>({2, 0}, {});
  auto mx = RunOp1("max", {empty}, {{"axis", Ints({1})}});
  auto mn = RunOp1("min", {empty}, {{"axis", Ints({1})}});
  CARVE_ASSERT_OK(mx);
  CARVE_ASSERT_OK(mn);
  EXPECT_THAT(Values<float>(*mx), ElementsAre(std::numeric_limits<float>::lowest(),
                                              std::numeric_limits<float>::lowest()));
  EXPECT_THAT(Values<float>(*mn), ElementsAre(std::numeric_limits<float>::max(),
                                              std::numeric_limits<float>::max()));
  auto mx64 = RunOp1("max", {Tensor<double>({0}, {})});
  CARVE_ASSERT_OK(mx64);
  EXPECT_THAT(Values<double>(*mx64), ElementsAre(std::numeric_limits<double>::lowest()));
  auto mx16 = RunOp1("max", {Tensor<Half>({0}, {})});
  CARVE_ASSERT_OK(mx16);
  EXPECT_EQ(float(Values<Half>(*mx16)[0]), -65504.0f);
  auto mn_int = RunOp1("min", {Tensor<int32_t>({0}, {})});
  CARVE_ASSERT_OK(mn_int);
  EXPECT_THAT(Values<int32_t>(*mn_int), ElementsAre(std::numeric_limits<int32_t>::max()));
}

TEST(TvmReduceSemantics, NanIsKeptOnlyWhenLast) {
  // Rows: NaN in the middle (the elements after it decide), NaN last, NaN
  // first (the next element replaces it).
  NDArray x = Tensor<float>({3, 3}, {1, kNaN, 0.5, 1, 2, kNaN, kNaN, -3, -4});
  auto mx = RunOp1("max", {x}, {{"axis", Ints({1})}});
  CARVE_ASSERT_OK(mx);
  std::vector<float> v = Values<float>(*mx);
  EXPECT_EQ(v[0], 0.5f);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], -3.0f);
  auto mn = RunOp1("min", {x}, {{"axis", Ints({1})}});
  CARVE_ASSERT_OK(mn);
  v = Values<float>(*mn);
  EXPECT_EQ(v[0], 0.5f);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], -4.0f);
  // Down a leading axis (the kernel's strided path): column 1 is 2, NaN, 0.
  auto cols = RunOp1("max", {Tensor<float>({3, 2}, {1, 2, 3, kNaN, 0, 0})}, {{"axis", Ints({0})}});
  CARVE_ASSERT_OK(cols);
  EXPECT_THAT(Values<float>(*cols), ElementsAre(3, 0));
}

TEST(TvmReduceSemantics, NanRuleHoldsInEveryLoopShape) {
  // Nine rows of [5, NaN, 1] (the kernel's eight-row blocks and its tail):
  // each gives 1.
  std::vector<float> rows;
  for (int i = 0; i < 9; ++i) rows.insert(rows.end(), {5, kNaN, 1});
  auto out = RunOp1("max", {Tensor<float>({9, 3}, rows)}, {{"axis", Ints({1})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ::testing::Each(1.0f));
}

}  // namespace
}  // namespace carve::testing
