// Ports of TVM v0.16 tests/python/relay/test_pass_fold_scale_axis.py: each
// case builds TVM's `before` and `expected` functions (the scale a bound
// constant, as TVM's relay.const), runs the pass on `before` and asserts
// structural equality with `expected` (TVM's structural_equal). Weights TVM
// leaves untyped (its relation infers them from channels / kernel_size) are
// annotated with the type TVM infers. The blocked layouts (NCHW2c, ...) are
// ported where carve's type relations take them.
#include <tuple>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "passes/fold/bind_params.h"
#include "passes/fold/fold_scale_axis.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

// A (0.5, 1) scale that differs along every element, as TVM's
// _get_positive_scale; `sign` -1 gives TVM's negative scales.
NDArray Scale(std::initializer_list<int64_t> shape, double sign = 1) {
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    a.SetFromDouble(i, sign * (0.5 + 0.5 * double(i + 1) / double(a.num_elements() + 1)));
  }
  return a;
}

// `pass` turns `before` into TVM's `expected`.
void ExpectFolds(const PassPtr& pass, std::string_view before, std::string_view expected,
                 const ParamMap& consts) {
  Module mod = ParseBound(before, consts);
  RunOk(pass, mod);
  Module want = ParseBound(expected, consts);
  EXPECT_TRUE(SameModule(mod, want, /*with_types=*/true));
}

// `pass` leaves `before` as it is.
void ExpectUnchanged(const PassPtr& pass, std::string_view before, const ParamMap& consts) {
  Module mod = ParseBound(before, consts);
  RunOk(pass, mod);
  Module want = ParseBound(before, consts);
  EXPECT_TRUE(SameModule(mod, want, /*with_types=*/true));
}

TEST(FoldScaleAxisTvm, FoldFwdSimple) {
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3), float32], %in_bias: Tensor[(4, 1, 1), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3])
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3), float32], %in_bias: Tensor[(4, 1, 1), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2]);
  %1 = nn.relu(%x);
  %2 = expand_dims(%0, axis=1, num_newaxis=2);
  %3 = divide(%in_bias, %2);
  %4 = add(%1, %3);
  %5 = expand_dims(%0, axis=1, num_newaxis=2);
  %6 = multiply(%weight, %5);
  nn.conv2d(%4, %6, padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3])
})",
              {{"s", Scale({4, 1, 1})}});
}

TEST(FoldScaleAxisTvm, FoldFwdDualPath) {
  // Depthwise NHWC / HWIO, the scaled value read by two convolutions.
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 3), float32], %weight: Tensor[(3, 3, 1, 3), float32], %in_bias: Tensor[(3), float32], %s: Tensor[(3), float32]) {
  %0 = multiply(%s, %x);
  %1 = nn.relu(%0);
  %2 = subtract(%1, %in_bias);
  %3 = nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  %4 = nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  add(%3, %4)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 3), float32], %weight: Tensor[(3, 3, 1, 3), float32], %in_bias: Tensor[(3), float32], %s: Tensor[(3), float32]) {
  %0 = nn.relu(%x);
  %1 = divide(%in_bias, %s);
  %2 = subtract(%0, %1);
  %3 = multiply(%weight, %s);
  %4 = nn.conv2d(%2, %3, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  %5 = multiply(%weight, %s);
  %6 = nn.conv2d(%2, %5, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  add(%4, %6)
})",
              {{"s", Scale({3})}});
}

TEST(FoldScaleAxisTvm, FoldFwdFail) {
  // leaky_relu does not let a scale through; the scaled value is also used
  // outside a convolution.
  ExpectUnchanged(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 11, 10, 4), float32], %weight: Tensor[(3, 3, 4, 4), float32], %s: Tensor[(4), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.leaky_relu(%0, alpha=0.1f);
  %2 = nn.conv2d(%1, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  add(%2, %0)
})",
                  {{"s", Scale({4})}});
}

TEST(FoldScaleAxisTvm, FoldFwdReluFail) {
  // A scale that is not a constant, and a negative one, cannot cross relu.
  constexpr std::string_view kBefore = R"(
def @main(%x: Tensor[(2, 11, 10, 4), float32], %weight: Tensor[(3, 3, 4, 4), float32], %in_scale: Tensor[(4), float32]) {
  %0 = multiply(%x, %in_scale);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  add(%2, %0)
})";
  ExpectUnchanged(ForwardFoldScaleAxis(), kBefore, {});
  ExpectUnchanged(ForwardFoldScaleAxis(), kBefore, {{"in_scale", Scale({4}, -1)}});
}

