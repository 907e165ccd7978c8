// QNN kernels on values where TVM's rounding matters: ties and negative
// values under UPWARD vs TONEAREST, the int64 fixed-point and float
// requantize paths, per-channel scales and zero points, saturation, and
// qnn.conv2d / qnn.dense against zero-point-aware direct loops.
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<NDArray> Requantize(const NDArray& q, const NDArray& s_in, const NDArray& zp_in,
                                   double s_out, int64_t zp_out, DataType out_dtype,
                                   std::string_view rounding, std::string_view compute,
                                   int64_t axis = -1) {
  return RunKernel1("qnn.requantize",
                    {q, s_in, zp_in, Scalar<float>(s_out), Scalar<int32_t>(zp_out)},
                    MakeAttrs("relay.attrs.RequantizeAttrs",
                              {{"axis", Int(axis)},
                               {"rounding", Str(rounding)},
                               {"compute_dtype", Str(compute)},
                               {"out_dtype", Str(out_dtype.ToString())}}),
                    TypeOf(out_dtype, q.shape()));
}

TEST(Requantize, HalvingTiesUpwardVsToNearestOnEveryPath) {
  // M = 1 / 2: every odd input is a tie. UPWARD rounds ties toward +inf,
  // TONEAREST away from zero; both paths must agree.
  NDArray q = Tensor<int32_t>({6}, {-5, -3, -1, 1, 2, 3});
  for (const char* compute : {"int64", "float32", "float64", "None"}) {
    auto up = Requantize(q, Scalar<float>(1), Scalar<int32_t>(0), 2, 0, DataType::Int(32),
                         "UPWARD", compute);
    auto near = Requantize(q, Scalar<float>(1), Scalar<int32_t>(0), 2, 0, DataType::Int(32),
                           "TONEAREST", compute);
    CARVE_ASSERT_OK(up);
    CARVE_ASSERT_OK(near);
    EXPECT_THAT(AsDoubles(*up), ElementsAre(-2, -1, 0, 1, 1, 2)) << compute;
    EXPECT_THAT(AsDoubles(*near), ElementsAre(-3, -2, -1, 1, 1, 2)) << compute;
  }
}

TEST(Requantize, NoneRoundingResolvesToUpward) {
  NDArray q = Tensor<int32_t>({2}, {-3, -1});
  auto out = Requantize(q, Scalar<float>(1), Scalar<int32_t>(0), 2, 0, DataType::Int(32), "None",
                        "None");
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(-1, 0));
}

TEST(Requantize, ZeroPointsAndSaturation) {
  // M = 2 (frexp exponent 2, a left shift), zp_in 3, zp_out -10, int8 out.
  NDArray q = Tensor<int16_t>({4}, {100, -100, 3, 10});
  auto out = Requantize(q, Scalar<float>(0.5), Scalar<int32_t>(3), 0.25, -10, DataType::Int(8),
                        "UPWARD", "int64");
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->dtype(), DataType::Int(8));
  EXPECT_THAT(AsDoubles(*out), ElementsAre(127, -128, -10, 4));
}

TEST(Requantize, FixedPointTracksTheRealMultiplier) {
  // M = 0.3f / 0.7f has no short binary form; away from ties the Q31
  // fixed-point result is round-half-up of x * M.
  std::vector<double> values;
  for (int v = -1000; v <= 1000; v += 7) values.push_back(v);
  NDArray q = Tensor<int32_t>({int64_t(values.size())}, values);
  auto out = Requantize(q, Scalar<float>(0.3), Scalar<int32_t>(0), 0.7, 0, DataType::Int(32),
                        "UPWARD", "int64");
  CARVE_ASSERT_OK(out);
  const long double m = (long double)(0.3f) / (long double)(0.7f);
  const std::vector<double> got = AsDoubles(*out);
  int checked = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const long double v = values[i] * m;
    if (std::abs(v - std::floor(v) - 0.5L) < 1e-6L) continue;
    EXPECT_EQ(got[i], double(std::floor(v + 0.5L))) << "x = " << values[i];
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

TEST(Requantize, PerChannelScalesAndZeroPoints) {
  // Channel multipliers 1/2, 1, 2 along the last axis.
  NDArray q = Tensor<int8_t>({2, 3}, {3, 3, 3, -3, -3, -3});
  auto out = Requantize(q, Tensor<float>({3}, {1, 2, 4}), Tensor<int32_t>({3}, {0, 1, -1}), 2, 0,
                        DataType::Int(32), "UPWARD", "int64", 1);
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(2, 2, 8, -1, -4, -4));
}

