// The statistics of `carve run --compare` (backends/compare.h): which rule
// passes an element, the count out of tolerance, the worst element and its
// multi-dimensional index, NaN on one side, explosion, merging calls.
#include <cmath>
#include <vector>

#include "backends/compare.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

NDArray Tensor(DataType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  NDArray a = NDArray::Empty(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) a.SetFromDouble(int64_t(i), values[i]);
  return a;
}

NDArray F32(std::vector<int64_t> shape, const std::vector<double>& values) {
  return Tensor(DataType::Float(32), std::move(shape), values);
}

TEST(CompareStatsTest, CountsAndWorstIndexAreMultiDimensional) {
  // 2x3; elements 1 and 5 differ, 5 by most: worst index [1, 2].
  NDArray ref = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray got = F32({2, 3}, {1, 2.5, 3, 4, 5, 7});
  ErrorStats s = *CompareTensors(got, ref, 1e-4, 1e-5);
  EXPECT_EQ(s.elements, 6);
  EXPECT_EQ(s.out_of_tolerance, 2);
  EXPECT_FALSE(s.within);
  ASSERT_TRUE(s.has_worst);
  EXPECT_EQ(s.worst_index, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(s.worst_got, 7);
  EXPECT_EQ(s.worst_ref, 6);
  EXPECT_DOUBLE_EQ(s.max_abs, 1);
  EXPECT_DOUBLE_EQ(s.max_rel, 0.25);  // 0.5 / 2 at [0, 1]
  EXPECT_EQ(s.scale, 6);
}

TEST(CompareStatsTest, EqualTensorsHaveNoWorstElement) {
  NDArray ref = F32({4}, {1, -2, 0, 3});
  ErrorStats s = *CompareTensors(ref, ref, 0, 0);
  EXPECT_TRUE(s.within);
  EXPECT_FALSE(s.has_worst);
  EXPECT_EQ(s.out_of_tolerance, 0);
  EXPECT_EQ(s.max_abs, 0);
}

TEST(CompareStatsTest, NormWiseRulePassesNearZeroElementsAndIsCounted) {
  // |a-b| = 1e-3 at a reference of 1e-3: far beyond the elementwise rule
  // (1e-5 + 1e-4 * 1e-3), within rtol * max|b| = 1e-4 * 100.
  NDArray ref = F32({2}, {100, 1e-3});
  NDArray got = F32({2}, {100, 2e-3});
  ErrorStats s = *CompareTensors(got, ref, 1e-4, 1e-5);
  EXPECT_TRUE(s.within);
  EXPECT_TRUE(s.norm_rule);
  EXPECT_EQ(s.by_norm_rule, 1);
  EXPECT_EQ(s.out_of_tolerance, 0);
  // Integers keep the elementwise rule alone.
  NDArray iref = Tensor(DataType::Int(32), {2}, {100, 0});
  NDArray igot = Tensor(DataType::Int(32), {2}, {100, 2});
  ErrorStats i = *CompareTensors(igot, iref, 1e-4, 1);
  EXPECT_FALSE(i.norm_rule);
  EXPECT_FALSE(i.within);
  EXPECT_EQ(i.out_of_tolerance, 1);
  EXPECT_EQ(i.worst_index, (std::vector<int64_t>{1}));
}

TEST(CompareStatsTest, NanOnOneSideIsAMismatchAndTheWorst) {
  // The backend turned a NaN into 0 (oneDNN's relu); a larger numeric error
  // elsewhere does not hide it.
  NDArray ref = F32({3}, {NAN, 1, NAN});
  NDArray got = F32({3}, {0, 5, NAN});
  ErrorStats s = *CompareTensors(got, ref, 1e-4, 1e-5);
  EXPECT_FALSE(s.within);
  EXPECT_EQ(s.nan_one_side, 1);
  EXPECT_EQ(s.out_of_tolerance, 2);
  EXPECT_EQ(s.worst_index, (std::vector<int64_t>{0}));
  EXPECT_EQ(s.nonfinite_both, 1);  // element 2: NaN on both sides is equal
  EXPECT_TRUE(s.exploded());
}

TEST(CompareStatsTest, LargeMagnitudesExplode) {
  NDArray ref = F32({2}, {6e8, 1});
  ErrorStats s = *CompareTensors(ref, ref, 1e-4, 1e-5);
  EXPECT_TRUE(s.within);
  EXPECT_EQ(s.max_magnitude, 6e8);
  EXPECT_TRUE(s.exploded());
  EXPECT_FALSE(CompareTensors(F32({1}, {1e5}), F32({1}, {1e5}), 0, 0)->exploded());
}

TEST(CompareStatsTest, MergeKeepsTheWorstCallAndSumsCounts) {
  NDArray ref = F32({2, 2}, {1, 2, 3, 4});
  ErrorStats merged;
  merged.Merge(*CompareTensors(F32({2, 2}, {1, 2, 3, 4.5}), ref, 1e-4, 1e-5));
  merged.Merge(*CompareTensors(F32({2, 2}, {1, 4, 3, 4}), ref, 1e-4, 1e-5));
  merged.Merge(*CompareTensors(ref, ref, 1e-4, 1e-5));
  EXPECT_EQ(merged.count, 3);
  EXPECT_EQ(merged.elements, 12);
  EXPECT_EQ(merged.out_of_tolerance, 2);
  EXPECT_EQ(merged.worst_call, 1);
  EXPECT_EQ(merged.worst_index, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(merged.worst_got, 4);
  EXPECT_DOUBLE_EQ(merged.max_abs, 2);
}

TEST(CompareStatsTest, ShapeMismatchIsAnError) {
  EXPECT_FALSE(CompareTensors(F32({2}, {1, 2}), F32({1, 2}, {1, 2}), 0, 0).ok());
}

}  // namespace
}  // namespace carve
