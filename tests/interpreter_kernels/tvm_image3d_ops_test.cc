// Kernels of image.resize3d, nn.upsampling3d, dyn.nn.upsampling3d and
// image.grid_sample against values worked out by hand from topi's
// definitions (python/tvm/topi/image/{resize,grid_sample}.py at v0.16.0).
// Most cases sample a linear image, where linear interpolation is exact, so
// the expectation is the linear function at the sampled coordinate.
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "at " << i;
  }
}

// A 2x2x2 volume with value 4z + 2y + x (np.arange(8)).
NDArray Cube() { return Tensor<float>({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}); }

TEST(TvmImage3dOps, Resize3dTrilinearAlignCorners) {
  auto out = RunOp1("image.resize3d", {Cube()},
                    {{"size", Ints({3, 3, 3})},
                     {"coordinate_transformation_mode", Str("align_corners")}});
  CARVE_ASSERT_OK(out);
  // Output (z, y, x) samples (z/2, y/2, x/2): 2z + y + x/2.
  std::vector<double> want;
  for (int z = 0; z < 3; ++z) {
    for (int y = 0; y < 3; ++y) {
      for (int x = 0; x < 3; ++x) want.push_back(2 * z + y + x / 2.0);
    }
  }
  ExpectClose(AsDoubles(*out), want);
}

TEST(TvmImage3dOps, Resize3dChannelsLastLayout) {
  // NDHWC with channel 1 = channel 0 + 100: the same interpolation per channel.
  std::vector<float> v;
  for (int i = 0; i < 8; ++i) v.insert(v.end(), {float(i), float(i + 100)});
  auto out = RunOp1("image.resize3d", {Tensor<float>({1, 2, 2, 2, 2}, v)},
                    {{"size", Ints({1, 1, 3})},
                     {"layout", Str("NDHWC")},
                     {"coordinate_transformation_mode", Str("align_corners")}});
  CARVE_ASSERT_OK(out);
  // Depth and height of one output sample coordinate 0 (align_corners, 1 output).
  ExpectClose(AsDoubles(*out), {0, 100, 0.5, 100.5, 1, 101});
}

TEST(TvmImage3dOps, Resize3dCubicAndTopiExcludeQuirk) {
  // D = H = 1, W = 4 values 1, 2, 4, 8 to 2 outputs (half_pixel: x = 0.5,
  // 2.5). Keys weights at t = 0.5, a = -0.5: -0.0625, 0.5625, 0.5625,
  // -0.0625 over clamped taps.
  NDArray row = Tensor<float>({1, 1, 1, 1, 4}, {1, 2, 4, 8});
  AttrList attrs = {{"size", Ints({1, 1, 2})}, {"method", Str("cubic")}};
  auto out = RunOp1("image.resize3d", {row}, attrs);
  CARVE_ASSERT_OK(out);
  ExpectClose(AsDoubles(*out), {1.375, 6.125});
  // cubic_exclude drops taps outside the row and renormalises: 1.4375 /
  // 1.0625 at x = 0.5. topi gives the depth taps the width weights tested
  // against the height (1): at x = 2.5 all four are dropped and the depth
  // weights are 0 / 0, so TVM's value is NaN, and carve's too.
  attrs.emplace_back("cubic_exclude", Int(1));
  auto excl = RunOp1("image.resize3d", {row}, attrs);
  CARVE_ASSERT_OK(excl);
  std::vector<double> v = AsDoubles(*excl);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NEAR(v[0], 1.4375 / 1.0625, 1e-6);
  EXPECT_TRUE(std::isnan(v[1]));
}

TEST(TvmImage3dOps, Resize3dCropAndResizeChecksHeightAndWidthOnly) {
  // roi is read as [start_w, start_h, start_d, end_w, end_h, end_d]. A depth
  // range of -1..2 samples depths -1 and 2 (clamped reads, no
  // extrapolation: topi drops the depth test); a height range of -1..2
  // puts every sample outside, giving extrapolation_value.
  AttrList base = {{"size", Ints({2, 2, 2})},
                   {"coordinate_transformation_mode", Str("tf_crop_and_resize")},
                   {"extrapolation_value", Float(9)}};
  AttrList depth = base;
  depth.emplace_back("roi", AttrValue::Array({Float(0), Float(0), Float(-1), Float(1),
                                              Float(1), Float(2)}));
  auto out = RunOp1("image.resize3d", {Cube()}, depth);
  CARVE_ASSERT_OK(out);
  ExpectClose(AsDoubles(*out), {0, 1, 2, 3, 4, 5, 6, 7});
  AttrList height = base;
  height.emplace_back("roi", AttrValue::Array({Float(0), Float(-1), Float(0), Float(1),
                                               Float(2), Float(1)}));
  auto outside = RunOp1("image.resize3d", {Cube()}, height);
  CARVE_ASSERT_OK(outside);
  ExpectClose(AsDoubles(*outside), std::vector<double>(8, 9.0));
}

