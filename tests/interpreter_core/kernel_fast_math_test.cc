// The FastMath ops follow TOPI's float32 approximations (fast_math.h): the
// clamps and exponent construction show in values the exact functions do not
// produce, and the approximations stay close to the exact functions in
// their working range. Other dtypes use the exact functions.
#include <cmath>

#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

float Run1(const std::string& op, float x) {
  auto out = RunOp1(op, {Tensor<float>({1}, {x})});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->data<float>()[0] : NAN;
}

TEST(FastMath, FastExpBuildsThePowerOfTwoInTheExponentBits) {
  EXPECT_EQ(Run1("fast_exp", 0.0f), 1.0f);  // n = 0, f = 0: y = 1 exactly
  // x is clamped to -88.376 and n = -127 gives a zero exponent field: 0,
  // where the exact exp(-100) is the denormal 3.7e-44.
  EXPECT_EQ(Run1("fast_exp", -100.0f), 0.0f);
  EXPECT_GT(std::exp(-100.0f), 0.0f);
  EXPECT_EQ(Run1("fast_exp", -1000.0f), 0.0f);
  // max(approximation, x) keeps large inputs monotone.
  EXPECT_TRUE(std::isinf(Run1("fast_exp", 1000.0f)));
  EXPECT_TRUE(std::isnan(Run1("fast_exp", NAN)));
  // With FMA the compiler fuses the range reduction f = x - n ln2 (as LLVM
  // does for TVM). Without it n ln2 is rounded to float first, an error of
  // up to |x| 2^-24 in f and so in e^x relative (4e-6 at |x| = 80).
#if defined(__FMA__)
  constexpr double kPerUnitX = 0;
#else
  constexpr double kPerUnitX = 0x1p-24;
#endif
  for (float x = -80.0f; x <= 80.0f; x += 0.37f) {
    const double want = std::exp(double(x));
    EXPECT_NEAR(Run1("fast_exp", x), want, (4e-7 + kPerUnitX * std::fabs(x)) * want) << x;
  }
}

TEST(FastMath, FastTanhAndErfClampTheirArguments) {
  EXPECT_EQ(Run1("fast_tanh", 0.0f), 0.0f);
  EXPECT_EQ(Run1("fast_tanh", 50.0f), Run1("fast_tanh", 9.0f));
  EXPECT_EQ(Run1("fast_tanh", -50.0f), -Run1("fast_tanh", 9.0f));
  EXPECT_EQ(Run1("fast_erf", 0.0f), 0.0f);
  EXPECT_EQ(Run1("fast_erf", 10.0f), Run1("fast_erf", 4.0f));
  EXPECT_EQ(Run1("fast_erf", -10.0f), -Run1("fast_erf", 4.0f));
  for (float x = -6.0f; x <= 6.0f; x += 0.05f) {
    EXPECT_NEAR(Run1("fast_tanh", x), std::tanh(double(x)), 2e-6) << x;
    EXPECT_NEAR(Run1("fast_erf", x), std::erf(double(x)), 2e-6) << x;
  }
}

TEST(FastMath, OtherDtypesUseTheExactFunctions) {
  auto out = RunOp1("fast_exp", {Tensor<double>({1}, {-100.0})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->data<double>()[0], std::exp(-100.0));
  out = RunOp1("fast_tanh", {Tensor<double>({1}, {0.3})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->data<double>()[0], std::tanh(0.3));
}

TEST(FastMath, FastSoftmaxUsesFastExp) {
  auto fast = RunOp1("nn.fast_softmax", {Tensor<float>({1, 3}, {0.0f, -100.0f, 0.0f})});
  CARVE_ASSERT_OK(fast);
  EXPECT_EQ(fast->data<float>()[0], 0.5f);
  EXPECT_EQ(fast->data<float>()[1], 0.0f);  // fast_exp(-100) == 0
  EXPECT_EQ(fast->data<float>()[2], 0.5f);
  auto exact = RunOp1("nn.softmax", {Tensor<float>({1, 3}, {0.0f, -100.0f, 0.0f})});
  CARVE_ASSERT_OK(exact);
  EXPECT_GT(exact->data<float>()[1], 0.0f);
}

}  // namespace
}  // namespace carve::testing
