// vision.get_valid_counts and vision.roi_pool against hand-computed results
// that follow topi's definitions (python/tvm/topi/vision at v0.16.0).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

using ::testing::ElementsAreArray;

const Type* ValidCountsType(int64_t batch, int64_t anchors, int64_t width) {
  std::vector<const Type*> fields = {TypeOf(DataType::Int(32), {batch}),
                                     TypeOf(DataType::Float(32), {batch, anchors, width}),
                                     TypeOf(DataType::Int(32), {batch, anchors})};
  return TupleTy(fields);
}

// Rows [class id, score, x1, y1, x2, y2]: row 1 has a negative class id, row
// 2 a score under the threshold.
NDArray Boxes() {
  return Tensor<float>({1, 4, 6}, {0,  0.9, 1, 1, 2, 2,  //
                                   -1, 0.8, 3, 3, 4, 4,  //
                                   1,  0.2, 5, 5, 6, 6,  //
                                   2,  0.7, 7, 7, 8, 8});
}

TEST(VisionKernels, GetValidCountsMovesValidBoxesUp) {
  auto outs = RunKernel(
      "vision.get_valid_counts", {Boxes(), Scalar<float>(0.5)},
      MakeAttrs("relay.attrs.GetValidCountsAttrs",
                {{"score_threshold", Float(0.5)}, {"id_index", Int(0)}, {"score_index", Int(1)}}),
      ValidCountsType(1, 4, 6));
  CARVE_ASSERT_OK(outs);
  ASSERT_EQ(outs->size(), 3u);
  EXPECT_THAT(AsDoubles((*outs)[0]), ElementsAreArray({2.0}));
  std::vector<double> rows = AsDoubles((*outs)[1]);
  std::vector<double> want = {0, 0.9, 1, 1, 2, 2, 2, 0.7, 7, 7, 8, 8};
  want.resize(24, -1.0);
  ExpectNear(rows, want, 1e-6);
  EXPECT_THAT(AsDoubles((*outs)[2]), ElementsAreArray({0.0, 3.0, -1.0, -1.0}));
}

TEST(VisionKernels, GetValidCountsWithoutClassIds) {
  // id_index -1: the negative class id no longer disqualifies row 1.
  auto outs = RunKernel(
      "vision.get_valid_counts", {Boxes(), Scalar<float>(0.5)},
      MakeAttrs("relay.attrs.GetValidCountsAttrs",
                {{"score_threshold", Float(0.5)}, {"id_index", Int(-1)}, {"score_index", Int(1)}}),
      ValidCountsType(1, 4, 6));
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(AsDoubles((*outs)[0]), ElementsAreArray({3.0}));
  EXPECT_THAT(AsDoubles((*outs)[2]), ElementsAreArray({0.0, 1.0, 3.0, -1.0}));
  std::vector<double> rows = AsDoubles((*outs)[1]);
  EXPECT_EQ(rows[2 * 6 + 1], 0.7f);  // row 3 moved to slot 2
  EXPECT_EQ(rows[3 * 6 + 0], -1.0);
}

absl::StatusOr<NDArray> RoiPool(const NDArray& rois, std::vector<int64_t> pooled,
                                double scale = 1.0) {
  std::vector<double> values(16);
  for (int i = 0; i < 16; ++i) values[i] = i;  // data[h][w] = 4h + w
  NDArray data = Tensor<float>({1, 1, 4, 4}, values);
  AttrValue size = pooled.size() == 2 ? Ints({pooled[0], pooled[1]}) : Ints({pooled[0]});
  int64_t ph = pooled[0], pw = pooled.size() == 2 ? pooled[1] : pooled[0];
  return RunKernel1("vision.roi_pool", {data, rois},
                    MakeAttrs("relay.attrs.ROIPoolAttrs",
                              {{"pooled_size", size}, {"spatial_scale", Float(scale)}}),
                    TypeOf(DataType::Float(32), {rois.shape()[0], 1, ph, pw}));
}

TEST(VisionKernels, RoiPoolMaxPerBin) {
  // ROI 0 covers the image (bins of 2x2); ROI 1 the centre 2x2 (bins of 1).
  NDArray rois = Tensor<float>({2, 5}, {0, 0, 0, 3, 3, 0, 1, 1, 2, 2});
  auto out = RoiPool(rois, {2, 2});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAreArray({5.0, 7.0, 13.0, 15.0, 5.0, 6.0, 9.0, 10.0}));
}

TEST(VisionKernels, RoiPoolRoundsHalfAwayFromZeroAndScales) {
  // Corners 0.5 and 2.5 round to 1 and 3 (llvm.round), so the one bin is
  // rows and columns 1..3: max 15. (Half-to-even would give 0..2: max 10.)
  auto out = RoiPool(Tensor<float>({1, 5}, {0, 0.5, 0.5, 2.5, 2.5}), {1});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAreArray({15.0}));
  // spatial_scale 0.5 maps image corners (0, 0)-(4, 4) to 0..2: max 10.
  out = RoiPool(Tensor<float>({1, 5}, {0, 0, 0, 4, 4}), {1}, 0.5);
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAreArray({10.0}));
}

TEST(VisionKernels, RoiPoolEmptyBinIsZeroAndBadBatchIsAnError) {
  // An ROI right of the image: every bin clamps to an empty range.
  auto out = RoiPool(Tensor<float>({1, 5}, {0, 9, 0, 12, 3}), {1, 2});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAreArray({0.0, 0.0}));
  out = RoiPool(Tensor<float>({1, 5}, {1, 0, 0, 3, 3}), {1});
  EXPECT_FALSE(out.ok());
}

}  // namespace
}  // namespace carve::kernel_testing
