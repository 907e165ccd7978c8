// Kernels of the QNN ops added for TVM's full op list, against values
// worked out by hand from TVM's canonical forms (each comment shows the
// arithmetic).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

NDArray F(float v) { return Tensor<float>({}, {v}); }
NDArray I(int32_t v) { return Tensor<int32_t>({}, {v}); }

TEST(TvmQnnOps, UnaryDequantizesComputesAndQuantizes) {
  // tanh(q * 0.1) / 0.0078125, rounded: 10 -> 97.48 -> 97, -5 -> -59.15 ->
  // -59, 127 -> 128 clamps to 127.
  NDArray a = Tensor<int8_t>({4}, {10, -5, 0, 127});
  auto out = RunOp1("qnn.tanh", {a, F(0.1f), I(0), F(0.0078125f), I(0)});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int8_t>(*out), ElementsAre(97, -59, 0, 127));
  // hardswish(x) = x * relu6(x + 3) / 6 at x = 1 (q 10) is 0.6667 -> q 7;
  // x = -1 (q -10) is -0.3333 -> q -3.
  out = RunOp1("qnn.hardswish", {Tensor<int8_t>({2}, {10, -10}), F(0.1f), I(0), F(0.1f), I(0)});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int8_t>(*out), ElementsAre(7, -3));
}

TEST(TvmQnnOps, MulAndSubtract) {
  NDArray lhs = Tensor<int8_t>({1}, {10});
  NDArray rhs = Tensor<int8_t>({1}, {4});
  // (10 - 1) * (4 + 1) = 45 at scale 0.5 * 0.25 = 0.125, the output's: 45 + 3.
  auto out = RunOp1("qnn.mul", {lhs, rhs, F(0.5f), I(1), F(0.25f), I(-1), F(0.125f), I(3)});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int8_t>(*out), ElementsAre(48));
  // 4.5 - 1.25 = 3.25 = (29 - 3) * 0.125.
  out = RunOp1("qnn.subtract", {lhs, rhs, F(0.5f), I(1), F(0.25f), I(-1), F(0.125f), I(3)});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int8_t>(*out), ElementsAre(29));
}

TEST(TvmQnnOps, ConcatenateRequantizesEveryInput) {
  // b = 3 at (0.25, 1) is 0.5, which is 1 at the output's (0.5, 0).
  NDArray a = Tensor<int8_t>({1}, {2});
  NDArray b = Tensor<int8_t>({1}, {3});
  std::vector<NDArray> in{a, b, F(0.5f), F(0.25f), I(0), I(1), F(0.5f), I(0)};
  std::vector<const Type*> types;
  for (const NDArray& t : in)
    types.push_back(TensorTy(t.dtype(), std::vector<Dim>(t.rank(), Dim{1, false})));
  const Type* tuple_types[] = {TupleTy(std::vector<const Type*>{types[0], types[1]}),
                               TupleTy(std::vector<const Type*>{types[2], types[3]}),
                               TupleTy(std::vector<const Type*>{types[4], types[5]}), types[6],
                               types[7]};
  const OpInfo* op = FindOp("qnn.concatenate");
  ASSERT_NE(op, nullptr);
  auto out_type = op->type_rel(TypeRelCall{op, tuple_types, MakeAttrs(op, {})});
  CARVE_ASSERT_OK(out_type);
  auto out = RunOp1("qnn.concatenate", in, {}, *out_type);
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int8_t>(*out), ElementsAre(2, 1));
}

TEST(TvmQnnOps, BatchMatmulAndSimulatedQuantize) {
  // (1 - 1) * (3 - 2) + (2 - 1) * (4 - 2) = 2
  auto out = RunOp1("qnn.batch_matmul",
                    {Tensor<int8_t>({1, 1, 2}, {1, 2}), Tensor<int8_t>({1, 1, 2}, {3, 4}), I(1),
                     I(2), F(0.5f), F(0.5f)},
                    {{"out_dtype", Str("int32")}, {"transpose_b", Bool(true)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(2));
  // round(1.3 / 0.5) = 3; -200 / 0.5 clamps to int8's -128; code 0 passes through.
  NDArray f = Tensor<float>({2}, {1.3f, -200});
  out = RunOp1("qnn.simulated_quantize", {f, I(1), F(0.5f), I(0)});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(3, -128));
  out = RunOp1("qnn.simulated_quantize", {f, I(0), F(0.5f), I(0)});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1.3f, -200));
  out = RunOp1("qnn.simulated_dequantize", {Tensor<float>({2}, {3, -4}), I(2), F(0.5f), I(1)});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, -2.5f));
}

}  // namespace
}  // namespace carve::testing
