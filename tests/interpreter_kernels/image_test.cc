// image.resize2d, nn.upsampling, nn.depth_to_space and nn.space_to_depth on
// tiny inputs with hand-computed results (ops.md §11): every coordinate
// mode and nearest rounding rule, ties, cubic edges, crop-and-resize
// extrapolation, integer casts and layouts.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

absl::StatusOr<NDArray> Resize(const NDArray& x, std::vector<int64_t> out_shape,
                               std::initializer_list<std::pair<std::string_view, AttrValue>> attrs,
                               DataType out_dtype = DataType::Float(32)) {
  return RunKernel1("image.resize2d", {x}, MakeAttrs("relay.attrs.Resize2DAttrs", attrs),
                    TypeOf(out_dtype, out_shape));
}

TEST(Resize2D, NearestRoundingRulesOnTies) {
  // half_pixel 4 -> 2 samples 0.5 and 2.5: exact ties.
  NDArray x = Tensor<float>({1, 1, 1, 4}, {0, 1, 2, 3});
  struct Case {
    const char* rounding;
    std::vector<double> expected;
  };
  for (const Case& c : {Case{"round", {1, 3}}, Case{"round_prefer_floor", {0, 2}},
                        Case{"round_prefer_ceil", {1, 3}}, Case{"floor", {0, 2}},
                        Case{"ceil", {1, 3}}, Case{"", {0, 2}}}) {
    auto out = Resize(x, {1, 1, 1, 2},
                      {{"method", Str("nearest_neighbor")},
                       {"coordinate_transformation_mode", Str("half_pixel")},
                       {"rounding_method", Str(c.rounding)}});
    CARVE_ASSERT_OK(out);
    EXPECT_THAT(AsDoubles(*out), ElementsAreArray(c.expected)) << c.rounding;
  }
}

TEST(Resize2D, NearestCoordinateModes) {
  // 3 -> 2 (scale 1.5) with floor rounding; align_corners rounds ("").
  NDArray x = Tensor<float>({1, 1, 1, 3}, {10, 20, 30});
  struct Case {
    const char* mode;
    const char* rounding;
    std::vector<double> expected;
  };
  for (const Case& c : {Case{"asymmetric", "floor", {10, 20}},            // 0, 1.5
                        Case{"half_pixel", "floor", {10, 20}},            // 0.25, 1.75
                        Case{"pytorch_half_pixel", "floor", {10, 20}},    // same for out > 1
                        Case{"tf_half_pixel_for_nn", "floor", {10, 30}},  // 0.75, 2.25
                        Case{"align_corners", "", {10, 30}}}) {           // 0, 2
    auto out = Resize(x, {1, 1, 1, 2},
                      {{"method", Str("nearest_neighbor")},
                       {"coordinate_transformation_mode", Str(c.mode)},
                       {"rounding_method", Str(c.rounding)}});
    CARVE_ASSERT_OK(out);
    EXPECT_THAT(AsDoubles(*out), ElementsAreArray(c.expected)) << c.mode;
  }
}

TEST(Resize2D, AsymmetricIntegerUpscaleUsesIntegerDivision) {
  // An exact 2x upscale indexes x / 2 whatever the rounding method (TVM's
  // integer-division path), so "round" does not pick index 1 at x = 1.
  NDArray x = Tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  for (const char* rounding : {"", "round", "ceil"}) {
    auto out = Resize(x, {1, 1, 4, 4},
                      {{"method", Str("nearest_neighbor")},
                       {"coordinate_transformation_mode", Str("asymmetric")},
                       {"rounding_method", Str(rounding)}});
    CARVE_ASSERT_OK(out);
    EXPECT_THAT(AsDoubles(*out),
                ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4))
        << rounding;
  }
}

TEST(Resize2D, BilinearHalfPixelClampsAtEdges) {
  NDArray x = Tensor<float>({1, 1, 2, 2}, {0, 10, 20, 30});
  auto out = Resize(x, {1, 1, 4, 4}, {});  // defaults: linear, half_pixel
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(0, 2.5, 7.5, 10, 5, 7.5, 12.5, 15, 15, 17.5, 22.5, 25,
                                           20, 22.5, 27.5, 30));
}

