// relay.op.annotation.simulated_quantize: TVM's calibration compute
// (x / s clipped, rounded half away from zero, times s) worked by hand.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<NDArray> Simulate(const NDArray& x, int64_t kind, AttrList extra = {}) {
  extra.push_back({"kind", Int(kind)});
  return RunOp1("relay.op.annotation.simulated_quantize",
                {x, Tensor<float>({}, {0.5f}), Tensor<float>({}, {-4.0f}),
                 Tensor<float>({}, {3.0f})},
                extra);
}

TEST(SimulatedQuantize, RoundsAndClipsOnTheScaleGrid) {
  // x / 0.5 = (-5, -2.5, 0.5, 1.5, 2.4, 10, NaN) clipped to [-4, 3]:
  // (-4, -2.5, 0.5, 1.5, 2.4, 3, 3 (TVM's Min picks clip_max for NaN)),
  // rounded half away from zero: (-4, -3, 1, 2, 2, 3, 3), times 0.5.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const NDArray x = Tensor<float>({7}, {-2.5f, -1.25f, 0.25f, 0.75f, 1.2f, 5.0f, nan});
  auto y = Simulate(x, 1);
  CARVE_ASSERT_OK(y);
  EXPECT_THAT(Values<float>(*y), ElementsAre(-2, -1.5, 0.5, 1, 1, 1.5, 1.5));
  // Kind IDENTITY (0) passes the data through, NaN included.
  auto id = Simulate(x, 0);
  CARVE_ASSERT_OK(id);
  EXPECT_TRUE(id->BitwiseEqual(x));
}

TEST(SimulatedQuantize, RejectsAttributesTvmAsserts) {
  auto bad = Simulate(Tensor<float>({1}, {1.0f}), 2, {{"rounding", Str("floor")}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("rounding"));
  auto unsigned_ = Simulate(Tensor<float>({1}, {1.0f}), 2, {{"sign", Bool(false)}});
  ASSERT_FALSE(unsigned_.ok());
  EXPECT_THAT(unsigned_.status().message(), HasSubstr("sign"));
}

}  // namespace
}  // namespace carve::testing