TEST(TvmImage3dOps, Upsampling3dNearestAndTrilinear) {
  // Nearest with TVM's default half_pixel coordinates and floor rounding:
  // x = (i + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 reads 0, 0, 0, 1.
  auto nearest = RunOp1("nn.upsampling3d", {Cube()},
                        {{"scale_d", Float(2)}, {"scale_h", Float(2)}, {"scale_w", Float(2)}});
  CARVE_ASSERT_OK(nearest);
  EXPECT_THAT(nearest->shape(), ElementsAre(1, 1, 4, 4, 4));
  std::vector<double> v = AsDoubles(*nearest);
  ExpectClose(std::vector<double>(v.begin(), v.begin() + 4), {0, 0, 0, 1});
  ExpectClose(std::vector<double>(v.end() - 4, v.end()), {6, 6, 6, 7});
  auto tri = RunOp1("nn.upsampling3d", {Cube()},
                    {{"scale_d", Float(2)},
                     {"scale_h", Float(2)},
                     {"scale_w", Float(2)},
                     {"method", Str("trilinear")},
                     {"coordinate_transformation_mode", Str("align_corners")}});
  CARVE_ASSERT_OK(tri);
  v = AsDoubles(*tri);
  ExpectClose(std::vector<double>(v.begin(), v.begin() + 4), {0, 1 / 3.0, 2 / 3.0, 1});
  ExpectClose(std::vector<double>(v.end() - 1, v.end()), {7});
  // dyn.nn.upsampling3d reads the scales from tensors.
  auto dyn = RunOp1("dyn.nn.upsampling3d",
                    {Cube(), Tensor<float>({}, {2}), Tensor<float>({}, {2}), Tensor<float>({}, {2})});
  CARVE_ASSERT_OK(dyn);
  EXPECT_EQ(AsDoubles(*dyn), AsDoubles(*nearest));
}

// 3x3 image with value 3y + x (np.arange(9)), sampled at one grid point.
absl::StatusOr<double> Sample2D(float gx, float gy, std::string_view method,
                                std::string_view padding, bool align) {
  NDArray data = Tensor<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  auto out = RunOp1("image.grid_sample", {data, Tensor<float>({1, 2, 1, 1}, {gx, gy})},
                    {{"method", Str(method)},
                     {"padding_mode", Str(padding)},
                     {"align_corners", Bool(align)}});
  if (!out.ok()) return out.status();
  return AsDoubles(*out)[0];
}

TEST(TvmImage3dOps, GridSampleBilinearPaddingModes) {
  struct Case {
    float gx, gy;
    const char* padding;
    bool align;
    double want;
  };
  const Case cases[] = {
      {0, 0, "zeros", true, 4},        // centre pixel (1, 1)
      {0.5, -0.5, "zeros", true, 3},   // (x, y) = (1.5, 0.5): 1.5 + 1.5
      {2, 0, "zeros", true, 0},        // x = 3: outside, reads 0
      {2, 0, "border", true, 5},       // x clipped to 2
      {2, 0, "reflection", true, 4},   // x = 3 reflects to 1
      {1.5, 0, "reflection", true, 4.5},  // x = 2.5 reflects to 1.5
      {0, 0, "zeros", false, 4},       // x = -0.5 + 1.5 = 1
      {1, 0, "zeros", false, 2.5},     // x = 2.5: half of pixel 2
      {1, 0, "border", false, 5},      // clipped to 2
      {1.5, 0, "reflection", false, 4.75},  // x = 3.25 reflects to 1.75
  };
  for (const Case& c : cases) {
    auto v = Sample2D(c.gx, c.gy, "bilinear", c.padding, c.align);
    CARVE_ASSERT_OK(v);
    EXPECT_NEAR(*v, c.want, 1e-5) << c.gx << " " << c.gy << " " << c.padding << " " << c.align;
  }
}

