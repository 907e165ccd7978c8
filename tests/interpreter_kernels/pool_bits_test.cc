// Pooling kernels bit for bit against the plain definition they must
// reproduce: each output takes its window's taps in (kd, kh, kw) order from
// zero (avg, then one division) or the dtype's lowest value (max, keeping
// the first of equal values: v > acc ? v : acc). The fast paths (global
// pools over several planes at once) must not change a bit, on data where
// the order of a float sum matters, with -0 / +0 and NaN.
#define EIGEN_USE_THREADS
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <unsupported/Eigen/CXX11/Tensor>

#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

// Planes of `size` floats whose sums depend on the order of the adds.
std::vector<float> OrderSensitive(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(-1, 1);
  std::uniform_int_distribution<int> pick(0, 9);
  std::vector<float> v(n);
  for (float& x : v) {
    const int k = pick(rng);
    x = k == 0 ? 1e8f * unit(rng) : k == 1 ? -0.0f : k == 2 ? 0.0f : unit(rng);
  }
  return v;
}

void ExpectSameBits(const std::vector<double>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const double w = want[i];
    EXPECT_EQ(0, std::memcmp(&got[i], &w, sizeof w)) << "element " << i << ": got " << got[i]
                                                       << ", want " << want[i];
  }
}

// Global pools over 2 x 13 planes (three groups of eight and a remainder)
// of 7 x 5 elements, one and two threads, both global ops and the
// adaptive ones with a 1 x 1 output.
TEST(GlobalPoolBits, SumsAndMaximaTakeTheirElementsInOrder) {
  const int64_t n = 2, c = 13, h = 7, w = 5, size = h * w;
  std::vector<float> x = OrderSensitive(n * c * size, 4);
  x[3] = std::numeric_limits<float>::quiet_NaN();  // a NaN never wins a max, nor spoils avg order
  std::vector<float> avg(n * c), max(n * c);
  for (int64_t p = 0; p < n * c; ++p) {
    float sum = 0, best = std::numeric_limits<float>::lowest();
    for (int64_t i = 0; i < size; ++i) {
      const float v = x[p * size + i];
      sum = sum + v;
      best = v > best ? v : best;
    }
    avg[p] = sum / float(size);
    max[p] = best;
  }
  const NDArray data = Tensor<float>({n, c, h, w}, std::vector<double>(x.begin(), x.end()));
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice two(&pool, 2);
  const Eigen::ThreadPoolDevice* one = nullptr;
  for (const Eigen::ThreadPoolDevice* device : {one, static_cast<const Eigen::ThreadPoolDevice*>(&two)}) {
    const Type* type = TypeOf(DataType::Float(32), {n, c, 1, 1});
    auto a = RunKernel1("nn.global_avg_pool2d", {data},
                        MakeAttrs("relay.attrs.GlobalPool2DAttrs", {}), type, device);
    CARVE_ASSERT_OK(a);
    ExpectSameBits(AsDoubles(*a), avg);
    auto m = RunKernel1("nn.global_max_pool2d", {data},
                        MakeAttrs("relay.attrs.GlobalPool2DAttrs", {}), type, device);
    CARVE_ASSERT_OK(m);
    ExpectSameBits(AsDoubles(*m), max);
    auto aa = RunKernel1("nn.adaptive_avg_pool2d", {data},
                         MakeAttrs("relay.attrs.AdaptivePool2DAttrs",
                                   {{"output_size", Ints({1, 1})}}),
                         type, device);
    CARVE_ASSERT_OK(aa);
    ExpectSameBits(AsDoubles(*aa), avg);
  }
}

// Window pools (2-d, NCHW) over every width from 1 to 40 under strides 1-3,
// dilation, padding and ceil_mode: the register-block columns and the edge
// columns against one output element at a time, taps in (kh, kw) order.
TEST(WindowPoolBits, EveryWidthStrideAndPadding) {
  struct Variant {
    int64_t k, stride, dilation, pad_before, pad_after;
    bool ceil;
  };
  const Variant variants[] = {{3, 2, 1, 0, 0, true},  {2, 2, 1, 0, 0, false},
                              {3, 1, 1, 1, 1, false}, {3, 3, 1, 1, 2, true},
                              {2, 1, 2, 0, 1, false}, {5, 2, 1, 2, 2, true}};
  const int64_t planes = 3, h = 6;
  for (const Variant& v : variants) {
    for (int64_t w = 1; w <= 40; ++w) {
      const int64_t dk = (v.k - 1) * v.dilation + 1;
      auto extent = [&](int64_t in) {
        const int64_t span = in + v.pad_before + v.pad_after - dk + (v.ceil ? v.stride - 1 : 0);
        return span < 0 ? int64_t{0} : span / v.stride + 1;
      };
      const int64_t oh = extent(h), ow = extent(w);
      if (oh < 1 || ow < 1) continue;
      const std::vector<float> x = OrderSensitive(planes * h * w, uint32_t(w));
      for (bool max : {true, false}) {
        std::vector<float> want;
        for (int64_t p = 0; p < planes; ++p) {
          for (int64_t i = 0; i < oh; ++i) {
            for (int64_t j = 0; j < ow; ++j) {
              float acc = max ? std::numeric_limits<float>::lowest() : 0.0f;
              int64_t count = 0;
              for (int64_t a = 0; a < v.k; ++a) {
                for (int64_t b = 0; b < v.k; ++b) {
                  const int64_t y = i * v.stride - v.pad_before + a * v.dilation;
                  const int64_t z = j * v.stride - v.pad_before + b * v.dilation;
                  if (y < 0 || y >= h || z < 0 || z >= w) continue;
                  const float e = x[(p * h + y) * w + z];
                  acc = max ? (e > acc ? e : acc) : acc + e;
                  ++count;
                }
              }
              want.push_back(max ? acc : acc / float(std::max<int64_t>(1, count)));
            }
          }
        }
        auto got = RunKernel1(
            max ? "nn.max_pool2d" : "nn.avg_pool2d",
            {Tensor<float>({1, planes, h, w}, std::vector<double>(x.begin(), x.end()))},
            MakeAttrs(max ? "relay.attrs.MaxPool2DAttrs" : "relay.attrs.AvgPool2DAttrs",
                      {{"pool_size", Ints({v.k, v.k})},
                       {"strides", Ints({v.stride, v.stride})},
                       {"dilation", Ints({v.dilation, v.dilation})},
                       {"padding", Ints({v.pad_before, v.pad_before, v.pad_after, v.pad_after})},
                       {"ceil_mode", Bool(v.ceil)}}),
            TypeOf(DataType::Float(32), {1, planes, oh, ow}));
        CARVE_ASSERT_OK(got);
        SCOPED_TRACE(testing::Message() << (max ? "max" : "avg") << " k " << v.k << " stride "
                                        << v.stride << " width " << w);
        ExpectSameBits(AsDoubles(*got), want);
      }
    }
  }
}

}  // namespace
}  // namespace carve::kernel_testing
