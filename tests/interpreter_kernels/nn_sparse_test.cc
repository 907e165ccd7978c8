// nn.sparse_transpose, nn.sparse_add and nn.sparse_conv2d against values
// worked out by hand from topi's definitions (python/tvm/topi/nn/sparse.py
// at v0.16.0).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SparseTranspose, CsrTranspose) {
  // [[1, 0, 2], [0, 0, 3], [4, 5, 0]] -> [[1, 0, 4], [0, 0, 5], [2, 3, 0]].
  auto outs = RunOp("nn.sparse_transpose",
                    {Tensor<float>({5}, {1, 2, 3, 4, 5}), Tensor<int32_t>({5}, {0, 2, 2, 0, 1}),
                     Tensor<int32_t>({4}, {0, 2, 3, 5})});
  CARVE_ASSERT_OK(outs);
  ASSERT_EQ(outs->size(), 3u);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(1, 4, 5, 2, 3));
  EXPECT_THAT(Values<int32_t>((*outs)[1]), ElementsAre(0, 2, 2, 0, 1));
  EXPECT_THAT(Values<int32_t>((*outs)[2]), ElementsAre(0, 2, 3, 5));
}

TEST(SparseTranspose, EmptyMatrixAndBadIndex) {
  auto empty = RunOp("nn.sparse_transpose",
                     {Tensor<float>({0}, {}), Tensor<int32_t>({0}, {}), Tensor<int32_t>({3}, {0, 0, 0})});
  CARVE_ASSERT_OK(empty);
  EXPECT_THAT(Values<int32_t>((*empty)[2]), ElementsAre(0, 0, 0));
  auto bad = RunOp("nn.sparse_transpose",
                   {Tensor<float>({1}, {1}), Tensor<int32_t>({1}, {2}), Tensor<int32_t>({3}, {0, 1, 1})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("sparse_indices[0] = 2 is outside [0, 2)"));
  auto indptr = RunOp("nn.sparse_transpose",
                      {Tensor<float>({1}, {1}), Tensor<int32_t>({1}, {0}), Tensor<int32_t>({3}, {0, 2, 1})});
  ASSERT_FALSE(indptr.ok());
  EXPECT_THAT(indptr.status().message(), HasSubstr("sparse_indptr"));
}

TEST(SparseAdd, AddsCsrEntriesToTheDense) {
  // Row 0 gets 10 at column 1 twice (repeated entries add), row 1 nothing.
  auto out = RunOp1("nn.sparse_add",
                    {Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor<float>({3}, {10, 10, 7}),
                     Tensor<int32_t>({3}, {1, 1, 2}), Tensor<int32_t>({3}, {0, 3, 3})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 22, 10, 4, 5, 6));
}

TEST(SparseAdd, ColumnOutOfRange) {
  auto out = RunOp1("nn.sparse_add",
                    {Tensor<float>({1, 2}, {1, 2}), Tensor<float>({1}, {1}),
                     Tensor<int32_t>({1}, {5}), Tensor<int32_t>({2}, {0, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("outside [0, 2)"));
}

TEST(SparseConv2D, BsrOneByOneNhwc) {
  // Data (1, 1, 2, 4): pixel p channel c = 10 p + c. Weight (4 out x 4 in)
  // in 2x2 blocks: block row 0 holds block column 1 [[1, 0], [0, 1]], block
  // row 1 holds block column 0 [[1, 1], [0, 2]]. Output channels: (c2, c3,
  // c0 + c1, 2 c1).
  auto out = RunOp1("nn.sparse_conv2d",
                    {Tensor<float>({1, 1, 2, 4}, {0, 1, 2, 3, 10, 11, 12, 13}),
                     Tensor<float>({2, 2, 2}, {1, 0, 0, 1, 1, 1, 0, 2}),
                     Tensor<int32_t>({2}, {1, 0}), Tensor<int32_t>({3}, {0, 1, 2})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(2, 3, 1, 2, 12, 13, 21, 22));
}

TEST(SparseConv2D, TwoDimBlocksNchw) {
  // A (blocks, bs_r) weight: block e of row b reads data channel
  // indices[e]. Rows: out0 = 2 c1, out1 = 3 c1 (row 0: one block at column
  // 1, values (2, 3)); out2 = out3 = 0 (row 1 empty).
  auto out = RunOp1("nn.sparse_conv2d",
                    {Tensor<float>({1, 2, 1, 2}, {1, 2, 5, 7}), Tensor<float>({1, 2}, {2, 3}),
                     Tensor<int32_t>({1}, {1}), Tensor<int32_t>({3}, {0, 1, 1})},
                    {{"layout", Str("NCHW")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(10, 14, 15, 21, 0, 0, 0, 0));
}

TEST(SparseConv2D, ThreeByThreeOnCpu) {
  // One output channel over the 9 im2col columns of a 1x2 one-channel
  // image: 2 at column 4 (the centre) and 10 at column 5 (the right
  // neighbour, 0 past the edge): out[x] = 2 d[x] + 10 d[x + 1].
  for (const char* layout : {"NHWC", "NCHW"}) {
    const std::vector<int64_t> shape = std::string(layout) == "NHWC"
                                           ? std::vector<int64_t>{1, 1, 2, 1}
                                           : std::vector<int64_t>{1, 1, 1, 2};
    auto out = RunOp1("nn.sparse_conv2d",
                      {Tensor<float>(shape, {1, 2}), Tensor<float>({2, 1, 1}, {2, 10}),
                       Tensor<int32_t>({2}, {4, 5}), Tensor<int32_t>({2}, {0, 2})},
                      {{"kernel_size", Ints({3, 3})}, {"layout", Str(layout)}});
    CARVE_ASSERT_OK(out);
    EXPECT_THAT(Values<float>(*out), ElementsAre(22, 4)) << layout;
  }
}

TEST(SparseConv2D, ThreeByThreeColumnOrderNhwc) {
  // Two channels: NHWC columns are (ky, kx, c), so the centre tap (1, 1)
  // is columns 8 (channel 0: 1, 2) and 9 (channel 1: 5, 7);
  // out = c0 + 3 c1.
  auto out = RunOp1("nn.sparse_conv2d",
                    {Tensor<float>({1, 1, 2, 2}, {1, 5, 2, 7}), Tensor<float>({2, 1, 1}, {1, 3}),
                     Tensor<int32_t>({2}, {8, 9}), Tensor<int32_t>({2}, {0, 2})},
                    {{"kernel_size", Ints({3, 3})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(16, 23));
}

TEST(SparseConv2D, OtherKernelSizesHaveNoCompute) {
  auto out = RunOp1("nn.sparse_conv2d",
                    {Tensor<float>({1, 1, 1, 2}, {1, 2}), Tensor<float>({1, 2}, {2, 3}),
                     Tensor<int32_t>({1}, {1}), Tensor<int32_t>({2}, {0, 1})},
                    {{"kernel_size", Ints({5, 5})}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("has no compute"));
}

}  // namespace
}  // namespace carve::testing
