// Kernels of the vision ops (issue 21) against TVM v0.16's own test values
// (tests/python/relay/test_op_level5.py: test_non_max_suppression,
// test_multibox_transform_loc, test_all_class_non_max_suppression,
// test_proposal) and against values worked out by hand from topi's
// definitions (each case says how).
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "at " << i;
  }
}

std::vector<double> Minus1Rows(std::vector<double> rows, size_t total) {
  rows.resize(total, -1.0);
  return rows;
}

// ---- non_max_suppression: TVM's test_non_max_suppression ----

NDArray TvmNmsData(int width) {
  std::vector<float> v = {0, 0.8, 1, 20, 25, 45, 1, 0.7, 30, 60,  50, 80, 0, 0.4, 4,
                          21, 19, 40, 2, 0.9, 35, 61, 52, 79, 1, 0.5, 100, 60, 70, 110};
  if (width == 6) return Tensor<float>({1, 5, 6}, v);
  std::vector<float> wide;
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 6; ++c) wide.push_back(v[r * 6 + c]);
    for (int c = 0; c < 4; ++c) wide.push_back(float(4 * r + c + 1));
  }
  return Tensor<float>({1, 5, 10}, wide);
}

absl::StatusOr<std::vector<NDArray>> TvmNms(const NDArray& data, int32_t max_out, AttrList attrs) {
  return RunOp("vision.non_max_suppression",
               {data, Tensor<int32_t>({1}, {4}), Tensor<int32_t>({1, 5}, {0, 1, 3, 4, -1}),
                Tensor<int32_t>({}, {max_out}), Tensor<float>({}, {0.5f})},
               attrs);
}

TEST(TvmVisionOps, NonMaxSuppressionTvmCases) {
  const std::vector<double> rows = Minus1Rows(
      {2, 0.9, 35, 61, 52, 79, 0, 0.8, 1, 20, 25, 45}, 30);
  // force_suppress, top_k 2, no output limit; then the limit 2 with top_k 2.
  for (auto [max_out, force] : {std::pair{-1, true}, std::pair{2, false}}) {
    auto boxes = TvmNms(TvmNmsData(6), max_out,
                        {{"force_suppress", Bool(force)}, {"top_k", Int(2)},
                         {"return_indices", Bool(false)}});
    CARVE_ASSERT_OK(boxes);
    ExpectClose(AsDoubles((*boxes)[0]), rows);
    auto idx = TvmNms(TvmNmsData(6), max_out,
                      {{"force_suppress", Bool(force)}, {"top_k", Int(2)}});
    CARVE_ASSERT_OK(idx);
    ASSERT_EQ(idx->size(), 2u);
    EXPECT_THAT(Values<int32_t>((*idx)[0]), ElementsAre(4, 0, -1, -1, -1));
    EXPECT_THAT(Values<int32_t>((*idx)[1]), ElementsAre(2));
  }
  // Ten values per box: the extra columns travel with their box.
  auto wide = TvmNms(TvmNmsData(10), 2,
                     {{"force_suppress", Bool(true)}, {"top_k", Int(2)},
                      {"return_indices", Bool(false)}});
  CARVE_ASSERT_OK(wide);
  ExpectClose(AsDoubles((*wide)[0]),
              Minus1Rows({2, 0.9, 35, 61, 52, 79, 13, 14, 15, 16, 0, 0.8, 1, 20, 25, 45, 1, 2,
                          3, 4},
                         50));
}

// Rows [class, score, x1, y1, x2, y2]: box 1 overlaps box 0 (same class) by
// 81 / 119 = 0.68; box 2 is box 0's square in class 1; box 3 is apart.
NDArray OverlapBoxes() {
  return Tensor<float>({1, 4, 6}, {0, 0.9, 0, 0, 10, 10, 0, 0.8, 1, 1, 11, 11,  //
                                   1, 0.7, 0, 0, 10, 10, 0, 0.6, 20, 20, 30, 30});
}

absl::StatusOr<std::vector<NDArray>> Nms(float iou, int32_t max_out, AttrList attrs) {
  return RunOp("vision.non_max_suppression",
               {OverlapBoxes(), Tensor<int32_t>({1}, {4}), Tensor<int32_t>({1, 4}, {0, 1, 2, 3}),
                Tensor<int32_t>({}, {max_out}), Tensor<float>({}, {iou})},
               attrs);
}