TEST(Quantize, RoundsHalfAwayAndClamps) {
  NDArray x = Tensor<float>({7}, {-1.5, -0.5, 0.5, 1.5, 2.5, 1000, -1000});
  auto i8 = RunKernel1("qnn.quantize", {x, Scalar<float>(1), Scalar<int32_t>(0)},
                       MakeAttrs("relay.attrs.QuantizeAttrs", {{"out_dtype", Str("int8")}}),
                       TypeOf(DataType::Int(8), {7}));
  CARVE_ASSERT_OK(i8);
  EXPECT_THAT(AsDoubles(*i8), ElementsAre(-2, -1, 1, 2, 3, 127, -128));
  auto u8 = RunKernel1("qnn.quantize", {x, Scalar<float>(0.5), Scalar<int32_t>(10)},
                       MakeAttrs("relay.attrs.QuantizeAttrs", {{"out_dtype", Str("uint8")}}),
                       TypeOf(DataType::UInt(8), {7}));
  CARVE_ASSERT_OK(u8);
  EXPECT_THAT(AsDoubles(*u8), ElementsAre(7, 9, 11, 13, 15, 255, 0));
}

TEST(Quantize, PerChannelAlongAxisZero) {
  NDArray x = Tensor<float>({2, 2}, {1.5, -2.5, 3, -3});
  auto out = RunKernel1("qnn.quantize",
                        {x, Tensor<float>({2}, {1, 2}), Tensor<int32_t>({2}, {0, 1})},
                        MakeAttrs("relay.attrs.QuantizeAttrs",
                                  {{"out_dtype", Str("int8")}, {"axis", Int(0)}}),
                        TypeOf(DataType::Int(8), {2, 2}));
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(2, -3, 3, -1));
}

TEST(Dequantize, ScalarAndPerChannel) {
  NDArray q = Tensor<int8_t>({3}, {-128, 0, 127});
  auto out = RunKernel1("qnn.dequantize", {q, Scalar<float>(0.5), Scalar<int32_t>(-1)},
                        MakeAttrs("relay.attrs.DequantizeAttrs", {{"out_dtype", Str("float32")}}),
                        TypeOf(DataType::Float(32), {3}));
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(-63.5, 0.5, 64));
  NDArray q2 = Tensor<uint8_t>({2, 2}, {0, 255, 10, 20});
  auto pc = RunKernel1("qnn.dequantize",
                       {q2, Tensor<float>({2}, {0.1f, 2}), Tensor<int32_t>({2}, {128, 10})},
                       MakeAttrs("relay.attrs.DequantizeAttrs",
                                 {{"out_dtype", Str("float32")}, {"axis", Int(0)}}),
                       TypeOf(DataType::Float(32), {2, 2}));
  CARVE_ASSERT_OK(pc);
  ExpectNear(AsDoubles(*pc), {-12.8, 12.7, 0, 20}, 1e-6);
}

TEST(QnnAdd, SameParamsWidenThenSaturate) {
  NDArray a = Tensor<int8_t>({2}, {100, 100});
  NDArray b = Tensor<int8_t>({2}, {100, -100});
  auto out = RunKernel1("qnn.add",
                        {a, b, Scalar<float>(1), Scalar<int32_t>(0), Scalar<float>(1),
                         Scalar<int32_t>(0), Scalar<float>(1), Scalar<int32_t>(0)},
                        MakeAttrs("relay.attrs.BroadcastAttrs", {}), TypeOf(DataType::Int(8), {2}));
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(127, 0));
}

TEST(QnnAdd, RequantizesEachSideAndBroadcasts) {
  // lhs (scale .5) = 5, 5.5; rhs (scale .25, zp 2) = 1, .25; out scale 1,
  // zp -3. Each side is requantized with UPWARD rounding first:
  // lhs -> 5 - 3, 6 - 3; rhs -> 1 - 3, 0 - 3; then Ra + Rb - zp_out.
  NDArray a = Tensor<int8_t>({2, 1}, {10, 11});
  NDArray b = Tensor<int8_t>({1, 2}, {6, 3});
  auto out = RunKernel1("qnn.add",
                        {a, b, Scalar<float>(0.5), Scalar<int32_t>(0), Scalar<float>(0.25),
                         Scalar<int32_t>(2), Scalar<float>(1), Scalar<int32_t>(-3)},
                        MakeAttrs("relay.attrs.BroadcastAttrs", {}),
                        TypeOf(DataType::Int(8), {2, 2}));
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(3, 2, 4, 3));
}

