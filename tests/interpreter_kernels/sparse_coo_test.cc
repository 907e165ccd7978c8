// sparse_fill_empty_rows and sparse_reshape against values worked out by
// hand from topi's definitions (python/tvm/topi/sparse_fill_empty_rows.py,
// sparse_reshape.py at v0.16.0); the first cases are TensorFlow's examples.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SparseFillEmptyRows, FillsRowsWithoutEntries) {
  // Entries at rows 0, 0, 2 of 5 rows: rows 1, 3 and 4 get (row, 0) = 9.
  auto outs = RunOp("sparse_fill_empty_rows",
                    {Tensor<int64_t>({3, 2}, {0, 1, 0, 3, 2, 0}), Tensor<int64_t>({3}, {10, 11, 12}),
                     Tensor<int64_t>({2}, {5, 6}), Tensor<int64_t>({1}, {9})});
  CARVE_ASSERT_OK(outs);
  ASSERT_EQ(outs->size(), 3u);
  EXPECT_THAT(Values<int64_t>((*outs)[0]),
              ElementsAre(0, 1, 0, 3, 1, 0, 2, 0, 3, 0, 4, 0));
  EXPECT_THAT(Values<int64_t>((*outs)[1]), ElementsAre(10, 11, 9, 12, 9, 9));
  EXPECT_THAT(Values<int64_t>((*outs)[2]), ElementsAre(0, 1, 0, 1, 1));
}

TEST(SparseFillEmptyRows, NoEntriesFillsEveryRow) {
  auto outs = RunOp("sparse_fill_empty_rows",
                    {Tensor<int64_t>({0, 3}, {}), Tensor<float>({0}, {}),
                     Tensor<int64_t>({3}, {2, 4, 4}), Tensor<float>({1}, {-1})});
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<int64_t>((*outs)[0]), ElementsAre(0, 0, 0, 1, 0, 0));
  EXPECT_THAT(Values<int64_t>((*outs)[1]), ElementsAre(-1, -1));
  EXPECT_THAT(Values<int64_t>((*outs)[2]), ElementsAre(1, 1));
}

TEST(SparseFillEmptyRows, UnsortedOrOutOfRangeRowsAreErrors) {
  auto unsorted = RunOp("sparse_fill_empty_rows",
                        {Tensor<int64_t>({2, 1}, {2, 1}), Tensor<int64_t>({2}, {1, 2}),
                         Tensor<int64_t>({1}, {3}), Tensor<int64_t>({1}, {0})});
  ASSERT_FALSE(unsorted.ok());
  EXPECT_THAT(unsorted.status().message(), HasSubstr("non-decreasing"));
  auto outside = RunOp("sparse_fill_empty_rows",
                       {Tensor<int64_t>({1, 1}, {3}), Tensor<int64_t>({1}, {1}),
                        Tensor<int64_t>({1}, {3}), Tensor<int64_t>({1}, {0})});
  ASSERT_FALSE(outside.ok());
}

TEST(SparseReshape, ReshapesIndicesAndInfersMinusOne) {
  // TensorFlow's example: [2, 3, 6] -> [9, -1] (-1 = 4).
  auto outs = RunOp("sparse_reshape",
                    {Tensor<int64_t>({5, 3}, {0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 2, 3}),
                     Tensor<int64_t>({3}, {2, 3, 6}), Tensor<int64_t>({2}, {9, -1})});
  CARVE_ASSERT_OK(outs);
  // Flat positions 0, 1, 6, 18, 33 in rows of 4.
  EXPECT_THAT(Values<int64_t>((*outs)[0]), ElementsAre(0, 0, 0, 1, 1, 2, 4, 2, 8, 1));
  EXPECT_THAT(Values<int64_t>((*outs)[1]), ElementsAre(9, 4));
}

TEST(SparseReshape, SameShapeCopiesAndZeroProductIsAnError) {
  auto same = RunOp("sparse_reshape",
                    {Tensor<int32_t>({1, 2}, {1, 5}), Tensor<int64_t>({2}, {2, 6}),
                     Tensor<int64_t>({2}, {2, -1})});
  CARVE_ASSERT_OK(same);
  EXPECT_THAT(Values<int32_t>((*same)[0]), ElementsAre(1, 5));
  EXPECT_THAT(Values<int64_t>((*same)[1]), ElementsAre(2, 6));
  auto zero = RunOp("sparse_reshape",
                    {Tensor<int64_t>({1, 2}, {0, 0}), Tensor<int64_t>({2}, {2, 6}),
                     Tensor<int64_t>({2}, {0, -1})});
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("product of 0"));
}

}  // namespace
}  // namespace carve::testing