TEST(TvmVisionOps, NonMaxSuppressionByClass) {
  auto per_class = Nms(0.5f, -1, {});
  CARVE_ASSERT_OK(per_class);
  EXPECT_THAT(Values<int32_t>((*per_class)[0]), ElementsAre(0, 2, 3, -1));
  EXPECT_THAT(Values<int32_t>((*per_class)[1]), ElementsAre(3));
  auto forced = Nms(0.5f, -1, {{"force_suppress", Bool(true)}});
  CARVE_ASSERT_OK(forced);
  EXPECT_THAT(Values<int32_t>((*forced)[0]), ElementsAre(0, 3, -1, -1));
  // A suppressed row is -1 in place; invalid_to_bottom packs the rest up.
  auto rows = Nms(0.5f, -1, {{"return_indices", Bool(false)}});
  CARVE_ASSERT_OK(rows);
  std::vector<double> got = AsDoubles((*rows)[0]);
  EXPECT_THAT(std::vector<double>(got.begin() + 6, got.begin() + 12), ElementsAre(-1, -1, -1, -1, -1, -1));
  auto packed = Nms(0.5f, -1, {{"return_indices", Bool(false)}, {"invalid_to_bottom", Bool(true)}});
  CARVE_ASSERT_OK(packed);
  ExpectClose(AsDoubles((*packed)[0]),
              Minus1Rows({0, 0.9, 0, 0, 10, 10, 1, 0.7, 0, 0, 10, 10, 0, 0.6, 20, 20, 30, 30}, 24));
}

TEST(TvmVisionOps, NonMaxSuppressionLimitsAndZeroThreshold) {
  auto one = Nms(0.5f, 1, {});
  CARVE_ASSERT_OK(one);
  EXPECT_THAT(Values<int32_t>((*one)[0]), ElementsAre(0, -1, -1, -1));
  // iou_threshold <= 0: the valid boxes are copied, unsorted and unsuppressed.
  auto copy = Nms(0.0f, -1, {{"return_indices", Bool(false)}});
  CARVE_ASSERT_OK(copy);
  ExpectClose(AsDoubles((*copy)[0]), AsDoubles(OverlapBoxes()));
}

// ---- multibox_transform_loc: TVM's test_multibox_transform_loc ----

TEST(TvmVisionOps, MultiboxTransformLocTvmCase) {
  NDArray cls = Tensor<float>({1, 3, 3}, {0.2, 0.5, 0.3, 0.25, 0.3, 0.45, 0.7, 0.1, 0.2});
  NDArray loc = Tensor<float>(
      {1, 12}, {0.1, -0.2, 0.3, 0.2, 0.2, 0.4, 0.5, -0.3, 0.7, -0.2, -0.4, -0.8});
  NDArray anchor = Tensor<float>({1, 3, 4}, {-0.1, -0.1, 0.1, 0.1, -0.2, -0.2, 0.2, 0.2,  //
                                             1.2, 1.2, 1.5, 1.5});
  auto out = RunOp("vision.multibox_transform_loc", {cls, loc, anchor});
  CARVE_ASSERT_OK(out);
  // Before TVM's NMS sorts them: anchors in order, class - 1 and the best score.
  ExpectClose(AsDoubles((*out)[0]), {1, 0.7, 0, 0, 0.10818365, 0.10008108,  //
                                     0, 0.3, 0, 0, 0.22903419, 0.20435292,  //
                                     0, 0.45, 1, 1, 1, 1});
  EXPECT_THAT(Values<int32_t>((*out)[1]), ElementsAre(3));
  auto nms = RunOp("vision.non_max_suppression",
                   {(*out)[0], (*out)[1], (*out)[0], Tensor<int32_t>({}, {-1}),
                    Tensor<float>({}, {0.5f})},
                   {{"return_indices", Bool(false)}});
  CARVE_ASSERT_OK(nms);
  ExpectClose(AsDoubles((*nms)[0]), {1, 0.69999999, 0, 0, 0.10818365, 0.10008108,  //
                                     0, 0.44999999, 1, 1, 1, 1,                     //
                                     0, 0.30000001, 0, 0, 0.22903419, 0.20435292});
  auto keep_bg = RunOp("vision.multibox_transform_loc", {cls, loc, anchor},
                       {{"keep_background", Bool(true)}});
  CARVE_ASSERT_OK(keep_bg);
  auto nms_bg = RunOp("vision.non_max_suppression",
                      {(*keep_bg)[0], (*keep_bg)[1], (*keep_bg)[0], Tensor<int32_t>({}, {-1}),
                       Tensor<float>({}, {0.5f})},
                      {{"return_indices", Bool(false)}});
  CARVE_ASSERT_OK(nms_bg);
  ExpectClose(AsDoubles((*nms_bg)[0]), {2, 0.69999999, 0, 0, 0.10818365, 0.10008108,  //
                                        0, 0.49999999, 0, 0, 0.22903419, 0.20435292,  //
                                        1, 0.44999999, 1, 1, 1, 1});
}

