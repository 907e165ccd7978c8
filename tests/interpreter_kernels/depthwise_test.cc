// The depthwise convolution engine (conv_engine.cc's blocked rows) against
// the plain definition it must reproduce bit for bit: every output element
// is the sum, from zero, of weight * input over its taps in order, taps
// that fall in the padding skipped. Widths cover the scalar path and every
// vector width (with and without a partial last block), strides, dilation,
// channel multipliers, 1-d/3-d, and the values where skipping a padded tap
// differs from adding weight * 0 (an infinite weight, a -0 sum).
#define EIGEN_USE_THREADS
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/kernels/conv_engine.h"
#include "interpreter/kernels/conv_internal.h"

namespace carve::nn_kernels {
namespace {

// The definition: one output element at a time, taps in (kd, kh, kw) order.
template <typename T>
std::vector<T> Direct(const ConvGeometry& g, const std::vector<T>& data,
                      const std::vector<T>& weight) {
  std::vector<T> out(g.batch * g.out_channels * g.out_size());
  const int64_t og = g.out_per_group(), k = g.kernel_size();
  T* dst = out.data();
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t o = 0; o < g.out_channels; ++o) {
      const T* plane = data.data() + (n * g.in_channels + o / og) * g.in_size();
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            T acc = T(0);
            for (int64_t t = 0; t < k; ++t) {
              const int64_t id = conv_internal::InCoord(g, 0, od, t / (g.kernel[1] * g.kernel[2]));
              const int64_t ih = conv_internal::InCoord(g, 1, oh, t / g.kernel[2] % g.kernel[1]);
              const int64_t iw = conv_internal::InCoord(g, 2, ow, t % g.kernel[2]);
              if (!conv_internal::Inside(g, id, ih, iw)) continue;
              const T w = weight[o * k + t], x = plane[(id * g.in[1] + ih) * g.in[2] + iw];
#if defined(__FMA__)
              // One rounding, as the compiler contracts the kernel's
              // `acc += w * x` on builds for FMA hardware.
              if constexpr (std::is_floating_point_v<T>) {
                acc = std::fma(w, x, acc);
                continue;
              }
#endif
              acc += w * x;
            }
            *dst++ = acc;
          }
        }
      }
    }
  }
  return out;
}

// A geometry with out extents from (in + pad_before + pad_after - dilated
// kernel) / stride + 1.
ConvGeometry Depthwise(int64_t channels, int64_t multiplier, std::array<int64_t, 3> in,
                       std::array<int64_t, 3> kernel, std::array<int64_t, 3> stride,
                       std::array<int64_t, 3> dilation, std::array<int64_t, 3> pad_before,
                       std::array<int64_t, 3> pad_after) {
  ConvGeometry g;
  g.in_channels = g.groups = channels;
  g.out_channels = channels * multiplier;
  g.in = in;
  g.kernel = kernel;
  g.stride = stride;
  g.dilation = dilation;
  g.pad = pad_before;
  for (int a = 0; a < 3; ++a) {
    const int64_t span = in[a] + pad_before[a] + pad_after[a] - (kernel[a] - 1) * dilation[a] - 1;
    g.out[a] = span < 0 ? 0 : span / stride[a] + 1;
  }
  return g;
}

template <typename T>
std::vector<T> Random(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-2, 2);
  std::vector<T> v(n);
  for (T& x : v) x = T(dist(rng) * (std::is_integral_v<T> ? 20 : 1));
  return v;
}

template <typename T>
void ExpectBitwiseEqual(const std::vector<T>& want, const std::vector<T>& got,
                        const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(0, std::memcmp(&want[i], &got[i], sizeof(T)))
        << what << " element " << i << ": want " << want[i] << ", got " << got[i];
  }
}

template <typename T>
void Check(const ConvGeometry& g, const std::vector<T>& data, const std::vector<T>& weight,
           const std::string& what, const Eigen::ThreadPoolDevice* device = nullptr) {
  std::vector<T> out(g.batch * g.out_channels * g.out_size(), T(7));
  ConvForward<T>(g, ChannelOrder::kFirst, data.data(), weight.data(), out.data(), device);
  ExpectBitwiseEqual(Direct(g, data, weight), out, what);
}

template <typename T>
void CheckRandom(ConvGeometry g, std::mt19937& rng, const std::string& what,
                 const Eigen::ThreadPoolDevice* device = nullptr) {
  Check<T>(g, Random<T>(g.batch * g.in_channels * g.in_size(), rng),
           Random<T>(g.out_channels * g.kernel_size(), rng), what, device);
}

