// Unary and other elementwise kernels: math functions, rounding (half away
// from zero), clip, cast between every dtype pair, where, constant
// producers, activations, bias_add, dropout.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

TEST(UnaryKernel, TranscendentalsMatchLibm) {
  const std::vector<float> x = {-2.5f, -0.3f, 0.0f, 0.7f, 3.2f};
  struct Case {
    const char* op;
    double (*f)(double);
  };
  const Case cases[] = {
      {"exp", [](double v) { return std::exp(v); }},
      {"tanh", [](double v) { return std::tanh(v); }},
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"erf", [](double v) { return std::erf(v); }},
      {"sin", [](double v) { return std::sin(v); }},
      {"cos", [](double v) { return std::cos(v); }},
      {"atan", [](double v) { return std::atan(v); }},
      {"fast_exp", [](double v) { return std::exp(v); }},
      {"fast_tanh", [](double v) { return std::tanh(v); }},
      {"fast_erf", [](double v) { return std::erf(v); }},
  };
  for (const Case& c : cases) {
    auto out = RunOp1(c.op, {Tensor<float>({5}, x)});
    CARVE_ASSERT_OK(out);
    for (size_t i = 0; i < x.size(); ++i) {
      double want = c.f(x[i]);
      EXPECT_NEAR(out->data<float>()[i], want, 1e-6 * std::max(1.0, std::fabs(want)))
          << c.op << "(" << x[i] << ")";
    }
  }
}

TEST(UnaryKernel, LogSqrtRsqrtOnPositives) {
  auto x = Tensor<double>({3}, {0.25, 1.0, 16.0});
  auto log = RunOp1("log", {x});
  auto sqrt = RunOp1("sqrt", {x});
  auto rsqrt = RunOp1("rsqrt", {x});
  CARVE_ASSERT_OK(log);
  CARVE_ASSERT_OK(sqrt);
  CARVE_ASSERT_OK(rsqrt);
  EXPECT_THAT(Values<double>(*log),
              Pointwise(DoubleNear(1e-12), std::vector<double>{std::log(0.25), 0, std::log(16)}));
  EXPECT_THAT(Values<double>(*sqrt), ElementsAre(0.5, 1.0, 4.0));
  EXPECT_THAT(Values<double>(*rsqrt),
              Pointwise(DoubleNear(1e-12), std::vector<double>{2, 1, 0.25}));
}

TEST(UnaryKernel, RoundHalfAwayFromZeroFloorCeil) {
  auto x = Tensor<float>({8}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -1.2f, 1.7f});
  auto round = RunOp1("round", {x});
  auto floor = RunOp1("floor", {x});
  auto ceil = RunOp1("ceil", {x});
  CARVE_ASSERT_OK(round);
  CARVE_ASSERT_OK(floor);
  CARVE_ASSERT_OK(ceil);
  EXPECT_THAT(Values<float>(*round), ElementsAre(-3, -2, -1, 1, 2, 3, -1, 2));
  EXPECT_THAT(Values<float>(*floor), ElementsAre(-3, -2, -1, 0, 1, 2, -2, 1));
  EXPECT_THAT(Values<float>(*ceil), ElementsAre(-2, -1, -0.0f, 1, 2, 3, -1, 2));
}

TEST(UnaryKernel, IntegerNegativeAbsWrapAndRoundIsIdentity) {
  const int8_t kMin = std::numeric_limits<int8_t>::min();
  auto x = Tensor<int8_t>({3}, {kMin, -5, 7});
  auto neg = RunOp1("negative", {x});
  auto abs = RunOp1("abs", {x});
  auto round = RunOp1("round", {x});
  CARVE_ASSERT_OK(neg);
  CARVE_ASSERT_OK(abs);
  CARVE_ASSERT_OK(round);
  EXPECT_THAT(Values<int8_t>(*neg), ElementsAre(kMin, 5, -7));
  EXPECT_THAT(Values<int8_t>(*abs), ElementsAre(kMin, 5, 7));
  EXPECT_THAT(Values<int8_t>(*round), ElementsAre(kMin, -5, 7));
  EXPECT_FALSE(RunOp1("exp", {x}).ok());  // transcendental of an integer
}