// ---- multibox_prior: by hand from hybrid_multibox_prior ----

TEST(TvmVisionOps, MultiboxPriorBoxes) {
  // A 2x2 map: centres 0.25 / 0.75; size 0.5 gives half-extents 0.25, size
  // 0.25 gives 0.125, ratio 4 (sqrt 2) with size 0.5 gives 0.5 by 0.125.
  NDArray data = Tensor<float>({1, 1, 2, 2}, {0, 0, 0, 0});
  AttrList attrs = {{"sizes", AttrValue::Array({Float(0.5), Float(0.25)})},
                    {"ratios", AttrValue::Array({Float(1), Float(4)})}};
  auto out = RunOp1("vision.multibox_prior", {data}, attrs);
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(1, 12, 4));
  std::vector<double> v = AsDoubles(*out);
  ExpectClose(std::vector<double>(v.begin(), v.begin() + 12),
              {0, 0, 0.5, 0.5, 0.125, 0.125, 0.375, 0.375, -0.25, 0.125, 0.75, 0.375});
  ExpectClose(std::vector<double>(v.end() - 4, v.end()), {0.25, 0.625, 1.25, 0.875});
  attrs.emplace_back("clip", Bool(true));
  auto clipped = RunOp1("vision.multibox_prior", {data}, attrs);
  CARVE_ASSERT_OK(clipped);
  std::vector<double> c = AsDoubles(*clipped);
  ExpectClose(std::vector<double>(c.begin() + 8, c.begin() + 12), {0, 0.125, 0.75, 0.375});
  ExpectClose(std::vector<double>(c.end() - 4, c.end()), {0.25, 0.625, 1, 0.875});
}

// ---- all_class_non_max_suppression: TVM's test cases ----

absl::StatusOr<std::vector<NDArray>> AllClass(const NDArray& boxes, const NDArray& scores,
                                              int64_t max_out, float iou, float score,
                                              std::string_view format = "onnx") {
  return RunOp("vision.all_class_non_max_suppression",
               {boxes, scores, Tensor<int64_t>({}, {max_out}), Tensor<float>({}, {iou}),
                Tensor<float>({}, {score})},
               {{"output_format", Str(format)}});
}

