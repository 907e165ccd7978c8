// Kernels of the nn and image ops added for TVM's full op list, against
// values worked out by hand or with numpy (named in the comments).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = float(i);
  return v;
}

AttrValue Pads(std::initializer_list<std::pair<int64_t, int64_t>> pads) {
  std::vector<AttrValue> rows;
  for (auto [a, b] : pads) rows.push_back(AttrValue::Ints({a, b}));
  return AttrValue::Array(rows);
}

TEST(TvmNnOps, AdaptivePools) {
  // Bins [0, 4), [3, 7), [6, 10) of 0..9.
  NDArray x = Tensor<float>({1, 1, 10}, Iota(10));
  auto out = RunOp1("nn.adaptive_avg_pool1d", {x}, {{"output_size", Ints({3})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1.5f, 4.5f, 7.5f));
  out = RunOp1("nn.adaptive_max_pool1d", {x}, {{"output_size", Ints({3})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(3, 6, 9));
  NDArray v = Tensor<float>({1, 1, 2, 2, 2}, Iota(8));
  out = RunOp1("nn.adaptive_avg_pool3d", {v}, {{"output_size", Ints({1})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(3.5f));
  out = RunOp1("nn.adaptive_max_pool3d", {v}, {{"output_size", Ints({2, 1, 1})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(3, 7));
}

TEST(TvmNnOps, LrnL2NormalizeGroupNorm) {
  // Channels 1, 2, 3 with size 3: c / (2 + 1e-4 * Σ c² / 3)^0.75.
  auto out = RunOp1("nn.lrn", {Tensor<float>({1, 3, 1, 1}, {1, 2, 3})}, {{"size", Int(3)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out),
              Pointwise(FloatNear(1e-6f), std::vector<float>{0.5945664f, 1.1889990f, 1.7835209f}));
  out = RunOp1("nn.l2_normalize", {Tensor<float>({1, 2}, {3, 4})},
               {{"eps", Float(1e-12)}, {"axis", Ints({1})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), Pointwise(FloatNear(1e-6f), std::vector<float>{0.6f, 0.8f}));
  // Groups {1, 2} and {3, 5}, each normalised to -1, 1 (eps 1e-5).
  NDArray g = Tensor<float>({1, 4, 1, 1}, {1, 2, 3, 5});
  NDArray ones = Tensor<float>({4}, {1, 1, 1, 1});
  NDArray zeros = Tensor<float>({4}, {0, 0, 0, 0});
  out = RunOp1("nn.group_norm", {g, ones, zeros}, {{"num_groups", Int(2)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(
      Values<float>(*out),
      Pointwise(FloatNear(1e-6f), std::vector<float>{-0.99998f, 0.99998f, -0.999995f, 0.999995f}));
}

TEST(TvmNnOps, MirrorPadAndDilate) {
  // np.pad([1, 2, 3], (2, 1), mode='symmetric') and mode='reflect'
  NDArray x = Tensor<float>({3}, {1, 2, 3});
  auto out = RunOp1("nn.mirror_pad", {x}, {{"pad_width", Pads({{2, 1}})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(2, 1, 1, 2, 3, 3));
  out = RunOp1("nn.mirror_pad", {x}, {{"pad_width", Pads({{2, 1}})}, {"mode", Str("REFLECT")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(3, 2, 1, 2, 3, 2));
  out = RunOp1("nn.dilate", {x}, {{"strides", Ints({2})}, {"dilation_value", Float(-1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, -1, 2, -1, 3));
}

TEST(TvmNnOps, SpaceToBatchAndBack) {
  // (1, 4, 1) with block 2: batch 0 holds positions 0, 2, batch 1 holds 1, 3.
  NDArray x = Tensor<float>({1, 4, 1}, {0, 1, 2, 3});
  auto out = RunOp1("nn.space_to_batch_nd", {x},
                    {{"block_shape", Ints({2})}, {"paddings", Pads({{0, 0}})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(2, 2, 1));
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 2, 1, 3));
  auto back = RunOp1("nn.batch_to_space_nd", {*out},
                     {{"block_shape", Ints({2})}, {"crops", Pads({{0, 0}})}});
  CARVE_ASSERT_OK(back);
  EXPECT_THAT(Values<float>(*back), ElementsAre(0, 1, 2, 3));
  // Padding 1 before and after: padded [p, 0, 1, 2, 3, p] with pad_value 9.
  out = RunOp1("nn.space_to_batch_nd", {x},
               {{"block_shape", Ints({2})}, {"paddings", Pads({{1, 1}})}, {"pad_value", Float(9)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(9, 1, 3, 0, 2, 9));
  back = RunOp1("nn.batch_to_space_nd", {*out},
                {{"block_shape", Ints({2})}, {"crops", Pads({{1, 1}})}});
  CARVE_ASSERT_OK(back);
  EXPECT_THAT(Values<float>(*back), ElementsAre(0, 1, 2, 3));
}

TEST(TvmNnOps, LossesAndFifo) {
  NDArray p = Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray t = Tensor<int64_t>({2}, {0, 2});
  NDArray w = Tensor<float>({3}, {1, 2, 3});
  // losses -p[0, 0] * 1 = -1 and -p[1, 2] * 3 = -18; mean divides by 1 + 3.
  auto out = RunOp1("nn.nll_loss", {p, t, w}, {{"ignore_index", Int(-100)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(-4.75f));
  out = RunOp1("nn.nll_loss", {p, t, w}, {{"reduction", Str("none")}, {"ignore_index", Int(2)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(-1, 0));
  // -(log 0.5 * 1 + log 0.25 * 1) / 2 batches
  NDArray probs = Tensor<float>({2, 1}, {0.5f, 0.25f});
  out = RunOp1("nn.cross_entropy", {probs, Tensor<float>({2, 1}, {1, 1})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out)[0], FloatNear(1.0397208f, 1e-6f));
  out = RunOp1("nn.cross_entropy_with_logits", {probs, Tensor<float>({2, 1}, {2, 4})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(-1));
  out = RunOp1("nn.fifo_buffer",
               {Tensor<float>({1, 2}, {8, 9}), Tensor<float>({1, 5}, {1, 2, 3, 4, 5})},
               {{"axis", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(3, 4, 5, 8, 9));
}

TEST(TvmNnOps, AffineGridAndResize1D) {
  // Identity theta on a 2x2 grid: x and y run from -1 to -1 + (2 - 1e-7).
  auto out = RunOp1("image.affine_grid", {Tensor<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0})},
                    {{"target_shape", Ints({2, 2})}});
  CARVE_ASSERT_OK(out);
  const float e = -1.0f + 1.9999999f;
  EXPECT_THAT(Values<float>(*out), ElementsAre(-1, e, -1, e, -1, -1, e, e));
  NDArray x = Tensor<float>({1, 1, 4}, {0, 1, 2, 3});
  // half_pixel nearest with rounding "round": input x / 2 - 0.25 rounded.
  out = RunOp1("image.resize1d", {x}, {{"size", Ints({8})}, {"method", Str("nearest_neighbor")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  out = RunOp1("image.resize1d", {x},
               {{"size", Ints({7})}, {"coordinate_transformation_mode", Str("align_corners")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0.5f, 1, 1.5f, 2, 2.5f, 3));
  out = RunOp1("image.resize1d", {Tensor<float>({1, 4, 1}, {0, 1, 2, 3})},
               {{"size", Ints({7})},
                {"layout", Str("NWC")},
                {"coordinate_transformation_mode", Str("align_corners")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0.5f, 1, 1.5f, 2, 2.5f, 3));
}

}  // namespace
}  // namespace carve::testing

namespace carve::testing {
namespace {

TEST(TvmNnOps, SlidingWindowAndStridedSet) {
  // Windows of 3 every 2 over 0..5: starts 0 and 2.
  auto out = RunOp1("sliding_window", {Tensor<float>({1, 6}, {0, 1, 2, 3, 4, 5})},
                    {{"axis", Int(1)}, {"window_shape", Ints({3})}, {"strides", Ints({2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ::testing::ElementsAre(1, 2, 3));
  EXPECT_THAT(Values<float>(*out), ::testing::ElementsAre(0, 1, 2, 2, 3, 4));
  // data[1:5:2] = [7, 8]
  out = RunOp1("strided_set",
               {Tensor<float>({5}, {0, 0, 0, 0, 0}), Tensor<float>({2}, {7, 8}),
                Tensor<int64_t>({1}, {1}), Tensor<int64_t>({1}, {5}), Tensor<int64_t>({1}, {2})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ::testing::ElementsAre(0, 7, 0, 8, 0));
}

TEST(TvmNnOps, SparseDenseAndDensePack) {
  // S = [[1, 0, 2], [0, 3, 0]] in CSR; dense [1, 1, 2]: dense . S^T = [5, 3].
  NDArray dense = Tensor<float>({1, 3}, {1, 1, 2});
  auto out =
      RunOp1("nn.sparse_dense", {dense, Tensor<float>({3}, {1, 2, 3}),
                                 Tensor<int32_t>({3}, {0, 2, 1}), Tensor<int32_t>({3}, {0, 2, 3})});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ::testing::ElementsAre(5, 3));
  // weight[0] = [[1, 2], [3, 4]] (K = 2, n = 2): [1, 2] . columns = [7, 10].
  out = RunOp1("nn.contrib_dense_pack",
               {Tensor<float>({1, 2}, {1, 2}), Tensor<float>({1, 2, 2}, {1, 2, 3, 4})},
               {{"units", Int(2)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ::testing::ElementsAre(7, 10));
}

}  // namespace
}  // namespace carve::testing