TEST(UnaryKernel, Float16UnaryRoundsOnce) {
  auto out = RunOp1("sqrt", {Tensor<Half>({2}, {Half(2.0f), Half(9.0f)})});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->dtype(), DataType::Float(16));
  EXPECT_EQ(static_cast<float>(out->data<Half>()[0]), static_cast<float>(Half(std::sqrt(2.0f))));
  EXPECT_EQ(static_cast<float>(out->data<Half>()[1]), 3.0f);
}

TEST(ElementwiseKernel, LogicalNotCopyLikes) {
  auto b = Tensor<bool>({3}, {true, false, true});
  auto lnot = RunOp1("logical_not", {b});
  CARVE_ASSERT_OK(lnot);
  EXPECT_THAT(Values<bool>(*lnot), ElementsAre(false, true, false));
  auto x = Tensor<int16_t>({2, 2}, {1, -2, 3, -4});
  auto copy = RunOp1("copy", {x});
  auto zeros = RunOp1("zeros_like", {x});
  auto ones = RunOp1("ones_like", {x});
  CARVE_ASSERT_OK(copy);
  CARVE_ASSERT_OK(zeros);
  CARVE_ASSERT_OK(ones);
  EXPECT_THAT(Values<int16_t>(*copy), ElementsAre(1, -2, 3, -4));
  EXPECT_NE(copy->raw_data(), x.raw_data());
  EXPECT_THAT(Values<int16_t>(*zeros), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(Values<int16_t>(*ones), ElementsAre(1, 1, 1, 1));
}

TEST(ElementwiseKernel, ClipCastsBoundsToTheDtype) {
  auto f = RunOp1("clip", {Tensor<float>({4}, {-3, 0.5f, 6.5f, 10})},
                  {{"a_min", Float(0)}, {"a_max", Float(6)}});
  CARVE_ASSERT_OK(f);
  EXPECT_THAT(Values<float>(*f), ElementsAre(0, 0.5f, 6, 6));
  // Integer clip truncates the bounds: [-1.7, 2.9] -> [-1, 2].
  auto i = RunOp1("clip", {Tensor<int32_t>({4}, {-5, -1, 2, 3})},
                  {{"a_min", Float(-1.7)}, {"a_max", Float(2.9)}});
  CARVE_ASSERT_OK(i);
  EXPECT_THAT(Values<int32_t>(*i), ElementsAre(-1, -1, 2, 2));
}

TEST(ElementwiseKernel, CastFloatToIntTruncatesTowardZero) {
  auto out = RunOp1("cast", {Tensor<float>({5}, {-2.7f, -0.5f, 0.5f, 2.7f, 1e10f})},
                    {{"dtype", Str("int32")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(-2, 0, 0, 2, std::numeric_limits<int32_t>::max()));
}

TEST(ElementwiseKernel, CastBetweenEveryDtypePair) {
  const char* kDtypes[] = {"float16", "float32", "float64", "int8",   "int16",  "int32",
                           "int64",   "uint8",   "uint16",  "uint32", "uint64", "bool"};
  // 0, 1, 3 and 100 are exact in every dtype except bool (where non-zero
  // becomes 1).
  const std::vector<double> values = {0, 1, 3, 100};
  for (const char* from : kDtypes) {
    DataType src = *DataType::Parse(from);
    NDArray in = NDArray::Empty(src, {4});
    for (int i = 0; i < 4; ++i) in.SetFromDouble(i, values[i]);
    for (const char* to : kDtypes) {
      auto out = RunOp1("cast", {in}, {{"dtype", Str(to)}});
      CARVE_ASSERT_OK(out);
      ASSERT_EQ(out->dtype(), *DataType::Parse(to)) << from << " -> " << to;
      for (int i = 0; i < 4; ++i) {
        double want = src.is_bool() || out->dtype().is_bool() ? (values[i] != 0) : values[i];
        EXPECT_EQ(out->GetAsDouble(i), want) << from << " -> " << to << " [" << i << "]";
      }
    }
  }
}

TEST(ElementwiseKernel, CastNegativeAndNanEdgeCases) {
  auto u8 = RunOp1("cast", {Tensor<int32_t>({2}, {-1, 256})}, {{"dtype", Str("uint8")}});
  auto i32 = RunOp1("cast", {Tensor<float>({2}, {NAN, -1e20f})}, {{"dtype", Str("int32")}});
  auto h = RunOp1("cast", {Tensor<float>({1}, {65520.0f})}, {{"dtype", Str("float16")}});
  CARVE_ASSERT_OK(u8);
  CARVE_ASSERT_OK(i32);
  CARVE_ASSERT_OK(h);
  EXPECT_THAT(Values<uint8_t>(*u8), ElementsAre(255, 0));  // integer casts wrap
  EXPECT_THAT(Values<int32_t>(*i32), ElementsAre(0, std::numeric_limits<int32_t>::min()));
  EXPECT_TRUE(std::isinf(h->GetAsDouble(0)));
}

TEST(ElementwiseKernel, WhereBroadcastsAllThree) {
  auto cond = Tensor<bool>({2, 1}, {true, false});
  auto x = Tensor<float>({3}, {1, 2, 3});
  auto y = Tensor<float>({}, {-1});
  auto out = RunOp1("where", {cond, x, y});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, 3, -1, -1, -1));
  // A non-bool condition counts non-zero as true.
  auto out2 = RunOp1("where", {Tensor<int32_t>({3}, {0, 5, -1}), x, Tensor<float>({3}, {7, 8, 9})});
  CARVE_ASSERT_OK(out2);
  EXPECT_THAT(Values<float>(*out2), ElementsAre(7, 2, 3));
}

TEST(ElementwiseKernel, ZerosOnesFull) {
  auto zeros = RunOp1("zeros", {}, {{"shape", Ints({2, 2})}, {"dtype", Str("int64")}});
  auto ones = RunOp1("ones", {}, {{"shape", Ints({3})}, {"dtype", Str("float16")}});
  auto full =
      RunOp1("full", {Tensor<float>({}, {2.75f})}, {{"shape", Ints({2})}, {"dtype", Str("int32")}});
  CARVE_ASSERT_OK(zeros);
  CARVE_ASSERT_OK(ones);
  CARVE_ASSERT_OK(full);
  EXPECT_THAT(Values<int64_t>(*zeros), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(AsDoubles(*ones), ElementsAre(1, 1, 1));
  EXPECT_THAT(Values<int32_t>(*full), ElementsAre(2, 2));
}

TEST(ActivationKernel, ReluLeakyPrelu) {
  auto x = Tensor<float>({1, 2, 2}, {-2, 3, -4, 5});
  auto relu = RunOp1("nn.relu", {x});
  auto leaky = RunOp1("nn.leaky_relu", {x}, {{"alpha", Float(0.1)}});
  auto prelu = RunOp1("nn.prelu", {x, Tensor<float>({2}, {0.5f, 0.25f})});
  CARVE_ASSERT_OK(relu);
  CARVE_ASSERT_OK(leaky);
  CARVE_ASSERT_OK(prelu);
  EXPECT_THAT(Values<float>(*relu), ElementsAre(0, 3, 0, 5));
  EXPECT_THAT(Values<float>(*leaky), ElementsAre(-0.2f, 3, -0.4f, 5));
  // axis 1: channel 0 = {-2, 3} with slope 0.5, channel 1 = {-4, 5} with 0.25.
  EXPECT_THAT(Values<float>(*prelu), ElementsAre(-1, 3, -1, 5));
  auto irelu = RunOp1("nn.relu", {Tensor<int32_t>({2}, {-7, 7})});
  CARVE_ASSERT_OK(irelu);
  EXPECT_THAT(Values<int32_t>(*irelu), ElementsAre(0, 7));
}

TEST(ActivationKernel, BiasAddOnAxisAndNegativeAxis) {
  std::vector<float> x(12, 1.0f);
  auto nchw =
      RunOp1("nn.bias_add", {Tensor<float>({1, 3, 2, 2}, x), Tensor<float>({3}, {1, 2, 3})});
  CARVE_ASSERT_OK(nchw);
  EXPECT_THAT(Values<float>(*nchw), ElementsAre(2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4));
  auto nhwc = RunOp1("nn.bias_add", {Tensor<float>({1, 2, 2, 3}, x), Tensor<float>({3}, {1, 2, 3})},
                     {{"axis", Int(-1)}});
  CARVE_ASSERT_OK(nhwc);
  EXPECT_THAT(Values<float>(*nhwc), ElementsAre(2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 3, 4));
  auto bad = RunOp1("nn.bias_add", {Tensor<float>({1, 3}, {1, 2, 3}), Tensor<float>({2}, {1, 2})},
                    {}, TensorTy(DataType::Float(32), {1, 3}));
  EXPECT_FALSE(bad.ok());
}

TEST(ActivationKernel, DropoutIsIdentityWithMask) {
  auto x = Tensor<float>({3}, {1, -2, 3});
  auto outs = RunOp("nn.dropout", {x}, {{"rate", Float(0.5)}});
  CARVE_ASSERT_OK(outs);
  ASSERT_EQ(outs->size(), 2u);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(1, -2, 3));
  EXPECT_THAT(Values<float>((*outs)[1]), ElementsAre(1, 1, 1));
}

TEST(ElementwiseKernel, AnnotationsPassThrough) {
  auto x = Tensor<float>({2}, {1, 2});
  auto out = RunOp1("annotation.compiler_begin", {x}, {{"compiler", Str("dnnl")}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2));
}

}  // namespace
}  // namespace carve::testing

