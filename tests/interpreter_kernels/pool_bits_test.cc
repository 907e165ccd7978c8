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

}  // namespace
}  // namespace carve::kernel_testing