TEST(FoldScaleAxisTvm, FoldFwdLetFail) {
  ExpectUnchanged(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 11, 10, 4), float32], %weight: Tensor[(3, 3, 4, 4), float32], %in_bias: Tensor[(4), float32], %s: Tensor[(4), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  let %x_var = %2;
  %3 = nn.conv2d(%x_var, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  add(%3, %2)
})",
                  {{"s", Scale({4})}});
}

TEST(FoldScaleAxisTvm, FoldFwdNegativeScale) {
  // No relu to cross: a negative scale folds.
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = multiply(%x, %s);
  nn.conv2d(%0, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=2);
  %2 = multiply(%weight, %1);
  nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])
})",
              {{"s", Scale({4, 1, 1}, -1)}});
}

TEST(FoldScaleAxisTvm, FoldFwdDense) {
  for (auto [n, k, units] : {std::tuple{2, 4, 3}, std::tuple{3, 5, 4}}) {
    std::string sig = fmt::format(
        "%x: Tensor[({}, {}), float32], %weight: Tensor[({}, {}), float32], "
        "%in_bias: Tensor[({}), float32], %s: Tensor[({}), float32]",
        n, k, units, k, k, k);
    ExpectFolds(ForwardFoldScaleAxis(), fmt::format(R"(
def @main({}) {{
  %0 = multiply(%x, %s);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  nn.dense(%2, %weight, units=None)
}})",
                                                    sig),
                fmt::format(R"(
def @main({}) {{
  %0 = nn.relu(%x);
  %1 = divide(%in_bias, %s);
  %2 = add(%0, %1);
  %3 = multiply(%weight, %s);
  nn.dense(%2, %3, units=None)
}})",
                            sig),
                {{"s", Scale({k})}});
  }
}

TEST(FoldScaleAxisTvm, FoldBwdSimple) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32], %out_bias: Tensor[(8), float32], %s: Tensor[(8, 1, 1), float32]) {
  %0 = expand_dims(%out_bias, axis=1, num_newaxis=2);
  %1 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %2 = add(%1, %0);
  %3 = nn.relu(%2);
  multiply(%3, %s)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32], %out_bias: Tensor[(8), float32], %s: Tensor[(8, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=3);
  %2 = multiply(%weight, %1);
  %3 = expand_dims(%out_bias, axis=1, num_newaxis=2);
  %4 = expand_dims(%0, axis=1, num_newaxis=2);
  %5 = nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %6 = multiply(%3, %4);
  %7 = add(%5, %6);
  nn.relu(%7)
})",
              {{"s", Scale({8, 1, 1})}});
}

TEST(FoldScaleAxisTvm, FoldBwdDualPath) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32], %out_bias: Tensor[(8), float32], %s: Tensor[(8, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %3 = nn.relu(%2);
  %4 = add(%1, %3);
  multiply(%4, %s)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32], %out_bias: Tensor[(8), float32], %s: Tensor[(8, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=3);
  %2 = multiply(%weight, %1);
  %3 = nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %4 = expand_dims(%0, axis=1, num_newaxis=3);
  %5 = multiply(%weight, %4);
  %6 = nn.conv2d(%x, %5, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %7 = nn.relu(%3);
  %8 = nn.relu(%6);
  add(%7, %8)
})",
              {{"s", Scale({8, 1, 1})}});
}

TEST(FoldScaleAxisTvm, FoldBwdDualConsumer) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %out_bias: Tensor[(4), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = multiply(%0, %s);
  %2 = nn.relu(%1);
  %3 = nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %4 = multiply(%3, %s);
  %5 = nn.relu(%4);
  %6 = nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %7 = multiply(%6, %s);
  %8 = nn.relu(%7);
  add(%5, %8)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %out_bias: Tensor[(4), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=3);
  %2 = multiply(%weight, %1);
  %3 = nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %4 = nn.relu(%3);
  %5 = squeeze(%s, axis=[1, 2]);
  %6 = expand_dims(%5, axis=1, num_newaxis=3);
  %7 = multiply(%weight, %6);
  %8 = nn.conv2d(%4, %7, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %9 = squeeze(%s, axis=[1, 2]);
  %10 = expand_dims(%9, axis=1, num_newaxis=3);
  %11 = multiply(%weight, %10);
  %12 = nn.conv2d(%4, %11, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %13 = nn.relu(%8);
  %14 = nn.relu(%12);
  add(%13, %14)
})",
              {{"s", Scale({4, 1, 1})}});
}

