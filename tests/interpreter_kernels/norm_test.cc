// batch_norm / layer_norm / instance_norm and the softmax family against
// naive references computed in double, plus hand-checked stability cases.
#include <cmath>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

using ::testing::ElementsAre;

// Index of `axis` for flat element e of `shape`.
int64_t AxisIndex(const std::vector<int64_t>& shape, int64_t e, size_t axis) {
  for (size_t a = shape.size(); a-- > axis + 1;) e /= shape[a];
  return e % shape[axis];
}

TEST(BatchNorm, AxisOneAndLastAxisWithFlags) {
  struct Case {
    int64_t axis;
    bool center, scale;
  };
  for (const Case& c : {Case{1, true, true}, Case{-1, true, true}, Case{1, false, true},
                        Case{3, true, false}}) {
    const std::vector<int64_t> shape{2, 3, 4, 3};
    const size_t axis = c.axis < 0 ? shape.size() - 1 : size_t(c.axis);
    const int64_t ch = shape[axis];
    NDArray x = Random<float>(shape, 1, -3, 3);
    NDArray gamma = Random<float>({ch}, 2, 0.5, 2);
    NDArray beta = Random<float>({ch}, 3);
    NDArray mean = Random<float>({ch}, 4);
    NDArray var = Random<float>({ch}, 5, 0.1, 2);
    const double eps = 1e-3;
    auto outs = RunKernel(
        "nn.batch_norm", {x, gamma, beta, mean, var},
        MakeAttrs("relay.attrs.BatchNormAttrs", {{"axis", Int(c.axis)},
                                                 {"epsilon", Float(eps)},
                                                 {"center", Bool(c.center)},
                                                 {"scale", Bool(c.scale)}}),
        TupleTy(std::vector<const Type*>{TypeOf(DataType::Float(32), shape),
                                         TypeOf(DataType::Float(32), {ch}),
                                         TypeOf(DataType::Float(32), {ch})}));
    CARVE_ASSERT_OK(outs);
    ASSERT_EQ(outs->size(), 3u);
    std::vector<double> expected;
    for (int64_t e = 0; e < x.num_elements(); ++e) {
      const int64_t k = AxisIndex(shape, e, axis);
      const double g = c.scale ? gamma.GetAsDouble(k) : 1.0;
      const double b = c.center ? beta.GetAsDouble(k) : 0.0;
      expected.push_back((x.GetAsDouble(e) - mean.GetAsDouble(k)) /
                             std::sqrt(var.GetAsDouble(k) + eps) * g + b);
    }
    ExpectNear(AsDoubles((*outs)[0]), expected, 1e-5, fmt::format("axis {}", c.axis));
    EXPECT_EQ(AsDoubles((*outs)[1]), AsDoubles(mean));
    EXPECT_EQ(AsDoubles((*outs)[2]), AsDoubles(var));
  }
}

// Normalises over the elements sharing `key(e)`, with gamma/beta indexed by
// `channel(e)`: (x - mean) / sqrt(biased var + eps) * gamma + beta.
template <typename Key, typename Channel>
std::vector<double> ReferenceNorm(const NDArray& x, const NDArray& gamma, const NDArray& beta,
                                  double eps, Key key, Channel channel) {
  std::map<int64_t, std::pair<double, int64_t>> sums;
  for (int64_t e = 0; e < x.num_elements(); ++e) {
    auto& [s, n] = sums[key(e)];
    s += x.GetAsDouble(e);
    ++n;
  }
  std::map<int64_t, double> sq;
  for (int64_t e = 0; e < x.num_elements(); ++e) {
    const auto& [s, n] = sums[key(e)];
    const double d = x.GetAsDouble(e) - s / double(n);
    sq[key(e)] += d * d;
  }
  std::vector<double> y;
  for (int64_t e = 0; e < x.num_elements(); ++e) {
    const auto& [s, n] = sums[key(e)];
    const double var = sq[key(e)] / double(n);
    y.push_back((x.GetAsDouble(e) - s / double(n)) / std::sqrt(var + eps) *
                    gamma.GetAsDouble(channel(e)) +
                beta.GetAsDouble(channel(e)));
  }
  return y;
}

TEST(LayerNorm, SingleAxisNotTrailingAxes) {
  const std::vector<int64_t> shape{2, 5, 3};
  NDArray x = Random<float>(shape, 6, -4, 4);
  for (int64_t axis : {1, -1}) {
    const size_t a = axis < 0 ? 2 : size_t(axis);
    NDArray gamma = Random<float>({shape[a]}, 7, 0.5, 1.5);
    NDArray beta = Random<float>({shape[a]}, 8);
    auto out = RunKernel1("nn.layer_norm", {x, gamma, beta},
                          MakeAttrs("relay.attrs.LayerNormAttrs", {{"axis", Int(axis)}}),
                          TypeOf(DataType::Float(32), shape));
    CARVE_ASSERT_OK(out);
    // Statistics group: every index except the one on `a`.
    auto key = [&](int64_t e) {
      int64_t k = 0, rem = e;
      for (size_t d = shape.size(); d-- > 0;) {
        if (d != a) k = k * 100 + rem % shape[d];
        rem /= shape[d];
      }
      return k;
    };
    auto channel = [&](int64_t e) { return AxisIndex(shape, e, a); };
    ExpectNear(AsDoubles(*out), ReferenceNorm(x, gamma, beta, 1e-5, key, channel), 1e-5,
               fmt::format("axis {}", axis));
  }
}

