// `--threads N`: every kernel that splits its work over a thread pool gives
// bit-identical results with one and with two threads. Work is split along
// output elements only (rows or columns of a product, channels, outer
// blocks), never along a reduction, so the order of every sum is fixed.
#define EIGEN_USE_THREADS
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace carve::kernel_testing {
namespace {

struct Case {
  std::string name;
  std::string op;
  std::vector<NDArray> inputs;
  const Attrs* attrs;
  const Type* out_type;
};

const Attrs* Conv(std::initializer_list<std::pair<std::string_view, AttrValue>> fields) {
  return MakeAttrs("relay.attrs.Conv2DAttrs", fields);
}

std::vector<Case> Cases() {
  const DataType f32 = DataType::Float(32), f64 = DataType::Float(64), i32 = DataType::Int(32);
  std::vector<Case> cases;
  // Products large enough to be split (> 4M multiply-adds), odd sizes.
  cases.push_back({"dense f32",
                   "nn.dense",
                   {Random<float>({257, 300}, 1), Random<float>({211, 300}, 2)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f32, {257, 211})});
  cases.push_back({"dense f32 wide",
                   "nn.dense",
                   {Random<float>({7, 900}, 3), Random<float>({1001, 900}, 4)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f32, {7, 1001})});
  cases.push_back({"dense f64",
                   "nn.dense",
                   {Random<double>({200, 300}, 5), Random<double>({190, 300}, 6)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f64, {200, 190})});
  cases.push_back(
      {"dense i32",
       "nn.dense",
       {Random<int32_t>({150, 200}, 7, -50, 50), Random<int32_t>({170, 200}, 8, -50, 50)},
       MakeAttrs("relay.attrs.DenseAttrs", {}),
       TypeOf(i32, {150, 170})});
  cases.push_back({"batch_matmul",
                   "nn.batch_matmul",
                   {Random<float>({6, 130, 70}, 9), Random<float>({6, 150, 70}, 10)},
                   MakeAttrs("relay.attrs.BatchMatmulAttrs", {{"transpose_b", Bool(true)}}),
                   TypeOf(f32, {6, 130, 150})});
  cases.push_back({"conv2d NCHW",
                   "nn.conv2d",
                   {Random<float>({2, 24, 31, 29}, 11), Random<float>({40, 24, 3, 3}, 12)},
                   Conv({{"padding", Ints({1, 0, 2, 1})}}),
                   TypeOf(f32, {2, 40, 32, 28})});
  cases.push_back({"conv2d NHWC strided",
                   "nn.conv2d",
                   {Random<float>({1, 33, 35, 24}, 13), Random<float>({3, 3, 24, 48}, 14)},
                   Conv({{"strides", Ints({2, 2})},
                         {"padding", Ints({1, 1, 1, 1})},
                         {"data_layout", Str("NHWC")},
                         {"kernel_layout", Str("HWIO")}}),
                   TypeOf(f32, {1, 17, 18, 48})});
  cases.push_back({"conv2d depthwise",
                   "nn.conv2d",
                   {Random<float>({1, 32, 40, 40}, 15), Random<float>({32, 1, 3, 3}, 16)},
                   Conv({{"padding", Ints({1, 1, 1, 1})}, {"groups", Int(32)}}),
                   TypeOf(f32, {1, 32, 40, 40})});
  cases.push_back({"conv2d grouped dilated",
                   "nn.conv2d",
                   {Random<float>({1, 16, 30, 30}, 17), Random<float>({32, 4, 3, 3}, 18)},
                   Conv({{"dilation", Ints({2, 2})}, {"groups", Int(4)}}),
                   TypeOf(f32, {1, 32, 26, 26})});
  // Shapes whose split leaves a panel of one row or one column, or a
  // partial register tile, next to full ones: every element must come out
  // of the same arithmetic as in the unsplit product (no GEMV for a 1-row
  // panel, no tail code path with another summation order).
  cases.push_back({"dense f32 one-row panel",
                   "nn.dense",
                   {Random<float>({33, 1000}, 21), Random<float>({32, 1000}, 22)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f32, {33, 32})});
  cases.push_back({"dense f32 one-column panel",
                   "nn.dense",
                   {Random<float>({32, 1000}, 23), Random<float>({33, 1000}, 24)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f32, {32, 33})});
  cases.push_back({"dense f32 vector",
                   "nn.dense",
                   {Random<float>({1, 1024}, 25), Random<float>({4099, 1024}, 26)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f32, {1, 4099})});
  cases.push_back({"dense f32 odd tails, deep",
                   "nn.dense",
                   {Random<float>({97, 1111}, 27), Random<float>({53, 1111}, 28)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f32, {97, 53})});
  cases.push_back({"dense f64 odd",
                   "nn.dense",
                   {Random<double>({43, 200}, 29), Random<double>({301, 200}, 30)},
                   MakeAttrs("relay.attrs.DenseAttrs", {}),
                   TypeOf(f64, {43, 301})});
  cases.push_back({"batch_matmul one-row panel",
                   "nn.batch_matmul",
                   {Random<float>({1, 65, 300}, 31), Random<float>({1, 61, 300}, 32)},
                   MakeAttrs("relay.attrs.BatchMatmulAttrs", {{"transpose_b", Bool(true)}}),
                   TypeOf(f32, {1, 65, 61})});
  cases.push_back({"conv2d NCHW odd channels",
                   "nn.conv2d",
                   {Random<float>({1, 19, 37, 41}, 33), Random<float>({33, 19, 3, 3}, 34)},
                   Conv({{"padding", Ints({1, 1, 1, 1})}}),
                   TypeOf(f32, {1, 33, 37, 41})});
  cases.push_back({"conv2d NCHW 7x7 image",
                   "nn.conv2d",
                   {Random<float>({1, 256, 7, 7}, 35), Random<float>({130, 256, 3, 3}, 36)},
                   Conv({{"padding", Ints({1, 1, 1, 1})}}),
                   TypeOf(f32, {1, 130, 7, 7})});
  cases.push_back({"conv2d NCHW pointwise",
                   "nn.conv2d",
                   {Random<float>({1, 64, 29, 31}, 37), Random<float>({65, 64, 1, 1}, 38)},
                   Conv({}),
                   TypeOf(f32, {1, 65, 29, 31})});
  cases.push_back({"conv2d NHWC odd",
                   "nn.conv2d",
                   {Random<float>({1, 23, 27, 17}, 39), Random<float>({3, 3, 17, 35}, 40)},
                   Conv({{"padding", Ints({1, 1, 1, 1})},
                         {"data_layout", Str("NHWC")},
                         {"kernel_layout", Str("HWIO")}}),
                   TypeOf(f32, {1, 23, 27, 35})});
  cases.push_back({"conv2d NCHW f64",
                   "nn.conv2d",
                   {Random<double>({1, 16, 30, 29}, 41), Random<double>({24, 16, 3, 3}, 42)},
                   Conv({{"padding", Ints({1, 1, 1, 1})}}),
                   TypeOf(f64, {1, 24, 30, 29})});
  cases.push_back({"softmax",
                   "nn.softmax",
                   {Random<float>({64, 1000}, 19)},
                   MakeAttrs("relay.attrs.SoftmaxAttrs", {}),
                   TypeOf(f32, {64, 1000})});
  cases.push_back({"max_pool2d",
                   "nn.max_pool2d",
                   {Random<float>({2, 64, 56, 56}, 20)},
                   MakeAttrs("relay.attrs.MaxPool2DAttrs", {{"pool_size", Ints({3, 3})},
                                                            {"strides", Ints({2, 2})},
                                                            {"padding", Ints({1, 1, 1, 1})}}),
                   TypeOf(f32, {2, 64, 28, 28})});
  return cases;
}

TEST(Threads, OneAndTwoThreadsGiveIdenticalBits) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  for (const Case& c : Cases()) {
    auto one = RunKernel1(c.op, c.inputs, c.attrs, c.out_type, nullptr);
    CARVE_ASSERT_OK(one);
    auto two = RunKernel1(c.op, c.inputs, c.attrs, c.out_type, &device);
    CARVE_ASSERT_OK(two);
    EXPECT_TRUE(one->BitwiseEqual(*two)) << c.name;
  }
}

// Other thread counts split at other places (three panels of a 97-row
// product end at rows 48 and 96, not 64): still the same bits.
TEST(Threads, ThreeAndFiveThreadsGiveIdenticalBits) {
  for (int threads : {3, 5}) {
    Eigen::ThreadPool pool(threads);
    Eigen::ThreadPoolDevice device(&pool, threads);
    for (const Case& c : Cases()) {
      auto one = RunKernel1(c.op, c.inputs, c.attrs, c.out_type, nullptr);
      CARVE_ASSERT_OK(one);
      auto many = RunKernel1(c.op, c.inputs, c.attrs, c.out_type, &device);
      CARVE_ASSERT_OK(many);
      EXPECT_TRUE(one->BitwiseEqual(*many)) << c.name << " on " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace carve::kernel_testing