TEST(Resize2D, BilinearAlignCornersInNhwc) {
  // Two channels: c0 = {0, 10, 20, 30}, c1 = c0 + 100.
  NDArray nchw = Tensor<float>({1, 2, 2, 2}, {0, 10, 20, 30, 100, 110, 120, 130});
  auto out = Resize(Relayout(nchw, "NCHW", "NHWC"), {1, 3, 3, 2},
                    {{"layout", Str("NHWC")},
                     {"coordinate_transformation_mode", Str("align_corners")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(Relayout(*out, "NHWC", "NCHW")),
              ElementsAre(0, 5, 10, 10, 15, 20, 20, 25, 30, 100, 105, 110, 110, 115, 120, 120,
                          125, 130));
}

TEST(Resize2D, CubicKeysKernelWithAndWithoutExclude) {
  // A ramp along W (rows identical), align_corners 4 -> 7 samples 0, .5, ..., 3.
  // Catmull-Rom reproduces the ramp inside; at the edges the clamped tap
  // bends it (.4375), and cubic_exclude renormalises without it (.4375 / 1.0625).
  NDArray x = Tensor<float>({1, 1, 2, 4}, {0, 1, 2, 3, 0, 1, 2, 3});
  for (int exclude : {0, 1}) {
    auto out = Resize(x, {1, 1, 2, 7},
                      {{"method", Str("cubic")},
                       {"coordinate_transformation_mode", Str("align_corners")},
                       {"cubic_exclude", Int(exclude)}});
    CARVE_ASSERT_OK(out);
    const double edge = exclude ? 0.4375 / 1.0625 : 0.4375;
    const double far_edge = exclude ? (2 * 0.5625 + 3 * 0.5625 - 0.0625) / 1.0625 : 2.5625;
    const std::vector<double> row{0, edge, 1, 1.5, 2, far_edge, 3};
    std::vector<double> expected = row;
    expected.insert(expected.end(), row.begin(), row.end());
    ExpectNear(AsDoubles(*out), expected, 1e-6, fmt::format("exclude={}", exclude));
  }
}

TEST(Resize2D, TfCropAndResizeExtrapolates) {
  // roi (start_h, start_w, end_h, end_w) = (0, .5, 1, 1.5): rows map to
  // themselves, columns to x + 1, and x = 2 falls outside the image.
  NDArray x = Tensor<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  auto out = Resize(x, {1, 1, 3, 3},
                    {{"roi", AttrValue::Array({Float(0), Float(0.5), Float(1), Float(1.5)})},
                     {"coordinate_transformation_mode", Str("tf_crop_and_resize")},
                     {"extrapolation_value", Float(-1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(1, 2, -1, 4, 5, -1, 7, 8, -1));
}

TEST(Resize2D, IntegerOutputTruncates) {
  NDArray x = Tensor<uint8_t>({1, 1, 2, 2}, {0, 255, 0, 255});
  auto out = Resize(x, {1, 1, 2, 3}, {{"coordinate_transformation_mode", Str("align_corners")}},
                    DataType::UInt(8));
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(0, 127, 255, 0, 127, 255));  // 127.5 -> 127
}

TEST(Resize2D, UnknownModeIsUnimplemented) {
  auto out = Resize(Tensor<float>({1, 1, 1, 1}, {1}), {1, 1, 2, 2},
                    {{"coordinate_transformation_mode", Str("bogus")}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(Upsampling, NearestAndBilinearAsymmetric) {
  NDArray x = Tensor<float>({1, 1, 2, 2}, {0, 10, 20, 30});
  auto nearest = RunKernel1("nn.upsampling", {x},
                            MakeAttrs("relay.attrs.UpSamplingAttrs",
                                      {{"scale_h", Float(2)}, {"scale_w", Float(2)}}),
                            TypeOf(DataType::Float(32), {1, 1, 4, 4}));
  CARVE_ASSERT_OK(nearest);
  EXPECT_THAT(AsDoubles(*nearest),
              ElementsAre(0, 0, 10, 10, 0, 0, 10, 10, 20, 20, 30, 30, 20, 20, 30, 30));
  auto bilinear = RunKernel1("nn.upsampling", {x},
                             MakeAttrs("relay.attrs.UpSamplingAttrs", {{"scale_h", Float(2)},
                                                                       {"scale_w", Float(2)},
                                                                       {"method", Str("bilinear")}}),
                             TypeOf(DataType::Float(32), {1, 1, 4, 4}));
  CARVE_ASSERT_OK(bilinear);
  // Asymmetric coordinates 0, .5, 1, 1.5 with the last clamped.
  EXPECT_THAT(AsDoubles(*bilinear),
              ElementsAre(0, 5, 10, 10, 10, 15, 20, 20, 20, 25, 30, 30, 20, 25, 30, 30));
}

TEST(DepthToSpace, DcrAndCrdOrders) {
  NDArray x = Tensor<float>({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  for (const char* mode : {"DCR", "CRD"}) {
    auto out = RunKernel1("nn.depth_to_space", {x},
                          MakeAttrs("relay.attrs.SubPixelAttrs",
                                    {{"block_size", Int(2)}, {"mode", Str(mode)}}),
                          TypeOf(DataType::Float(32), {1, 2, 2, 2}));
    CARVE_ASSERT_OK(out);
    if (std::string(mode) == "DCR") {
      EXPECT_THAT(AsDoubles(*out), ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));
    } else {
      EXPECT_THAT(AsDoubles(*out), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
    }
  }
}

TEST(DepthToSpace, NhwcRoundTripsThroughSpaceToDepth) {
  NDArray x = Random<int32_t>({2, 3, 2, 8}, 1, -100, 100);  // NHWC, C = 8
  auto d2s = RunKernel1("nn.depth_to_space", {x},
                        MakeAttrs("relay.attrs.SubPixelAttrs",
                                  {{"block_size", Int(2)}, {"layout", Str("NHWC")}}),
                        TypeOf(DataType::Int(32), {2, 6, 4, 2}));
  CARVE_ASSERT_OK(d2s);
  // Against the NCHW result relaid: the layouts must agree.
  auto d2s_nchw = RunKernel1("nn.depth_to_space", {Relayout(x, "NHWC", "NCHW")},
                             MakeAttrs("relay.attrs.SubPixelAttrs", {{"block_size", Int(2)}}),
                             TypeOf(DataType::Int(32), {2, 2, 6, 4}));
  CARVE_ASSERT_OK(d2s_nchw);
  EXPECT_EQ(AsDoubles(Relayout(*d2s, "NHWC", "NCHW")), AsDoubles(*d2s_nchw));
  auto back = RunKernel1("nn.space_to_depth", {*d2s},
                         MakeAttrs("relay.attrs.SubPixelAttrs",
                                   {{"block_size", Int(2)}, {"layout", Str("NHWC")}}),
                         TypeOf(DataType::Int(32), {2, 3, 2, 8}));
  CARVE_ASSERT_OK(back);
  EXPECT_EQ(AsDoubles(*back), AsDoubles(x));
}

}  // namespace
}  // namespace carve::kernel_testing