TEST(TvmImage3dOps, GridSampleNearestRoundsHalfToEven) {
  // x = 0.5 rounds to 0, x = 1.5 to 2 (row y = 1).
  auto lo = Sample2D(-0.5, 0, "nearest", "zeros", true);
  auto hi = Sample2D(0.5, 0, "nearest", "zeros", true);
  CARVE_ASSERT_OK(lo);
  CARVE_ASSERT_OK(hi);
  EXPECT_EQ(*lo, 3);
  EXPECT_EQ(*hi, 5);
}

TEST(TvmImage3dOps, GridSampleBicubicPadsIntegerTaps) {
  // One row 1, 2, 4, 8 (H = 1). Cubic weights (a = -0.75) at t = 0.5:
  // -0.09375, 0.59375, 0.59375, -0.09375; at t = 0 only the centre tap.
  NDArray row = Tensor<float>({1, 1, 1, 4}, {1, 2, 4, 8});
  auto sample = [&](float gx, std::string_view padding, bool align) -> absl::StatusOr<double> {
    auto out = RunOp1("image.grid_sample", {row, Tensor<float>({1, 2, 1, 1}, {gx, 0})},
                      {{"method", Str("bicubic")},
                       {"padding_mode", Str(padding)},
                       {"align_corners", Bool(align)}});
    if (!out.ok()) return out.status();
    return AsDoubles(*out)[0];
  };
  struct Case {
    float gx;
    const char* padding;
    bool align;
    double want;
  };
  const Case cases[] = {
      {0, "zeros", true, 2.71875},  // x = 1.5: taps 0..3
      // align_corners false, x = 0.5: taps -1..2.
      {-0.5, "zeros", false, 1.40625},
      {-0.5, "border", false, 1.3125},
      // x = -0.5: taps -2..1; reflection maps -2 to 1 and -1 to 0.
      {-1, "zeros", false, 0.40625},
      {-1, "border", false, 0.90625},
      {-1, "reflection", false, 0.8125},
  };
  for (const Case& c : cases) {
    auto v = sample(c.gx, c.padding, c.align);
    CARVE_ASSERT_OK(v);
    EXPECT_NEAR(*v, c.want, 1e-5) << c.gx << " " << c.padding << " " << c.align;
  }
}

TEST(TvmImage3dOps, GridSample3d) {
  // Grid channels are x, y, z.
  auto sample = [&](float gx, float gy, float gz, std::string_view method,
                    std::string_view padding) -> absl::StatusOr<double> {
    auto out = RunOp1("image.grid_sample", {Cube(), Tensor<float>({1, 3, 1, 1, 1}, {gx, gy, gz})},
                      {{"method", Str(method)},
                       {"padding_mode", Str(padding)},
                       {"layout", Str("NCDHW")}});
    if (!out.ok()) return out.status();
    return AsDoubles(*out)[0];
  };
  struct Case {
    float gx, gy, gz;
    const char* method;
    const char* padding;
    double want;
  };
  const Case cases[] = {
      {0, 0, 0, "bilinear", "zeros", 3.5},        // the centre
      {1, -1, 0, "bilinear", "zeros", 3},         // (x, y, z) = (1, 0, 0.5)
      {0.2, 0.2, -1, "nearest", "zeros", 3},      // (0.6, 0.6, 0) -> (1, 1, 0)
      {0, 0, 3, "bilinear", "reflection", 1.5},   // z = 2 reflects to 0
      {0, 0, 3, "bilinear", "border", 5.5},       // z clipped to 1
  };
  for (const Case& c : cases) {
    auto v = sample(c.gx, c.gy, c.gz, c.method, c.padding);
    CARVE_ASSERT_OK(v);
    EXPECT_NEAR(*v, c.want, 1e-5) << c.gx << " " << c.gy << " " << c.gz << " " << c.method;
  }
  auto bicubic = sample(0, 0, 0, "bicubic", "zeros");
  ASSERT_FALSE(bicubic.ok());
  EXPECT_EQ(bicubic.status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace carve::testing