TEST(FoldScaleAxisTvm, FoldBwdFail) {
  // fail1: the two paths produce the channel on different axes (CNHW out_layout).
  ExpectUnchanged(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(4, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %out_bias: Tensor[(4, 1, 1), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], out_layout="CNHW");
  %3 = nn.relu(%2);
  %4 = add(%1, %3);
  multiply(%4, %s)
})",
                  {{"s", Scale({4, 1, 1})}});
  // fail2: the conv result is also read unscaled.
  ExpectUnchanged(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(4, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %out_bias: Tensor[(4, 1, 1), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = multiply(%0, %s);
  add(%2, %1)
})",
                  {{"s", Scale({4, 1, 1})}});
}

TEST(FoldScaleAxisTvm, FoldBwdReluFail) {
  // TVM's test scales x (not the conv): nothing to fold, whether the scale
  // is a variable or a negative constant.
  constexpr std::string_view kBefore = R"(
def @main(%x: Tensor[(4, 4, 10, 10), float32], %in_scale: Tensor[(4, 1, 1), float32]) {
  multiply(%x, %in_scale)
})";
  ExpectUnchanged(BackwardFoldScaleAxis(), kBefore, {});
  ExpectUnchanged(BackwardFoldScaleAxis(), kBefore, {{"in_scale", Scale({4, 1, 1}, -1)}});
}

TEST(FoldScaleAxisTvm, FoldBwdNegativeScale) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32], %s: Tensor[(8, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  multiply(%0, %s)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3), float32], %s: Tensor[(8, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=3);
  %2 = multiply(%weight, %1);
  nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3])
})",
              {{"s", Scale({8, 1, 1}, -1)}});
}

// The blocked-layout halves of the same tests (NCHW2c data, OIHW2i4o
// kernels, ...): the scale is folded along the split channel axis with
// reshapes instead of expand_dims.
TEST(FoldScaleAxisTvm, FoldFwdSimpleBlocked) {
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 2, 10, 10, 2), float32], %weight: Tensor[(2, 2, 3, 3, 2, 4), float32], %in_bias: Tensor[(1, 2, 1, 1, 2), float32], %s: Tensor[(1, 2, 1, 1, 2), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW2i4o")
})",
              R"(
def @main(%x: Tensor[(2, 2, 10, 10, 2), float32], %weight: Tensor[(2, 2, 3, 3, 2, 4), float32], %in_bias: Tensor[(1, 2, 1, 1, 2), float32], %s: Tensor[(1, 2, 1, 1, 2), float32]) {
  %0 = squeeze(%s, axis=[0, 2, 3]);
  %1 = nn.relu(%x);
  %2 = reshape(%0, newshape=[1, 2, 1, 1, 2]);
  %3 = divide(%in_bias, %2);
  %4 = add(%1, %3);
  %5 = reshape(%0, newshape=[1, 2, 1, 1, 2, 1]);
  %6 = multiply(%weight, %5);
  nn.conv2d(%4, %6, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW2i4o")
})",
              {{"s", Scale({1, 2, 1, 1, 2})}});
}

TEST(FoldScaleAxisTvm, FoldFwdNegativeScaleBlocked) {
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 2, 10, 10, 2), float32], %weight: Tensor[(4, 1, 3, 3, 4, 2), float32], %s: Tensor[(1, 2, 1, 1, 2), float32]) {
  %0 = multiply(%x, %s);
  nn.conv2d(%0, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW4i2o")
})",
              R"(
