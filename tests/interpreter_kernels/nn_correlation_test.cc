// nn.correlation against values worked out by hand from topi's definition
// (python/tvm/topi/nn/correlation.py at v0.16.0).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NDArray Iota3x3() { return Tensor<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}); }

TEST(Correlation, MultiplyOverDisplacements) {
  // kernel 1, max_displacement 1: one output pixel at (1, 1); channel q
  // holds d[1][1] * d[1 + q / 3 - 1][1 + q % 3 - 1] = 4 * q.
  auto out = RunOp1("nn.correlation", {Iota3x3(), Iota3x3()},
                    {{"kernel_size", Int(1)}, {"max_displacement", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(out->shape(), ElementsAre(1, 9, 1, 1));
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 4, 8, 12, 16, 20, 24, 28, 32));
}

TEST(Correlation, AbsoluteDifference) {
  auto out = RunOp1("nn.correlation", {Iota3x3(), Iota3x3()},
                    {{"kernel_size", Int(1)}, {"max_displacement", Int(1)},
                     {"is_multiply", Bool(false)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(4, 3, 2, 1, 0, 1, 2, 3, 4));
}

TEST(Correlation, PatchSumIsNormalised) {
  // kernel 3, no displacement: the 3x3 patch's sum of squares / 9.
  auto out = RunOp1("nn.correlation", {Iota3x3(), Iota3x3()},
                    {{"kernel_size", Int(3)}, {"max_displacement", Int(0)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(204.0f / 9.0f));
}

TEST(Correlation, PaddingAndStride2) {
  // Padding 1 makes a 5x5 field and 3x3 outputs; stride2 = 2 with
  // max_displacement 2 keeps displacements -2, 0, 2. Channel 0 (-2, -2)
  // reads padding everywhere but at output (2, 2): d[2][2] * d[0][0] = 0;
  // the centre channel 4 is d^2.
  auto out = RunOp1("nn.correlation", {Iota3x3(), Iota3x3()},
                    {{"kernel_size", Int(1)}, {"max_displacement", Int(2)},
                     {"stride2", Int(2)}, {"padding", Ints({1, 1})}});
  CARVE_ASSERT_OK(out);
  ASSERT_THAT(out->shape(), ElementsAre(1, 9, 1, 1));
  // border 2 on a 5x5 field: one output at padded (2, 2) = d[1][1].
  // Channel q: d[1][1] * padded(2 + 2 (q / 3 - 1), 2 + 2 (q % 3 - 1)), the
  // corners of the padded field (0) except the centre.
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0, 0, 0, 16, 0, 0, 0, 0));
}

TEST(Correlation, TwoChannelsAverage) {
  // Channel 1 = 2 * channel 0: the centre value 4 * 4 + 8 * 8 over 2.
  std::vector<float> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 4, 6, 8, 10, 12, 14, 16};
  auto out = RunOp1("nn.correlation", {Tensor<float>({1, 2, 3, 3}, v), Tensor<float>({1, 2, 3, 3}, v)},
                    {{"kernel_size", Int(1)}, {"max_displacement", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_FLOAT_EQ(Values<float>(*out)[4], 40.0f);
}

TEST(Correlation, EvenKernelIsAnError) {
  auto out = RunOp1("nn.correlation", {Iota3x3(), Iota3x3()},
                    {{"kernel_size", Int(2)}, {"max_displacement", Int(0)}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("odd"));
}

}  // namespace
}  // namespace carve::testing
