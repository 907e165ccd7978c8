// Winograd weight transform and convolution (TVM's F(m, 3) with the
// matrices of topi/nn/winograd_util.py): the transform of a kernel of ones
// is checked against G worked out by hand for F(2, 3), and the transform
// followed by the convolution against nn.conv2d for several tile sizes.
#include <string>

#include "gmock/gmock.h"
#include "tests/interpreter_kernels/run_typed.h"

namespace carve::kernel_testing {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<NDArray> Transform(const NDArray& weight, int64_t tile) {
  return RunTyped("nn.contrib_conv2d_winograd_weight_transform", {weight},
                  MakeAttrs("relay.attrs.ConvWinogradWeightTransformAttrs",
                            {{"tile_size", Int(tile)}}));
}

TEST(Winograd, WeightTransformF23ByHand) {
  // Points (0, -1, 1, inf): f = diag(1, 2, 2, 1) after the sign fix, so
  // G = f^-1 [p^0 p^1 p^2] = [[1,0,0], [.5,-.5,.5], [.5,.5,.5], [0,0,1]].
  // For a kernel of ones U = G 1 G^T, the outer product of G's row sums
  // (1, 0.5, 1.5, 1); a kernel with a single 1 at (kh, kw) gives
  // U = G[:, kh] G[:, kw]^T.
  std::vector<double> ones(9, 1.0);
  absl::StatusOr<NDArray> u = Transform(Tensor<float>({1, 1, 3, 3}, ones), 2);
  CARVE_ASSERT_OK(u);
  EXPECT_EQ(u->shape(), (std::vector<int64_t>{4, 4, 1, 1}));
  const double sums[] = {1, 0.5, 1.5, 1};
  std::vector<double> want;
  for (double a : sums) {
    for (double b : sums) want.push_back(a * b);
  }
  ExpectNear(AsDoubles(*u), want, 1e-7, "ones");

  std::vector<double> corner(9, 0.0);
  corner[1 * 3 + 2] = 1;  // kh = 1, kw = 2
  absl::StatusOr<NDArray> uc = Transform(Tensor<double>({1, 1, 3, 3}, corner), 2);
  CARVE_ASSERT_OK(uc);
  const double col1[] = {0, -0.5, 0.5, 0}, col2[] = {0, 0.5, 0.5, 1};
  want.clear();
  for (double a : col1) {
    for (double b : col2) want.push_back(a * b);
  }
  ExpectNear(AsDoubles(*uc), want, 1e-15, "corner");
}

void CheckAgainstConv2D(std::string_view layout, int64_t tile, std::vector<int64_t> padding) {
  const bool nchw = layout == "NCHW";
  const NDArray data_nchw = Random<float>({2, 3, 9, 7}, 11);
  const NDArray weight = Random<float>({5, 3, 3, 3}, 12);
  const NDArray data = nchw ? data_nchw : Relayout(data_nchw, "NCHW", "NHWC");
  const AttrValue pad = AttrValue::Array([&] {
    std::vector<AttrValue> v;
    for (int64_t p : padding) v.push_back(Int(p));
    return v;
  }());
  absl::StatusOr<NDArray> plain = RunTyped(
      "nn.conv2d", {data_nchw, weight},
      MakeAttrs("relay.attrs.Conv2DAttrs",
                {{"padding", pad}, {"channels", Int(5)}, {"kernel_size", Ints({3, 3})}}));
  CARVE_ASSERT_OK(plain);
  absl::StatusOr<NDArray> u = Transform(weight, tile);
  CARVE_ASSERT_OK(u);
  absl::StatusOr<NDArray> wino =
      RunTyped("nn.contrib_conv2d_winograd_without_weight_transform", {data, *u},
               MakeAttrs("relay.attrs.Conv2DWinogradAttrs", {{"tile_size", Int(tile)},
                                                             {"padding", pad},
                                                             {"channels", Int(5)},
                                                             {"kernel_size", Ints({3, 3})},
                                                             {"data_layout", Str(layout)}}));
  CARVE_ASSERT_OK(wino);
  const NDArray want = nchw ? *plain : Relayout(*plain, "NCHW", "NHWC");
  // Larger tiles use points further from 0: TVM's error table grows with
  // the tile (F(6, 3) about 1e-6 relative on unit data).
  ExpectNear(AsDoubles(*wino), AsDoubles(want), tile <= 4 ? 1e-5 : 1e-4,
             std::string(layout) + " tile " + std::to_string(tile));
}

TEST(Winograd, TransformThenConvEqualsConv2D) {
  for (int64_t tile : {2, 3, 4, 6}) CheckAgainstConv2D("NCHW", tile, {1, 1, 1, 1});
  CheckAgainstConv2D("NHWC", 4, {0, 1, 2, 0});
  CheckAgainstConv2D("NCHW", 2, {0, 0, 0, 0});
}

TEST(Winograd, RejectsWhatTvmDoesNotCompute) {
  const NDArray data = Random<float>({1, 2, 6, 6}, 1);
  absl::StatusOr<NDArray> u = Transform(Random<float>({2, 2, 3, 3}, 2), 2);
  CARVE_ASSERT_OK(u);
  absl::StatusOr<NDArray> strided =
      RunTyped("nn.contrib_conv2d_winograd_without_weight_transform", {data, *u},
               MakeAttrs("relay.attrs.Conv2DWinogradAttrs", {{"tile_size", Int(2)},
                                                             {"strides", Ints({2, 2})},
                                                             {"channels", Int(2)},
                                                             {"kernel_size", Ints({3, 3})}}));
  ASSERT_FALSE(strided.ok());
  EXPECT_THAT(strided.status().message(), HasSubstr("stride 1"));
  absl::StatusOr<NDArray> big_tile = Transform(Random<float>({2, 2, 3, 3}, 2), 9);
  ASSERT_FALSE(big_tile.ok());
  EXPECT_THAT(big_tile.status().message(), HasSubstr("tile sizes 2..8"));
}

}  // namespace
}  // namespace carve::kernel_testing
