// image.crop_and_resize against values worked out by hand from topi's
// definition (python/tvm/topi/image/resize.py at v0.16.0): a box [y1, x1,
// y2, x2] samples in_y = y1 * (H - 1) + y * (H - 1) * (y2 - y1) / (crop_h - 1).
// The images are linear (3y + x), where bilinear sampling is exact.
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// (n, 1, 3, 3) images, image n holding 3y + x + 100n.
NDArray Linear(int64_t n) {
  std::vector<float> v;
  for (int64_t b = 0; b < n; ++b) {
    for (int y = 0; y < 3; ++y) {
      for (int x = 0; x < 3; ++x) v.push_back(float(3 * y + x + 100 * b));
    }
  }
  return Tensor<float>({n, 1, 3, 3}, v);
}

TEST(CropAndResize, BilinearInsideTheImage) {
  // in_y = 0.5 + y, in_x = 1 + x.
  auto out = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({1, 4}, {0.25f, 0.5f, 0.75f, 1.0f}),
                     Tensor<int32_t>({1}, {0})},
                    {{"crop_size", Ints({2, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(2.5f, 3.5f, 5.5f, 6.5f));
}

TEST(CropAndResize, OutsideCoordinatesTakeTheExtrapolationValue) {
  // in_y = -1, 1 (row 0 outside); in_x = 0, 2.
  auto out = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({1, 4}, {-0.5f, 0.0f, 0.5f, 1.0f}),
                     Tensor<int32_t>({1}, {0})},
                    {{"crop_size", Ints({2, 2})}, {"extrapolation_value", Float(9.0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(9, 9, 3, 5));
}

TEST(CropAndResize, NearestRoundsHalfAwayFromZero) {
  // in = 0, 0.5, 1 along both axes: indices 0, 1, 1.
  auto out = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({1, 4}, {0, 0, 0.5f, 0.5f}),
                     Tensor<int32_t>({1}, {0})},
                    {{"crop_size", Ints({3, 3})}, {"method", Str("nearest_neighbor")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1, 1, 3, 4, 4, 3, 4, 4));
}

TEST(CropAndResize, ChannelsLastWithBoxIndices) {
  // Two NHWC images of two channels (channel 1 = channel 0 + 50); boxes
  // read image 1 then image 0, the whole image at 2 x 2 (the corners).
  std::vector<float> v;
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 9; ++i) v.insert(v.end(), {float(i + 100 * b), float(i + 100 * b + 50)});
  }
  auto out = RunOp1("image.crop_and_resize",
                    {Tensor<float>({2, 3, 3, 2}, v), Tensor<float>({2, 4}, {0, 0, 1, 1, 0, 0, 1, 1}),
                     Tensor<int32_t>({2}, {1, 0})},
                    {{"crop_size", Ints({2, 2})}, {"layout", Str("NHWC")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out),
              ElementsAre(100, 150, 102, 152, 106, 156, 108, 158, 0, 50, 2, 52, 6, 56, 8, 58));
}

TEST(CropAndResize, CubicIsExactOnALinearImage) {
  // Keys weights reproduce a linear function away from the border; at the
  // image's centre (1, 1) the taps -1..2 are clamped only on the far side,
  // so sample the box's interior point (1, 1) of a 3-point crop of [0, 1].
  auto out = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({1, 4}, {0, 0, 1, 1}), Tensor<int32_t>({1}, {0})},
                    {{"crop_size", Ints({3, 3})}, {"method", Str("cubic")}});
  CARVE_ASSERT_OK(out);
  // Integer coordinates: weights (0, 1, 0, 0), so each point is its pixel.
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(CropAndResize, IntegerOutputTruncates) {
  auto out = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({1, 4}, {0.25f, 0.5f, 0.75f, 1.0f}),
                     Tensor<int32_t>({1}, {0})},
                    {{"crop_size", Ints({2, 2})}, {"out_dtype", Str("int32")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(2, 3, 5, 6));
}

TEST(CropAndResize, NoBoxesGiveAnEmptyResult) {
  auto out = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({0, 4}, {}), Tensor<int32_t>({0}, {})},
                    {{"crop_size", Ints({2, 2})}});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->num_elements(), 0);
}

TEST(CropAndResize, Errors) {
  auto bad_index = RunOp1("image.crop_and_resize",
                          {Linear(2), Tensor<float>({1, 4}, {0, 0, 1, 1}),
                           Tensor<int32_t>({1}, {2})},
                          {{"crop_size", Ints({2, 2})}});
  ASSERT_FALSE(bad_index.ok());
  EXPECT_THAT(bad_index.status().message(), HasSubstr("box_indices[0] = 2 is outside"));
  auto one = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({1, 4}, {0, 0, 1, 1}), Tensor<int32_t>({1}, {0})},
                    {{"crop_size", Ints({1, 2})}});
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(one.status().message(), HasSubstr("divides by zero"));
  auto method = RunOp1("image.crop_and_resize",
                       {Linear(1), Tensor<float>({1, 4}, {0, 0, 1, 1}), Tensor<int32_t>({1}, {0})},
                       {{"crop_size", Ints({2, 2})}, {"method", Str("area")}});
  ASSERT_FALSE(method.ok());
  EXPECT_THAT(method.status().message(), HasSubstr("unknown method"));
  auto nan = RunOp1("image.crop_and_resize",
                    {Linear(1), Tensor<float>({1, 4}, {NAN, 0, 1, 1}), Tensor<int32_t>({1}, {0})},
                    {{"crop_size", Ints({2, 2})}});
  ASSERT_FALSE(nan.ok());
  EXPECT_THAT(nan.status().message(), HasSubstr("NaN"));
}

}  // namespace
}  // namespace carve::testing
