// 3-d Winograd: the weight transform followed by TVM's (CUDA) convolution
// against nn.conv3d, with and without the depth transform, and the tile
// size TVM infers from the data height.
#include <string>

#include "gmock/gmock.h"
#include "tests/interpreter_kernels/run_typed.h"

namespace carve::kernel_testing {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<NDArray> Winograd3D(const NDArray& data, const NDArray& weight, int64_t tile,
                                   AttrValue strides, AttrValue padding) {
  absl::StatusOr<NDArray> u = RunTyped(
      "nn.contrib_conv3d_winograd_weight_transform", {weight},
      MakeAttrs("relay.attrs.ConvWinogradWeightTransformAttrs", {{"tile_size", Int(tile)}}));
  if (!u.ok()) return u.status();
  const auto& k = weight.shape();
  return RunTyped(
      "nn.contrib_conv3d_winograd_without_weight_transform", {data, *u},
      MakeAttrs("relay.attrs.Conv3DWinogradAttrs", {{"tile_size", Int(tile)},
                                                    {"strides", strides},
                                                    {"padding", padding},
                                                    {"channels", Int(k[0])},
                                                    {"kernel_size", Ints({k[2], k[3], k[4]})}}));
}

void Check(std::vector<int64_t> dshape, std::vector<int64_t> kshape, int64_t tile,
           std::initializer_list<int64_t> strides, std::initializer_list<int64_t> padding) {
  const NDArray data = Random<float>(dshape, 21), weight = Random<float>(kshape, 22);
  absl::StatusOr<NDArray> plain =
      RunTyped("nn.conv3d", {data, weight},
               MakeAttrs("relay.attrs.Conv3DAttrs",
                         {{"strides", Ints(strides)},
                          {"padding", Ints(padding)},
                          {"channels", Int(kshape[0])},
                          {"kernel_size", Ints({kshape[2], kshape[3], kshape[4]})}}));
  CARVE_ASSERT_OK(plain);
  absl::StatusOr<NDArray> wino = Winograd3D(data, weight, tile, Ints(strides), Ints(padding));
  CARVE_ASSERT_OK(wino);
  EXPECT_EQ(wino->shape(), plain->shape());
  ExpectNear(AsDoubles(*wino), AsDoubles(*plain), 1e-5, "tile " + std::to_string(tile));
}

TEST(Winograd3D, DepthTransformEqualsConv3D) {
  // Height 6: tile 2; height 8: tile 4.
  Check({1, 3, 5, 6, 7}, {2, 3, 3, 3, 3}, 2, {1, 1, 1}, {1, 1, 1, 1, 1, 1});
  Check({2, 2, 4, 8, 5}, {3, 2, 3, 3, 3}, 4, {1, 1, 1}, {0, 1, 1, 1, 0, 0});
}

TEST(Winograd3D, DepthOnlyDirectEqualsConv3D) {
  // KD = 2 is not transformed: (alpha, alpha, 2, CO, CI), the depth summed
  // directly, with a depth stride.
  Check({1, 3, 7, 5, 6}, {4, 3, 2, 3, 3}, 2, {2, 1, 1}, {1, 1, 1, 0, 1, 1});
}

TEST(Winograd3D, TileSizeFollowsTheDataHeight) {
  const NDArray data = Random<float>({1, 2, 4, 6, 6}, 1),
                weight = Random<float>({2, 2, 3, 3, 3}, 2);
  absl::StatusOr<NDArray> bad = Winograd3D(data, weight, 4, Ints({1, 1, 1}), Ints({0, 0, 0}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("infers tile size 2"));
}

}  // namespace
}  // namespace carve::kernel_testing
