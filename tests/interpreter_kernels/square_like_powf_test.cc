// power(x, 2) on float32 keeps powf's bits (square_like_powf.h): the fast
// square against powf over whole binades, the edges of the normal range, the
// special values and a stride over every bit pattern, and the `power`
// kernel on inputs where the correctly rounded square and powf disagree.
#include "interpreter/kernels/square_like_powf.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

using nn_kernels::OpaquePow;
using nn_kernels::SquareLikePowf;

// Counts the inputs among `bits` whose SquareLikePowf result is not powf's
// (NaN results compare as NaN), running them through the blocked path.
int64_t Mismatches(const std::vector<uint32_t>& bits) {
  std::vector<float> in(bits.size()), out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) in[i] = std::bit_cast<float>(bits[i]);
  SquareLikePowf(in.data(), out.data(), int64_t(in.size()));
  int64_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const float want = OpaquePow(in[i], 2.0f);
    const bool same = std::isnan(want) ? std::isnan(out[i])
                                       : std::bit_cast<uint32_t>(want) ==
                                             std::bit_cast<uint32_t>(out[i]);
    if (!same) {
      if (bad < 5) ADD_FAILURE() << std::hexfloat << in[i] << ": " << out[i] << " vs powf " << want;
      ++bad;
    }
  }
  return bad;
}

std::vector<uint32_t> Range(uint32_t begin, uint32_t end) {
  std::vector<uint32_t> v;
  for (uint64_t b = begin; b < end; ++b) v.push_back(uint32_t(b));
  return v;
}

// Squaring scales by a power of 4 from binade to binade, so every binade of
// x has the same mantissas near a midpoint (the same 6,061 per binade
// differ): [1, 2) holds every case of the normal range, [-4, -2) the sign.
TEST(SquareLikePowf, EveryMantissaOfTwoBinades) {
  EXPECT_EQ(Mismatches(Range(0x3F800000u, 0x40000000u)), 0);  // [1, 2)
  EXPECT_EQ(Mismatches(Range(0xC0000000u, 0xC0800000u)), 0);  // [-4, -2)
}

TEST(SquareLikePowf, EdgesOfTheNormalRangeAndSpecials) {
  // Squares crossing into subnormals (|x| near 2^-63) and overflow (|x|
  // near 2^64), both signs.
  for (uint32_t sign : {0u, 0x80000000u}) {
    EXPECT_EQ(Mismatches(Range(sign | 0x1F780000u, sign | 0x20080000u)), 0);
    EXPECT_EQ(Mismatches(Range(sign | 0x5F780000u, sign | 0x5F880000u)), 0);
    EXPECT_EQ(Mismatches(Range(sign | 0x00000000u, sign | 0x00100000u)), 0);  // 0 and subnormals
    EXPECT_EQ(Mismatches(Range(sign | 0x7F7F0000u, sign | 0x7F800010u)), 0);  // max, inf, NaNs
    EXPECT_EQ(Mismatches(Range(sign | 0x7FFFFFF0u, sign | 0x80000000u)), 0);
  }
}

TEST(SquareLikePowf, StrideOverEveryBitPattern) {
  std::vector<uint32_t> bits;
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4099) bits.push_back(uint32_t(b));
  EXPECT_EQ(Mismatches(bits), 0);
}

TEST(SquareLikePowf, PowerKernelKeepsPowfBits) {
  // 0x1.8p-74 squares to a subnormal tie (powf and the rounded square
  // differ there); the rest of [1, 2) in steps holds normal-range inputs
  // where they differ too. Odd length: the scalar tail runs as well.
  std::vector<double> values{0x1.8p-74, -0x1.8p-74, 0.0, -0.0, 3.0};
  int64_t differ = 0;
  for (uint32_t b = 0x3F800000u; b < 0x40000000u && values.size() < 20001; b += 7) {
    const float x = std::bit_cast<float>(b);
    differ += float(double(x) * x) != OpaquePow(x, 2.0f);
    values.push_back(x);
  }
  ASSERT_GT(differ, 0);  // the inputs do tell the two functions apart
  const std::vector<int64_t> shape{int64_t(values.size())};
  NDArray x = Tensor<float>(shape, values);
  auto out = RunKernel1("power", {x, Scalar<float>(2.0)}, nullptr, TypeOf(DataType::Float(32), shape));
  CARVE_ASSERT_OK(out);
  for (size_t i = 0; i < values.size(); ++i) {
    const float in = float(values[i]);
    ASSERT_EQ(std::bit_cast<uint32_t>(out->data<float>()[i]),
              std::bit_cast<uint32_t>(OpaquePow(in, 2.0f)))
        << std::hexfloat << in;
  }
}

}  // namespace
}  // namespace carve::kernel_testing