def @main(%x: Tensor[(2, 2, 10, 10, 2), float32], %weight: Tensor[(4, 1, 3, 3, 4, 2), float32], %s: Tensor[(1, 2, 1, 1, 2), float32]) {
  %0 = squeeze(%s, axis=[0, 2, 3]);
  %1 = reshape(%0, newshape=[1, 1, 1, 1, 4, 1]);
  %2 = multiply(%weight, %1);
  nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW4i2o")
})",
              {{"s", Scale({1, 2, 1, 1, 2}, -1)}});
}

TEST(FoldScaleAxisTvm, FoldBwdSimpleBlocked) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 2, 10, 10, 16), float32], %weight: Tensor[(4, 32, 3, 3, 1, 16), float32], %out_bias: Tensor[(64), float32], %s: Tensor[(64), float32]) {
  %0 = reshape(%out_bias, newshape=[1, 4, 1, 1, 16]);
  %1 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3], data_layout="NCHW16c", kernel_layout="OIHW1i16o");
  %2 = add(%1, %0);
  %3 = nn.relu(%2);
  %4 = reshape(%s, newshape=[1, 4, 1, 1, 16]);
  multiply(%3, %4)
})",
              R"(
def @main(%x: Tensor[(2, 2, 10, 10, 16), float32], %weight: Tensor[(4, 32, 3, 3, 1, 16), float32], %out_bias: Tensor[(64), float32], %s: Tensor[(64), float32]) {
  %0 = reshape(%s, newshape=[1, 4, 1, 1, 16]);
  %1 = squeeze(%0, axis=[0, 2, 3]);
  %2 = reshape(%1, newshape=[4, 1, 1, 1, 1, 16]);
  %3 = multiply(%weight, %2);
  %4 = reshape(%out_bias, newshape=[1, 4, 1, 1, 16]);
  %5 = reshape(%1, newshape=[1, 4, 1, 1, 16]);
  %6 = nn.conv2d(%x, %3, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3], data_layout="NCHW16c", kernel_layout="OIHW1i16o");
  %7 = multiply(%4, %5);
  %8 = add(%6, %7);
  nn.relu(%8)
})",
              {{"s", Scale({64})}});
}

TEST(FoldScaleAxisTvm, FoldBwdNegativeScaleBlocked) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 2, 10, 10, 2), float32], %weight: Tensor[(4, 4, 3, 3, 1, 2), float32], %s: Tensor[(1, 4, 1, 1, 2), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW1i2o");
  multiply(%0, %s)
})",
              R"(
def @main(%x: Tensor[(2, 2, 10, 10, 2), float32], %weight: Tensor[(4, 4, 3, 3, 1, 2), float32], %s: Tensor[(1, 4, 1, 1, 2), float32]) {
  %0 = squeeze(%s, axis=[0, 2, 3]);
  %1 = reshape(%0, newshape=[4, 1, 1, 1, 1, 2]);
  %2 = multiply(%weight, %1);
  nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW1i2o")
})",
              {{"s", Scale({1, 4, 1, 1, 2}, -1)}});
}

TEST(FoldScaleAxisTvm, FoldFwdDualPathBlocked) {
  // Depthwise NHWC2c / HWIO1i2o: TVM reads the weight as OIHW (O = 2 * 2 =
  // groups, I = 1), so the scale goes along the kernel's O and o.
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 2, 2), float32], %weight: Tensor[(3, 3, 1, 2, 1, 2), float32], %in_bias: Tensor[(2, 2), float32], %s: Tensor[(2, 2), float32]) {
  %0 = multiply(%s, %x);
  %1 = nn.relu(%0);
  %2 = subtract(%1, %in_bias);
  %3 = nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3], data_layout="NHWC2c", kernel_layout="HWIO1i2o");
  %4 = nn.conv2d(%2, %weight, padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3], data_layout="NHWC2c", kernel_layout="HWIO1i2o");
  add(%3, %4)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 2, 2), float32], %weight: Tensor[(3, 3, 1, 2, 1, 2), float32], %in_bias: Tensor[(2, 2), float32], %s: Tensor[(2, 2), float32]) {
  %0 = nn.relu(%x);
  %1 = reshape(%s, newshape=[1, 1, 1, 2, 2]);
  %2 = divide(%in_bias, %1);
  %3 = subtract(%0, %2);
  %4 = reshape(%s, newshape=[1, 1, 1, 2, 1, 2]);
  %5 = multiply(%weight, %4);
  %6 = nn.conv2d(%3, %5, padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3], data_layout="NHWC2c", kernel_layout="HWIO1i2o");
  %7 = reshape(%s, newshape=[1, 1, 1, 2, 1, 2]);
  %8 = multiply(%weight, %7);
  %9 = nn.conv2d(%3, %8, padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3], data_layout="NHWC2c", kernel_layout="HWIO1i2o");
  add(%6, %9)
})",
              {{"s", Scale({2, 2})}});
}