TEST(InstanceNorm, ChannelsFirstAndLast) {
  const std::vector<int64_t> shape{2, 3, 4, 5};
  NDArray x = Random<float>(shape, 9, -2, 6);
  for (size_t axis : {size_t(1), size_t(3)}) {
    NDArray gamma = Random<float>({shape[axis]}, 10, 0.5, 1.5);
    NDArray beta = Random<float>({shape[axis]}, 11);
    auto out = RunKernel1("nn.instance_norm", {x, gamma, beta},
                          MakeAttrs("relay.attrs.InstanceNormAttrs", {{"axis", Int(int(axis))}}),
                          TypeOf(DataType::Float(32), shape));
    CARVE_ASSERT_OK(out);
    auto channel = [&](int64_t e) { return AxisIndex(shape, e, axis); };
    auto key = [&](int64_t e) { return AxisIndex(shape, e, 0) * 1000 + channel(e); };
    ExpectNear(AsDoubles(*out), ReferenceNorm(x, gamma, beta, 1e-5, key, channel), 1e-5);
  }
}

std::vector<double> ReferenceSoftmax(const NDArray& x, size_t axis, bool log) {
  const std::vector<int64_t>& shape = x.shape();
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t extent = shape[axis];
  std::vector<double> y(size_t(x.num_elements()));
  for (int64_t e = 0; e < x.num_elements(); ++e) {
    const int64_t base = e - AxisIndex(shape, e, axis) * inner;
    double max = -INFINITY, sum = 0;
    for (int64_t k = 0; k < extent; ++k) max = std::max(max, x.GetAsDouble(base + k * inner));
    for (int64_t k = 0; k < extent; ++k) sum += std::exp(x.GetAsDouble(base + k * inner) - max);
    y[e] = log ? x.GetAsDouble(e) - max - std::log(sum) : std::exp(x.GetAsDouble(e) - max) / sum;
  }
  return y;
}

TEST(Softmax, EveryAxisAndVariant) {
  const std::vector<int64_t> shape{3, 4, 5};
  NDArray x = Random<float>(shape, 12, -10, 10);
  for (const char* op : {"nn.softmax", "nn.fast_softmax", "nn.log_softmax"}) {
    for (int64_t axis : {0, 1, 2, -1}) {
      auto out = RunKernel1(op, {x}, MakeAttrs("relay.attrs.SoftmaxAttrs", {{"axis", Int(axis)}}),
                            TypeOf(DataType::Float(32), shape));
      CARVE_ASSERT_OK(out);
      ExpectNear(AsDoubles(*out),
                 ReferenceSoftmax(x, axis < 0 ? 2 : size_t(axis), std::string(op) == "nn.log_softmax"),
                 1e-5, fmt::format("{} axis {}", op, axis));
    }
  }
}

// An empty softmax axis under non-empty lanes (random program 193: a
// (0, 20, 12, 3) softmax on axis 0) read one row past the empty block to
// start the maxima; ASan builds (scripts/sanitize.sh --ci) caught it.
TEST(Softmax, EmptyAxisReadsNothing) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{0, 20, 3}, {2, 0, 3}}) {
    const int64_t axis = shape[0] == 0 ? 0 : 1;
    for (const char* op : {"nn.softmax", "nn.fast_softmax", "nn.log_softmax"}) {
      auto out = RunKernel1(op, {NDArray::Empty(DataType::Float(32), shape)},
                            MakeAttrs("relay.attrs.SoftmaxAttrs", {{"axis", Int(axis)}}),
                            TypeOf(DataType::Float(32), shape));
      CARVE_ASSERT_OK(out);
      EXPECT_EQ(out->shape(), shape) << op;
      EXPECT_EQ(out->num_elements(), 0) << op;
    }
  }
}

TEST(Softmax, LargeLogitsStayFinite) {
  NDArray x = Tensor<float>({1, 3}, {1000, 1001, 1002});
  auto sm = RunKernel1("nn.softmax", {x}, MakeAttrs("relay.attrs.SoftmaxAttrs", {}),
                       TypeOf(DataType::Float(32), {1, 3}));
  auto lsm = RunKernel1("nn.log_softmax", {x}, MakeAttrs("relay.attrs.SoftmaxAttrs", {}),
                        TypeOf(DataType::Float(32), {1, 3}));
  CARVE_ASSERT_OK(sm);
  CARVE_ASSERT_OK(lsm);
  const double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  ExpectNear(AsDoubles(*sm), {std::exp(-2.0) / z, std::exp(-1.0) / z, 1 / z}, 1e-6);
  ExpectNear(AsDoubles(*lsm), {-2 - std::log(z), -1 - std::log(z), -std::log(z)}, 1e-6);
}

TEST(Softmax, Float16ComputesInFloat) {
  NDArray x = Tensor<Half>({4}, {0, 1, 2, 3});
  auto out = RunKernel1("nn.softmax", {x}, MakeAttrs("relay.attrs.SoftmaxAttrs", {}),
                        TypeOf(DataType::Float(16), {4}));
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->dtype(), DataType::Float(16));
  ExpectNear(AsDoubles(*out), ReferenceSoftmax(x, 0, false), 1e-3);
}

TEST(Softmax, IntegerDataIsRejected) {
  auto out = RunKernel1("nn.softmax", {Tensor<int32_t>({2}, {1, 2})},
                        MakeAttrs("relay.attrs.SoftmaxAttrs", {}), TypeOf(DataType::Int(32), {2}));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("dtype"));
}

}  // namespace
}  // namespace carve::kernel_testing
