// nn.contrib_conv2d_NCHWc and nn.contrib_depthwise_conv2d_NCHWc against
// nn.conv2d on the same tensors: the data, kernel and expected output are
// moved into the split layouts element by element (Relayout), so the check
// shares no data movement with the kernels.
#include <string>

#include "gmock/gmock.h"
#include "tests/interpreter_kernels/run_typed.h"

namespace carve::kernel_testing {
namespace {

using ::testing::HasSubstr;

// NCHW (N, C, H, W) as NCHW[b]c.
NDArray ToNCHWc(const NDArray& t, int64_t b) {
  const auto& s = t.shape();
  return Relayout(Reshaped(t, {s[0], s[1] / b, b, s[2], s[3]}), "NCcHW", "NCHWc");
}

// OIHW (O, I, H, W) as OIHW[bi]i[bo]o.
NDArray ToOIHWio(const NDArray& t, int64_t bi, int64_t bo) {
  const auto& s = t.shape();
  return Relayout(Reshaped(t, {s[0] / bo, bo, s[1] / bi, bi, s[2], s[3]}), "OoIiHW", "OIHWio");
}

TEST(ConvNCHWc, MatchesConv2DOnTransformedTensors) {
  const NDArray data = Random<float>({2, 8, 7, 6}, 1);
  const NDArray weight = Random<float>({12, 8, 3, 3}, 2);
  const auto conv_attrs = [](std::string_view data_layout, std::string_view kernel_layout) {
    return MakeAttrs("relay.attrs.Conv2DAttrs",
                     {{"strides", Ints({2, 1})},
                      {"padding", Ints({1, 0, 2, 1})},
                      {"dilation", Ints({1, 2})},
                      {"channels", Int(12)},
                      {"kernel_size", Ints({3, 3})},
                      {"data_layout", Str(data_layout)},
                      {"kernel_layout", Str(kernel_layout)},
                      {"out_layout", Str(data_layout)}});
  };
  absl::StatusOr<NDArray> plain = RunTyped("nn.conv2d", {data, weight}, conv_attrs("NCHW", "OIHW"));
  CARVE_ASSERT_OK(plain);
  // Input blocks of 4 and output blocks of 4 (data NCHW4c, kernel
  // OIHW4i4o), and of 2 in / 6 out (out layout NCHW6c).
  absl::StatusOr<NDArray> split = RunTyped("nn.contrib_conv2d_NCHWc",
                                      {ToNCHWc(data, 4), ToOIHWio(weight, 4, 4)},
                                      conv_attrs("NCHW4c", "OIHW4i4o"));
  CARVE_ASSERT_OK(split);
  EXPECT_EQ(split->shape(), (std::vector<int64_t>{2, 3, 4, 3, 4}));
  ExpectNear(AsDoubles(*split), AsDoubles(ToNCHWc(*plain, 4)), 1e-5, "NCHW4c");

  const Attrs* mixed = WithField(conv_attrs("NCHW2c", "OIHW2i6o"), "out_layout", Str("NCHW6c"));
  absl::StatusOr<NDArray> six =
      RunTyped("nn.contrib_conv2d_NCHWc", {ToNCHWc(data, 2), ToOIHWio(weight, 2, 6)}, mixed);
  CARVE_ASSERT_OK(six);
  ExpectNear(AsDoubles(*six), AsDoubles(ToNCHWc(*plain, 6)), 1e-5, "NCHW6c");
}

TEST(ConvNCHWc, Int8AccumulatesInOutDtype) {
  const NDArray data = Random<int8_t>({1, 4, 5, 5}, 3, -128, 127);
  const NDArray weight = Random<int8_t>({4, 4, 3, 3}, 4, -128, 127);
  const auto attrs = [](std::string_view dl, std::string_view kl) {
    return MakeAttrs("relay.attrs.Conv2DAttrs", {{"padding", Ints({1, 1})},
                                                 {"channels", Int(4)},
                                                 {"kernel_size", Ints({3, 3})},
                                                 {"data_layout", Str(dl)},
                                                 {"kernel_layout", Str(kl)},
                                                 {"out_dtype", Str("int32")}});
  };
  absl::StatusOr<NDArray> plain = RunTyped("nn.conv2d", {data, weight}, attrs("NCHW", "OIHW"));
  absl::StatusOr<NDArray> split = RunTyped("nn.contrib_conv2d_NCHWc",
                                      {ToNCHWc(data, 2), ToOIHWio(weight, 2, 2)},
                                      attrs("NCHW2c", "OIHW2i2o"));
  CARVE_ASSERT_OK(plain);
  CARVE_ASSERT_OK(split);
  EXPECT_EQ(split->dtype(), DataType::Int(32));
  EXPECT_EQ(AsDoubles(*split), AsDoubles(ToNCHWc(*plain, 2)));
}

TEST(ConvNCHWc, DepthwiseMatchesGroupedConv2D) {
  const NDArray data = Random<float>({1, 8, 6, 6}, 5);
  const NDArray weight = Random<float>({8, 1, 3, 3}, 6);
  absl::StatusOr<NDArray> plain =
      RunTyped("nn.conv2d", {data, weight},
          MakeAttrs("relay.attrs.Conv2DAttrs", {{"padding", Ints({1, 1})},
                                                {"groups", Int(8)},
                                                {"channels", Int(8)},
                                                {"kernel_size", Ints({3, 3})}}));
  CARVE_ASSERT_OK(plain);
  const Attrs* attrs = MakeAttrs("relay.attrs.Conv2DAttrs", {{"padding", Ints({1, 1})},
                                                             {"groups", Int(8)},
                                                             {"channels", Int(8)},
                                                             {"kernel_size", Ints({3, 3})},
                                                             {"data_layout", Str("NCHW4c")},
                                                             {"kernel_layout", Str("OIHW1i4o")},
                                                             {"out_layout", Str("NCHW4c")}});
  absl::StatusOr<NDArray> split = RunTyped("nn.contrib_depthwise_conv2d_NCHWc",
                                      {ToNCHWc(data, 4), ToOIHWio(weight, 1, 4)}, attrs);
  CARVE_ASSERT_OK(split);
  ExpectNear(AsDoubles(*split), AsDoubles(ToNCHWc(*plain, 4)), 1e-5, "depthwise");

  // A channel multiplier of 2 has no x86 compute in TVM.
  const NDArray w2 = Random<float>({16, 1, 3, 3}, 7);
  const Attrs* m2 = WithField(WithField(attrs, "channels", Int(16)), "kernel_layout",
                              Str("OIHW1i4o"));
  absl::StatusOr<NDArray> bad = RunKernel1(
      "nn.contrib_depthwise_conv2d_NCHWc",
      {ToNCHWc(data, 4), Relayout(Reshaped(w2, {4, 4, 1, 1, 3, 3}), "OoIiHW", "OIHWio")}, m2,
      TypeOf(DataType::Float(32), {1, 4, 6, 6, 4}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("channel multiplier of 1"));
}

}  // namespace
}  // namespace carve::kernel_testing
