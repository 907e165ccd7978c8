// Kernels of the shape-like, indexing and sorting ops added for TVM's full
// op list, against values worked out by hand or with numpy (the comment on
// each names the numpy call that gives the expectation).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = float(i);
  return v;
}

TEST(TvmTransformOps, ReshapeLikeAndReverseReshape) {
  NDArray x = Tensor<float>({2, 3, 4}, Iota(24));
  auto out = RunOp1("reshape_like", {x, Tensor<float>({6, 4}, std::vector<float>(24))});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(6, 4));
  EXPECT_THAT(Values<float>(*out), ElementsAreArray(Iota(24)));
  out = RunOp1("contrib_reverse_reshape", {x}, {{"newshape", Ints({-1, 0})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(6, 4));
}

TEST(TvmTransformOps, BroadcastToAndCollapseSum) {
  NDArray v = Tensor<float>({2}, {1, 2});
  auto out = RunOp1("broadcast_to", {v}, {{"shape", Ints({2, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, 1, 2));
  // np.arange(24).reshape(2, 3, 4).sum(axis=(0, 1))
  out = RunOp1("collapse_sum_like",
               {Tensor<float>({2, 3, 4}, Iota(24)), Tensor<float>({4}, {0, 0, 0, 0})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(60, 66, 72, 78));
}

TEST(TvmTransformOps, FullLikeCastLikeReinterpret) {
  NDArray x = Tensor<float>({2}, {1.5f, -2.5f});
  auto out = RunOp1("full_like", {x, Tensor<float>({}, {7})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(7, 7));
  out = RunOp1("cast_like", {x, Tensor<int32_t>({1}, {0})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(1, -2));
  out = RunOp1("reinterpret", {Tensor<float>({1}, {1.0f})}, {{"dtype", Str("int32")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(0x3f800000));
}

TEST(TvmTransformOps, SliceLikeTileReverse) {
  NDArray x = Tensor<float>({2, 3}, Iota(6));
  auto out = RunOp1("slice_like", {x, Tensor<float>({1, 2}, {0, 0})}, {{"axes", AttrValue()}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1));
  // np.tile([1, 2], (2, 2))
  out = RunOp1("tile", {Tensor<float>({2}, {1, 2})}, {{"reps", Ints({2, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(2, 4));
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, 1, 2, 1, 2, 1, 2));
  out = RunOp1("reverse", {x}, {{"axis", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(2, 1, 0, 5, 4, 3));
}

TEST(TvmTransformOps, ReverseSequenceAndSequenceMask) {
  NDArray x = Tensor<float>({2, 3}, Iota(6));  // batch 2, sequence 3
  auto out = RunOp1("reverse_sequence", {x, Tensor<int32_t>({2}, {2, 3})},
                    {{"seq_axis", Int(1)}, {"batch_axis", Int(0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 0, 2, 5, 4, 3));
  // sequence_mask with axis 1: x[b, t] masked where t >= valid_length[b].
  out = RunOp1("sequence_mask", {x, Tensor<int32_t>({2}, {1, 2})},
               {{"axis", Int(1)}, {"mask_value", Float(-1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, -1, -1, 3, 4, -1));
}

TEST(TvmTransformOps, OneHotShapeOfNdarraySize) {
  auto out = RunOp1("one_hot",
                    {Tensor<int32_t>({2}, {2, 0}), Tensor<float>({}, {5}), Tensor<float>({}, {-1})},
                    {{"depth", Int(3)}, {"dtype", Str("float32")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(-1, -1, 5, 5, -1, -1));
  out = RunOp1("one_hot",
               {Tensor<int32_t>({2}, {2, 0}), Tensor<float>({}, {1}), Tensor<float>({}, {0})},
               {{"depth", Int(3)}, {"axis", Int(0)}, {"dtype", Str("float32")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1, 0, 0, 1, 0));
  NDArray x = Tensor<float>({2, 3}, Iota(6));
  out = RunOp1("shape_of", {x}, {{"dtype", Str("int64")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int64_t>(*out), ElementsAre(2, 3));
  out = RunOp1("ndarray_size", {x}, {{"dtype", Str("int32")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(6));
}

TEST(TvmTransformOps, GatherNDAndScatterND) {
  // x[tuple([[0, 1, 1], [2, 0, 1]])] of np.arange(24).reshape(2, 3, 4)... with
  // M = 2 index rows over the first two axes.
  NDArray x = Tensor<float>({2, 3, 4}, Iota(24));
  auto out = RunOp1("gather_nd", {x, Tensor<int32_t>({2, 3}, {0, 1, 1, 2, 0, 1})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(3, 4));
  EXPECT_THAT(Values<float>(*out),
              ElementsAreArray(std::vector<float>{8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}));
  NDArray data = Tensor<float>({4}, {1, 1, 1, 1});
  NDArray idx = Tensor<int64_t>({1, 3}, {3, 0, 3});
  NDArray upd = Tensor<float>({3}, {10, 20, 30});
  out = RunOp1("scatter_nd", {data, idx, upd}, {{"mode", Str("add")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(21, 1, 1, 41));
  out = RunOp1("scatter_nd", {data, Tensor<int64_t>({1, 1}, {9}), Tensor<float>({1}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("out of range"));
}

TEST(TvmTransformOps, MeshgridTriluMatrixSetDiag) {
  auto outs = RunOp("meshgrid", {Tensor<float>({2}, {1, 2}), Tensor<float>({3}, {5, 6, 7})},
                    {{"indexing", Str("ij")}}, nullptr, /*tuple_input=*/true);
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(1, 1, 1, 2, 2, 2));
  EXPECT_THAT(Values<float>((*outs)[1]), ElementsAre(5, 6, 7, 5, 6, 7));
  // np.triu(np.arange(12).reshape(3, 4), 1) and np.tril(..., -1)
  NDArray m = Tensor<float>({3, 4}, Iota(12));
  auto out = RunOp1("trilu", {m, Tensor<int64_t>({}, {1})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11));
  out = RunOp1("trilu", {m, Tensor<int64_t>({}, {-1})}, {{"upper", Bool(false)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0));
  // The main diagonal of a 3x3 zero matrix set to 1, 2, 3.
  out = RunOp1("matrix_set_diag",
               {Tensor<float>({3, 3}, std::vector<float>(9)), Tensor<float>({3}, {1, 2, 3})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 0, 0, 0, 2, 0, 0, 0, 3));
  // Diagonals 0 and 1 (k1 = 0, k2 = 1): row 0 of `diagonal` is k = 1, right
  // aligned (offset 1 in a row of 3), row 1 is k = 0.
  out = RunOp1(
      "matrix_set_diag",
      {Tensor<float>({3, 3}, std::vector<float>(9)), Tensor<float>({2, 3}, {0, 7, 8, 1, 2, 3})},
      {{"k1", Int(0)}, {"k2", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 7, 0, 0, 2, 8, 0, 0, 3));
}

TEST(TvmTransformOps, UnravelIndexInvertPermutationAdvIndex) {
  // np.unravel_index([7, 5, 0], (2, 4))
  auto out =
      RunOp1("unravel_index", {Tensor<int64_t>({3}, {7, 5, 0}), Tensor<int64_t>({2}, {2, 4})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int64_t>(*out), ElementsAre(1, 1, 0, 3, 1, 0));
  out = RunOp1("invert_permutation", {Tensor<int32_t>({4}, {2, 0, 3, 1})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(1, 3, 0, 2));
  // x[np.array([1, 0]), np.array([[2], [0]])] of np.arange(24).reshape(2, 3, 4)
  auto outs = RunOp("adv_index",
                    {Tensor<float>({2, 3, 4}, Iota(24)), Tensor<int64_t>({2}, {1, 0}),
                     Tensor<int64_t>({2, 1}, {2, 0})},
                    {}, nullptr, /*tuple_input=*/true);
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT((*outs)[0].shape(), ElementsAre(2, 2, 4));
  EXPECT_THAT(Values<float>((*outs)[0]),
              ElementsAreArray(
                  std::vector<float>{20, 21, 22, 23, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3}));
}

TEST(TvmTransformOps, SortArgsortSearchsorted) {
  NDArray x = Tensor<float>({2, 3}, {3, 1, 2, 0, 5, 5});
  auto out = RunOp1("argsort", {x});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(1, 2, 0, 0, 1, 2));
  out = RunOp1("argsort", {x}, {{"is_ascend", Bool(false)}, {"dtype", Str("int64")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int64_t>(*out), ElementsAre(0, 2, 1, 1, 2, 0));  // ties keep order
  out = RunOp1("sort", {x}, {{"axis", Int(0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1, 2, 3, 5, 5));
  // np.searchsorted([1, 2, 2, 3], [2, 0, 5, 2.5]) and side='right'
  NDArray seq = Tensor<float>({4}, {1, 2, 2, 3});
  NDArray v = Tensor<float>({4}, {2, 0, 5, 2.5f});
  out = RunOp1("searchsorted", {seq, v});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(1, 0, 4, 3));
  out = RunOp1("searchsorted", {seq, v}, {{"right", Bool(true)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(3, 0, 4, 3));
}

TEST(TvmTransformOps, ArgwhereUniqueArangeCumprod) {
  auto out = RunOp1("argwhere", {Tensor<float>({2, 2}, {0, 3, 4, 0})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(2, 2));
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(0, 1, 1, 0));
  auto outs =
      RunOp("unique", {Tensor<int32_t>({5}, {4, 1, 4, 3, 1})}, {{"return_counts", Bool(true)}});
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<int32_t>((*outs)[0]), ElementsAre(1, 3, 4, 0, 0));
  EXPECT_THAT(Values<int32_t>((*outs)[1]), ElementsAre(1, 3, 0, 0, 0));
  EXPECT_THAT(Values<int32_t>((*outs)[2]), ElementsAre(2, 0, 2, 1, 0));
  EXPECT_THAT(Values<int32_t>((*outs)[3]), ElementsAre(3));
  EXPECT_THAT(Values<int32_t>((*outs)[4]), ElementsAre(2, 1, 2, 0, 0));
  out =
      RunOp1("arange", {Tensor<float>({}, {1}), Tensor<float>({}, {2}), Tensor<float>({}, {0.25f})},
             {{"dtype", Str("float32")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 1.25f, 1.5f, 1.75f));
  out = RunOp1("cumprod", {Tensor<float>({2, 2}, {1, 2, 3, 4})}, {{"axis", Int(0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, 3, 8));
}

TEST(TvmTransformOps, Einsum) {
  NDArray a = Tensor<float>({2, 3}, Iota(6));
  NDArray b = Tensor<float>({3, 4}, Iota(12));
  // np.einsum('ij,jk->ik', a, b)
  auto outs = RunOp("einsum", {a, b}, {{"equation", Str("ij,jk->ik")}}, nullptr, true);
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(20, 23, 26, 29, 56, 68, 80, 92));
  outs = RunOp("einsum", {Tensor<float>({3, 3}, Iota(9))}, {{"equation", Str("ii->i")}}, nullptr,
               true);
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(0, 4, 8));
  outs = RunOp("einsum", {a}, {{"equation", Str("ij->")}}, nullptr, true);
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(15));
  // Implicit output: np.einsum('i,j', [1, 2], [3, 4, 5]) is the outer product.
  outs = RunOp("einsum", {Tensor<float>({2}, {1, 2}), Tensor<float>({3}, {3, 4, 5})},
               {{"equation", Str("i,j")}}, nullptr, true);
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(3, 4, 5, 6, 8, 10));
  // np.einsum('...ij->...ji', np.arange(24).reshape(2, 3, 4))[0, :2]
  outs = RunOp("einsum", {Tensor<float>({2, 3, 4}, Iota(24))}, {{"equation", Str("...ij->...ji")}},
               nullptr, true);
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT((*outs)[0].shape(), ElementsAre(2, 4, 3));
  std::vector<float> t = Values<float>((*outs)[0]);
  t.resize(6);
  EXPECT_THAT(t, ElementsAre(0, 4, 8, 1, 5, 9));
  outs = RunOp("einsum", {a, b}, {{"equation", Str("ij,kk->ik")}}, nullptr, true);
  ASSERT_FALSE(outs.ok());
  EXPECT_THAT(std::string(outs.status().message()), HasSubstr("label 'k'"));
}

TEST(TvmTransformOps, FixedPointMultiply) {
  NDArray x = Tensor<int32_t>({4}, {10, -10, 7, 1000});
  // multiplier 2^30 is 0.5 in Q31: x * 0.5 * 2^shift, the exact-power path.
  auto out = RunOp1("fixed_point_multiply", {x}, {{"multiplier", Int(1 << 30)}, {"shift", Int(0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(5, -5, 4, 500));
  // 0.75 * x (1610612736 = 0.75 * 2^31), rounded half up.
  out = RunOp1("fixed_point_multiply", {x}, {{"multiplier", Int(1610612736)}, {"shift", Int(0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(8, -7, 5, 750));
  out = RunOp1("fixed_point_multiply", {x}, {{"multiplier", Int(1610612736)}, {"shift", Int(2)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(30, -30, 21, 3000));
}

}  // namespace
}  // namespace carve::testing