TEST(FoldScaleAxisTvm, FoldBwdDense) {
  for (auto [n, k, units] : {std::tuple{2, 4, 3}, std::tuple{3, 5, 4}}) {
    std::string sig = fmt::format(
        "%x: Tensor[({}, {}), float32], %weight: Tensor[({}, {}), float32], "
        "%in_bias: Tensor[({}), float32], %s: Tensor[({}), float32]",
        n, k, units, k, units, units);
    ExpectFolds(BackwardFoldScaleAxis(), fmt::format(R"(
def @main({}) {{
  %0 = nn.dense(%x, %weight, units=None);
  %1 = add(%0, %in_bias);
  %2 = nn.relu(%1);
  multiply(%2, %s)
}})",
                                                     sig),
                fmt::format(R"(
def @main({}) {{
  %0 = expand_dims(%s, axis=1);
  %1 = multiply(%weight, %0);
  %2 = nn.dense(%x, %1, units=None);
  %3 = multiply(%in_bias, %s);
  %4 = add(%2, %3);
  nn.relu(%4)
}})",
                            sig),
                {{"s", Scale({units})}});
  }
}

TEST(FoldScaleAxisTvm, FoldBwdBiasAdd) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %out_bias: Tensor[(4), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %out_bias);
  %2 = nn.relu(%1);
  multiply(%2, %s)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10), float32], %weight: Tensor[(4, 4, 3, 3), float32], %out_bias: Tensor[(4), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=3);
  %2 = multiply(%weight, %1);
  %3 = nn.conv2d(%x, %2, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %4 = multiply(%out_bias, %0);
  %5 = nn.bias_add(%3, %4);
  nn.relu(%5)
})",
              {{"s", Scale({4, 1, 1})}});
}

TEST(FoldScaleAxisTvm, FoldFwdConv3d) {
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3, 3), float32], %in_bias: Tensor[(4, 1, 1, 1), float32], %s: Tensor[(4, 1, 1, 1), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  nn.conv3d(%2, %weight, padding=[1, 1, 1, 1, 1, 1], channels=2, kernel_size=[3, 3, 3])
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10, 10), float32], %weight: Tensor[(2, 4, 3, 3, 3), float32], %in_bias: Tensor[(4, 1, 1, 1), float32], %s: Tensor[(4, 1, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2, 3]);
  %1 = nn.relu(%x);
  %2 = expand_dims(%0, axis=1, num_newaxis=3);
  %3 = divide(%in_bias, %2);
  %4 = add(%1, %3);
  %5 = expand_dims(%0, axis=1, num_newaxis=3);
  %6 = multiply(%weight, %5);
  nn.conv3d(%4, %6, padding=[1, 1, 1, 1, 1, 1], channels=2, kernel_size=[3, 3, 3])
})",
              {{"s", Scale({4, 1, 1, 1})}});
  ExpectFolds(ForwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 2, 10, 10, 10, 2), float32], %weight: Tensor[(2, 2, 3, 3, 3, 2, 4), float32], %in_bias: Tensor[(1, 2, 1, 1, 1, 2), float32], %s: Tensor[(1, 2, 1, 1, 1, 2), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.relu(%0);
  %2 = add(%1, %in_bias);
  nn.conv3d(%2, %weight, padding=[1, 1, 1, 1, 1, 1], channels=8, kernel_size=[3, 3, 3], data_layout="NCDHW2c", kernel_layout="OIDHW2i4o")
})",
              R"(