TEST(TvmVisionOps, AllClassNmsTvmCases) {
  NDArray boxes = Tensor<float>(
      {2, 5, 4}, {0, 0, 0.3, 0.3, 0, 0, 0.4, 0.4, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.9, 0.9,
                  0.5, 0.5, 1, 1, 0, 0, 0.3, 0.3, 0, 0, 0.4, 0.4, 0.5, 0.5, 0.95, 0.95,
                  0.5, 0.5, 0.96, 0.96, 0.5, 0.5, 1, 1});
  std::vector<float> s = {0.1, 0.2, 0.6, 0.3, 0.9};
  std::vector<float> all;
  for (int i = 0; i < 4; ++i) all.insert(all.end(), s.begin(), s.end());
  auto out = AllClass(boxes, Tensor<float>({2, 2, 5}, all), 2, 0.8f, 0.0f);
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int64_t>((*out)[1]), ElementsAre(8));
  std::vector<int64_t> idx = Values<int64_t>((*out)[0]);
  ASSERT_EQ(idx.size(), 60u);
  EXPECT_THAT(std::vector<int64_t>(idx.begin(), idx.begin() + 24),
              ElementsAreArray({0, 0, 4, 0, 0, 2, 0, 1, 4, 0, 1, 2,  //
                                1, 0, 4, 1, 0, 1, 1, 1, 4, 1, 1, 1}));
  EXPECT_THAT(std::vector<int64_t>(idx.begin() + 24, idx.end()), ::testing::Each(0));

  NDArray boxes2 = Tensor<float>({1, 6, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9,  //
                                             0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101});
  NDArray scores2 = Tensor<float>({1, 1, 6}, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  auto out2 = AllClass(boxes2, scores2, 3, 0.5f, 0.4f);
  CARVE_ASSERT_OK(out2);
  EXPECT_THAT(Values<int64_t>((*out2)[1]), ElementsAre(2));
  std::vector<int64_t> idx2 = Values<int64_t>((*out2)[0]);
  EXPECT_THAT(std::vector<int64_t>(idx2.begin(), idx2.begin() + 6),
              ElementsAre(0, 0, 3, 0, 0, 0));
  // The same in TensorFlow's format: [class, box] rows and their scores per
  // batch, zeros after the count.
  auto tf = AllClass(boxes2, scores2, 3, 0.5f, 0.4f, "tensorflow");
  CARVE_ASSERT_OK(tf);
  ASSERT_EQ(tf->size(), 3u);
  EXPECT_THAT(Values<int64_t>((*tf)[0]), ElementsAre(0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  ExpectClose(AsDoubles((*tf)[1]), {0.95, 0.9, 0, 0, 0, 0});
  EXPECT_THAT(Values<int64_t>((*tf)[2]), ElementsAre(2));
  // max_output_boxes_per_class 0 means no limit; iou_threshold 0 keeps none.
  auto unlimited = AllClass(boxes2, scores2, 0, 0.5f, 0.4f);
  CARVE_ASSERT_OK(unlimited);
  EXPECT_THAT(Values<int64_t>((*unlimited)[1]), ElementsAre(2));
  auto none = AllClass(boxes2, scores2, 3, 0.0f, 0.4f);
  CARVE_ASSERT_OK(none);
  EXPECT_THAT(Values<int64_t>((*none)[1]), ElementsAre(0));
}

// ---- regular_non_max_suppression: by hand from hybrid_regular_nms ----

TEST(TvmVisionOps, RegularNmsMergesClassesByScore) {
  // [ymin, xmin, ymax, xmax]: box 1 overlaps box 0 by 0.9 / 1.1; box 2 apart.
  NDArray boxes = Tensor<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3});
  // Column 0 is the background; class 0 is column 1, class 1 column 2.
  NDArray scores = Tensor<float>({1, 3, 3}, {0.5, 0.9, 0.2,  //
                                             0.5, 0.8, 0.85,  //
                                             0.5, 0.3, 0.5});
  auto out = RunOp("vision.regular_non_max_suppression", {boxes, scores},
                   {{"max_detections_per_class", Int(2)}, {"max_detections", Int(2)},
                    {"num_classes", Int(2)}, {"iou_threshold", Float(0.5)},
                    {"score_threshold", Float(0.4)}});
  CARVE_ASSERT_OK(out);
  ASSERT_EQ(out->size(), 4u);
  // Class 0 keeps box 0 (box 1 suppressed, box 2 under the threshold);
  // class 1 keeps boxes 1 and 2; the best two overall are 0.9 and 0.85.
  ExpectClose(AsDoubles((*out)[0]), {0, 0, 1, 1, 0, 0.1, 1, 1.1});
  ExpectClose(AsDoubles((*out)[1]), {0, 1});
  ExpectClose(AsDoubles((*out)[2]), {0.9, 0.85});
  EXPECT_THAT(Values<int32_t>((*out)[3]), ElementsAre(2));
}

// ---- roi_align: by hand on a linear image, where bilinear sampling is exact ----

// data[b][c][h][w] = 4h + w + 100c + 1000b.
NDArray LinearImage(int64_t batch, int64_t channels, bool nhwc) {
  std::vector<float> v;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < channels * 16; ++i) {
      const int64_t c = nhwc ? i % channels : i / 16, hw = nhwc ? i / channels : i % 16;
      v.push_back(float(hw + 100 * c + 1000 * b));
    }
  }
  return nhwc ? Tensor<float>({batch, 4, 4, channels}, v) : Tensor<float>({batch, channels, 4, 4}, v);
}

absl::StatusOr<NDArray> RoiAlign(const NDArray& data, const NDArray& rois, int64_t pooled,
                                 int64_t ratio, std::string_view mode, std::string_view layout) {
  return RunOp1("vision.roi_align", {data, rois},
                {{"pooled_size", Ints({pooled, pooled})}, {"spatial_scale", Float(1.0)},
                 {"sample_ratio", Int(ratio)}, {"mode", Str(mode)}, {"layout", Str(layout)}});
}

TEST(TvmVisionOps, RoiAlignAverageAndMax) {
  // ROI (0,0)-(3,3), one bin, 2x2 samples at 0.75 and 2.25: 4y + x there is
  // 3.75, 5.25, 9.75, 11.25 (mean 7.5, max 11.25). In batch 1 (+1000).
  NDArray rois = Tensor<float>({2, 5}, {0, 0, 0, 3, 3, 1, 0, 0, 3, 3});
  for (std::string_view layout : {"NCHW", "NHWC"}) {
    NDArray data = LinearImage(2, 1, layout == "NHWC");
    auto avg = RoiAlign(data, rois, 1, 2, "avg", layout);
    CARVE_ASSERT_OK(avg);
    ExpectClose(AsDoubles(*avg), {7.5, 1007.5});
    auto max = RoiAlign(data, rois, 1, 2, "max", layout);
    CARVE_ASSERT_OK(max);
    ExpectClose(AsDoubles(*max), {11.25, 1011.25});
  }
}