// Σ (Qa - zp_a)(Qw - zp_w[o]) over the window, NCHW/OIHW, padding taps
// contributing zero (the input is padded with zp_a).
std::vector<double> ReferenceQnnConv(const NDArray& x, const NDArray& w, int64_t zp_a,
                                      const std::vector<int64_t>& zp_w, int64_t pad, int64_t oh,
                                      int64_t ow) {
  const int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  const int64_t o = w.shape()[0], kh = w.shape()[2], kw = w.shape()[3];
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < o; ++oc) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = 0;
          for (int64_t ic = 0; ic < c; ++ic) {
            for (int64_t ky = 0; ky < kh; ++ky) {
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = y + ky - pad, ix = xx + kx - pad;
                const double a = iy < 0 || iy >= h || ix < 0 || ix >= wd
                                     ? double(zp_a)
                                     : x.GetAsDouble(((b * c + ic) * h + iy) * wd + ix);
                acc += (a - zp_a) * (w.GetAsDouble(((oc * c + ic) * kh + ky) * kw + kx) -
                                     double(zp_w.size() == 1 ? zp_w[0] : zp_w[oc]));
              }
            }
          }
          out.push_back(acc);
        }
      }
    }
  }
  return out;
}

TEST(QnnConv2D, PerChannelKernelZeroPointAndPaddingWithInputZeroPoint) {
  NDArray x = Random<uint8_t>({2, 3, 5, 4}, 1, 0, 255);
  NDArray w = Random<int8_t>({3, 3, 3, 3}, 2, -128, 127);
  const std::vector<int64_t> zp_w{1, -2, 0};
  const std::vector<double> expected = ReferenceQnnConv(x, w, 3, zp_w, 1, 5, 4);
  for (const char* layout : {"NCHW", "NHWC"}) {
    const std::string kernel_layout = std::string(layout) == "NCHW" ? "OIHW" : "HWIO";
    const std::string out_logical = "NCHW";
    auto out = RunKernel1(
        "qnn.conv2d",
        {Relayout(x, "NCHW", layout), Relayout(w, "OIHW", kernel_layout), Scalar<int32_t>(3),
         Tensor<int32_t>({3}, {1, -2, 0}), Scalar<float>(0.5), Tensor<float>({3}, {1, 1, 1})},
        MakeAttrs("relay.attrs.Conv2DAttrs", {{"padding", Ints({1, 1, 1, 1})},
                                              {"channels", Int(3)},
                                              {"kernel_size", Ints({3, 3})},
                                              {"data_layout", Str(layout)},
                                              {"kernel_layout", Str(kernel_layout)},
                                              {"out_dtype", Str("int32")}}),
        TypeOf(DataType::Int(32), Relayout(NDArray::Empty(DataType::Int(8), {2, 3, 5, 4}),
                                           out_logical, layout)
                                      .shape()));
    CARVE_ASSERT_OK(out);
    ExpectNear(AsDoubles(Relayout(*out, layout, out_logical)), expected, 0, layout);
  }
}

TEST(QnnDense, ZeroPointsPerUnit) {
  NDArray x = Random<uint8_t>({3, 5}, 3, 0, 255);
  NDArray w = Random<int8_t>({4, 5}, 4, -128, 127);
  const std::vector<int64_t> zp_w{0, 3, -3, 7};
  std::vector<double> expected;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < 5; ++k) {
        acc += (x.GetAsDouble(i * 5 + k) - 128) * (w.GetAsDouble(j * 5 + k) - zp_w[j]);
      }
      expected.push_back(acc);
    }
  }
  auto out = RunKernel1("qnn.dense",
                        {x, w, Scalar<int32_t>(128), Tensor<int32_t>({4}, {0, 3, -3, 7}),
                         Scalar<float>(1), Tensor<float>({4}, {1, 1, 1, 1})},
                        MakeAttrs("relay.attrs.DenseAttrs",
                                  {{"units", Int(4)}, {"out_dtype", Str("int32")}}),
                        TypeOf(DataType::Int(32), {3, 4}));
  CARVE_ASSERT_OK(out);
  ExpectNear(AsDoubles(*out), expected, 0);
}

TEST(Requantize, RejectsUnknownRounding) {
  auto out = Requantize(Tensor<int32_t>({1}, {1}), Scalar<float>(1), Scalar<int32_t>(0), 2, 0,
                        DataType::Int(8), "HALF_EVEN", "int64");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("rounding"));
}

}  // namespace
}  // namespace carve::kernel_testing