def @main(%x: Tensor[(2, 2, 10, 10, 10, 2), float32], %weight: Tensor[(2, 2, 3, 3, 3, 2, 4), float32], %in_bias: Tensor[(1, 2, 1, 1, 1, 2), float32], %s: Tensor[(1, 2, 1, 1, 1, 2), float32]) {
  %0 = squeeze(%s, axis=[0, 2, 3, 4]);
  %1 = nn.relu(%x);
  %2 = reshape(%0, newshape=[1, 2, 1, 1, 1, 2]);
  %3 = divide(%in_bias, %2);
  %4 = add(%1, %3);
  %5 = reshape(%0, newshape=[1, 2, 1, 1, 1, 2, 1]);
  %6 = multiply(%weight, %5);
  nn.conv3d(%4, %6, padding=[1, 1, 1, 1, 1, 1], channels=8, kernel_size=[3, 3, 3], data_layout="NCDHW2c", kernel_layout="OIDHW2i4o")
})",
              {{"s", Scale({1, 2, 1, 1, 1, 2})}});
}

TEST(FoldScaleAxisTvm, FoldBwdConv3d) {
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 4, 10, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3, 3), float32], %out_bias: Tensor[(8), float32], %s: Tensor[(8, 1, 1, 1), float32]) {
  %0 = expand_dims(%out_bias, axis=1, num_newaxis=3);
  %1 = nn.conv3d(%x, %weight, padding=[1, 1, 1, 1, 1, 1], channels=8, kernel_size=[3, 3, 3]);
  %2 = add(%1, %0);
  %3 = nn.relu(%2);
  multiply(%3, %s)
})",
              R"(
def @main(%x: Tensor[(2, 4, 10, 10, 10), float32], %weight: Tensor[(8, 4, 3, 3, 3), float32], %out_bias: Tensor[(8), float32], %s: Tensor[(8, 1, 1, 1), float32]) {
  %0 = squeeze(%s, axis=[1, 2, 3]);
  %1 = expand_dims(%0, axis=1, num_newaxis=4);
  %2 = multiply(%weight, %1);
  %3 = expand_dims(%out_bias, axis=1, num_newaxis=3);
  %4 = expand_dims(%0, axis=1, num_newaxis=3);
  %5 = nn.conv3d(%x, %2, padding=[1, 1, 1, 1, 1, 1], channels=8, kernel_size=[3, 3, 3]);
  %6 = multiply(%3, %4);
  %7 = add(%5, %6);
  nn.relu(%7)
})",
              {{"s", Scale({8, 1, 1, 1})}});
  ExpectFolds(BackwardFoldScaleAxis(), R"(
def @main(%x: Tensor[(2, 2, 10, 10, 10, 16), float32], %weight: Tensor[(4, 32, 3, 3, 3, 1, 16), float32], %out_bias: Tensor[(64), float32], %s: Tensor[(64), float32]) {
  %0 = reshape(%out_bias, newshape=[1, 4, 1, 1, 1, 16]);
  %1 = nn.conv3d(%x, %weight, padding=[1, 1, 1, 1, 1, 1], channels=64, kernel_size=[3, 3, 3], data_layout="NCDHW16c", kernel_layout="OIDHW1i16o");
  %2 = add(%1, %0);
  %3 = nn.relu(%2);
  %4 = reshape(%s, newshape=[1, 4, 1, 1, 1, 16]);
  multiply(%3, %4)
})",
              R"(
def @main(%x: Tensor[(2, 2, 10, 10, 10, 16), float32], %weight: Tensor[(4, 32, 3, 3, 3, 1, 16), float32], %out_bias: Tensor[(64), float32], %s: Tensor[(64), float32]) {
  %0 = reshape(%s, newshape=[1, 4, 1, 1, 1, 16]);
  %1 = squeeze(%0, axis=[0, 2, 3, 4]);
  %2 = reshape(%1, newshape=[4, 1, 1, 1, 1, 1, 16]);
  %3 = multiply(%weight, %2);
  %4 = reshape(%out_bias, newshape=[1, 4, 1, 1, 1, 16]);
  %5 = reshape(%1, newshape=[1, 4, 1, 1, 1, 16]);
  %6 = nn.conv3d(%x, %3, padding=[1, 1, 1, 1, 1, 1], channels=64, kernel_size=[3, 3, 3], data_layout="NCDHW16c", kernel_layout="OIDHW1i16o");
  %7 = multiply(%4, %5);
  %8 = add(%6, %7);
  nn.relu(%8)
})",
              {{"s", Scale({64})}});
}

}  // namespace
}  // namespace carve::testing