// Every width from 1 to 41 (scalar and every block width the target has:
// 2 to 8 lanes on AVX2, 4 to 16 on AVX-512; partial last
// blocks), under several stride / dilation / padding settings of W and H.
TEST(DepthwiseConv, EveryWidthStrideDilationPadding) {
  std::mt19937 rng(1);
  struct Variant {
    int64_t kw, sw, dw, pl, pr, kh, sh, ph;
  };
  const Variant variants[] = {
      {3, 1, 1, 1, 1, 3, 1, 1},  // mobilenet's 3x3
      {5, 1, 1, 2, 2, 5, 2, 2},  // ppocr's 5x5, H stride 2
      {3, 2, 1, 1, 0, 3, 2, 1},  // stride 2, asymmetric padding
      {3, 3, 2, 2, 3, 2, 1, 0},  // stride 3, dilation 2
      {4, 1, 3, 0, 5, 1, 1, 0},  // even kernel, dilation 3, padding after only
      {1, 1, 1, 0, 0, 1, 1, 0},  // 1x1 with a channel multiplier below
      {7, 1, 1, 6, 6, 3, 1, 2},  // kernel wider than most images: all edges
  };
  for (const Variant& v : variants) {
    for (int64_t width = 1; width <= 41; ++width) {
      for (int64_t multiplier : {1, 2}) {
        ConvGeometry g = Depthwise(3, multiplier, {1, 5, width}, {1, v.kh, v.kw}, {1, v.sh, v.sw},
                                   {1, 1, v.dw}, {0, v.ph, v.pl}, {0, v.ph, v.pr});
        if (g.out[2] < 1 || g.out[1] < 1) continue;
        if (g.kernel[2] == 1 && multiplier == 1) continue;  // pointwise: not depthwise
        g.batch = 2;
        const std::string what = "kw " + std::to_string(v.kw) + " stride " +
                                 std::to_string(v.sw) + " width " + std::to_string(width) +
                                 " multiplier " + std::to_string(multiplier);
        CheckRandom<float>(g, rng, what);
      }
    }
  }
}

TEST(DepthwiseConv, OtherTypesAndRanks) {
  std::mt19937 rng(2);
  const ConvGeometry g2 = Depthwise(4, 1, {1, 6, 37}, {1, 3, 5}, {1, 1, 2}, {1, 1, 1},
                                    {0, 1, 2}, {0, 1, 2});
  CheckRandom<double>(g2, rng, "double");
  CheckRandom<int32_t>(g2, rng, "int32");
  CheckRandom<int64_t>(g2, rng, "int64");
  // 1-d (unit D, H) and 3-d with padding on every axis.
  CheckRandom<float>(Depthwise(5, 1, {1, 1, 50}, {1, 1, 7}, {1, 1, 1}, {1, 1, 1}, {0, 0, 3},
                               {0, 0, 3}),
                     rng, "1-d");
  CheckRandom<float>(Depthwise(3, 2, {5, 6, 20}, {3, 3, 3}, {2, 1, 1}, {1, 2, 1}, {1, 1, 1},
                               {1, 2, 1}),
                     rng, "3-d");
}

TEST(DepthwiseConv, ThreadPoolDeviceGivesTheSameBits) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  std::mt19937 rng(3);
  CheckRandom<float>(Depthwise(64, 1, {1, 24, 96}, {1, 5, 5}, {1, 2, 1}, {1, 1, 1}, {0, 2, 2},
                               {0, 2, 2}),
                     rng, "two threads", &device);
}

// A padded tap is skipped, not added as weight * 0: with an infinite weight
// the sum of a border column stays finite, and a sum that underflows to -0
// is not turned into +0 by a later padded tap.
TEST(DepthwiseConv, PaddedTapsAreSkippedNotMultipliedByZero) {
  const ConvGeometry g = Depthwise(1, 1, {1, 1, 40}, {1, 1, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 1},
                                   {0, 0, 1});
  std::vector<float> data(40, 1.0f);
  std::vector<float> weight = {std::numeric_limits<float>::infinity(), 1.0f, 1.0f};
  std::vector<float> out(40);
  ConvForward<float>(g, ChannelOrder::kFirst, data.data(), weight.data(), out.data(), nullptr);
  EXPECT_EQ(out[0], 2.0f);  // the infinite tap falls in the padding
  EXPECT_TRUE(std::isinf(out[1]));
  Check<float>(g, data, weight, "infinite weight");

  // -tiny * tiny underflows to -0 (with fused multiply-adds, as -march=native
  // builds contract them); the padded last tap (weight 1) must not make it
  // +0 (as -0 + 1 * 0 would).
  const float tiny = std::numeric_limits<float>::denorm_min();
  std::vector<float> small(40, tiny);
  std::vector<float> w2 = {0.0f, -tiny, 1.0f};
  ConvForward<float>(g, ChannelOrder::kFirst, small.data(), w2.data(), out.data(), nullptr);
  EXPECT_EQ(out[39], 0.0f);
  EXPECT_EQ(std::signbit(out[39]), std::signbit(Direct(g, small, w2)[39]));
  Check<float>(g, small, w2, "negative zero");
}

}  // namespace
}  // namespace carve::nn_kernels