namespace carve::testing {
namespace {

TEST(UnaryKernel, HyperbolicInverseTrigAndClassification) {
  auto x = Tensor<double>({3}, {-0.5, 0.0, 0.75});
  auto sinh = RunOp1("sinh", {x});
  auto atanh = RunOp1("atanh", {x});
  CARVE_ASSERT_OK(sinh);
  CARVE_ASSERT_OK(atanh);
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(sinh->data<double>()[i], std::sinh(x.data<double>()[i]));
    EXPECT_DOUBLE_EQ(atanh->data<double>()[i], std::atanh(x.data<double>()[i]));
  }
  auto f = Tensor<float>({4}, {1.0f, NAN, INFINITY, -INFINITY});
  auto isnan = RunOp1("isnan", {f});
  auto isinf = RunOp1("isinf", {f});
  auto isfinite = RunOp1("isfinite", {Tensor<int32_t>({1}, {3})});
  CARVE_ASSERT_OK(isnan);
  CARVE_ASSERT_OK(isinf);
  CARVE_ASSERT_OK(isfinite);
  EXPECT_THAT(Values<bool>(*isnan), ::testing::ElementsAre(false, true, false, false));
  EXPECT_THAT(Values<bool>(*isinf), ::testing::ElementsAre(false, false, true, true));
  EXPECT_THAT(Values<bool>(*isfinite), ::testing::ElementsAre(true));
}

TEST(UnaryKernel, BitwiseNot) {
  auto i = RunOp1("bitwise_not", {Tensor<int8_t>({2}, {0, -3})});
  auto b = RunOp1("bitwise_not", {Tensor<bool>({2}, {true, false})});
  CARVE_ASSERT_OK(i);
  CARVE_ASSERT_OK(b);
  EXPECT_THAT(Values<int8_t>(*i), ::testing::ElementsAre(-1, 2));
  EXPECT_THAT(Values<bool>(*b), ::testing::ElementsAre(false, true));
  EXPECT_FALSE(RunOp1("bitwise_not", {Tensor<float>({1}, {1})}).ok());
}

}  // namespace
}  // namespace carve::testing