TEST(TvmVisionOps, RoiAlignAdaptiveGridAndOutside) {
  // Two bins per axis of 1.5: ceil gives 2x2 samples, bin means 4y + x at
  // the bins' sample means (0.75 / 2.25 per axis). Channel 1 adds 100.
  NDArray rois = Tensor<float>({1, 5}, {0, 0, 0, 3, 3});
  auto nchw = RoiAlign(LinearImage(1, 2, false), rois, 2, -1, "avg", "NCHW");
  CARVE_ASSERT_OK(nchw);
  ExpectClose(AsDoubles(*nchw), {3.75, 5.25, 9.75, 11.25, 103.75, 105.25, 109.75, 111.25});
  auto nhwc = RoiAlign(LinearImage(1, 2, true), rois, 2, -1, "avg", "NHWC");
  CARVE_ASSERT_OK(nhwc);
  ExpectClose(AsDoubles(*nhwc), {3.75, 103.75, 5.25, 105.25, 9.75, 109.75, 11.25, 111.25});
  // ROI (2,2)-(6,6): samples at 3 (the last pixel, 15) and 5 (more than a
  // pixel outside: 0).
  auto edge = RoiAlign(LinearImage(1, 1, false), Tensor<float>({1, 5}, {0, 2, 2, 6, 6}), 1, 2,
                       "avg", "NCHW");
  CARVE_ASSERT_OK(edge);
  ExpectClose(AsDoubles(*edge), {3.75});
  auto bad = RoiAlign(LinearImage(1, 1, false), Tensor<float>({1, 5}, {3, 0, 0, 1, 1}), 1, 2,
                      "avg", "NCHW");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("names batch 3"));
}

// ---- proposal: TVM's test_proposal ----

TEST(TvmVisionOps, ProposalTvmCases) {
  NDArray cls = Tensor<float>({1, 2, 3, 3}, {0.3, 0.6, 0.2, 0.4, 0.7, 0.5, 0.1, 0.4, 0.3,  //
                                             0.7, 0.5, 0.3, 0.6, 0.4, 0.8, 0.9, 0.2, 0.5});
  NDArray deltas = Tensor<float>(
      {1, 4, 3, 3}, {0.5, 1.0, 0.6, 0.8, 1.2, 2.0, 0.9, 1.0, 0.8, 0.5, 1.0, 0.7,
                     0.8, 1.2, 1.6, 2.1, 1.5, 0.7, 1.0, 0.5, 0.7, 1.5, 0.9, 1.6,
                     1.4, 1.5, 0.8, 1.0, 0.5, 0.6, 1.5, 0.9, 2.0, 1.8, 1.0, 0.9});
  NDArray info = Tensor<float>({1, 3}, {48, 48, 1});
  AttrList attrs = {{"scales", AttrValue::Array({Float(0.5)})},
                    {"ratios", AttrValue::Array({Float(0.5)})},
                    {"feature_stride", Int(16)},
                    {"rpn_min_size", Int(16)},
                    {"threshold", Float(0.7)},
                    {"rpn_pre_nms_top_n", Int(200)},
                    {"rpn_post_nms_top_n", Int(4)}};
  auto out = RunOp1("vision.proposal", {cls, deltas, info}, attrs);
  CARVE_ASSERT_OK(out);
  ExpectClose(AsDoubles(*out), {0, 0, 2.8451548, 28.38012, 18.154846,           //
                                0, 0, 15.354933, 41.96971, 41.245064,           //
                                0, 18.019852, 1.0538368, 51.98015, 25.946163,  //
                                0, 27.320923, -1.266357, 55, 24.666357},
              1e-4);
  attrs.emplace_back("iou_loss", Bool(true));
  auto iou = RunOp1("vision.proposal", {cls, deltas, info}, attrs);
  CARVE_ASSERT_OK(iou);
  ExpectClose(AsDoubles(*iou), {0, -5.25, -2.5, 21.75, 19,                //
                                0, 11.25, -2, 37.25, 18.5,                 //
                                0, 26.849998, -2.3000002, 53.45, 18.6,     //
                                0, -4.95, 13.799999, 22.25, 35.5},
              1e-4);
}

}  // namespace
}  // namespace carve::testing
