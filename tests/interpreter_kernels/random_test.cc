// Kernels of the random.* ops against values derived from Random123's
// published threefry4x64_20 known-answer vectors (kat_vectors: counter,
// key, result) and against TVM v0.16's own expectations
// (tests/python/topi/test_topi_prng.py).
//
// TVM's Threefry (topi/random/kernel.py) injects the key before each group
// of four rounds but not after the last, so TVM's block is Random123's
// result minus that final injection: key word j (plus 5 on word 3).
#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using Words = std::vector<uint64_t>;

constexpr uint64_t kTop = uint64_t(1) << 63;

NDArray Gen(const Words& words) { return Tensor<uint64_t>({10}, words); }

// A generator with `key` and the 4-word block `counter` (path + counter)
// and a fresh path position.
NDArray GenOf(const Words& key, const Words& counter, uint64_t pos8 = kTop) {
  Words w = key;
  w.insert(w.end(), counter.begin(), counter.end());
  w.push_back(pos8);
  w.push_back(0);
  return Gen(w);
}

// Random123's result with the final key injection taken back out.
Words TvmBlock(const Words& r123, const Words& key) {
  Words out(4);
  for (int j = 0; j < 4; ++j) out[j] = r123[j] - key[j] - (j == 3 ? 5 : 0);
  return out;
}

const Words kZero = {0, 0, 0, 0};
const Words kKatZero = {0x09218ebde6c85537, 0x55941f5266d86105, 0x4bd25e16282434dc,
                        0xee29ec846bd2e40b};
const Words kPiCounter = {0x243f6a8885a308d3, 0x13198a2e03707344, 0xa4093822299f31d0,
                          0x082efa98ec4e6c89};
const Words kPiKey = {0x452821e638d01377, 0xbe5466cf34e90c6c, 0xbe5466cf34e90c6c,
                      0xc0ac29b7c97c50dd};
const Words kKatPi = {0xa7e8fde591651bd9, 0xbaafd0c30138319b, 0x84a5c1a729e685b9,
                      0x901d406ccebc1ba4};

absl::StatusOr<std::vector<NDArray>> Generate(const NDArray& gen,
                                              std::initializer_list<int64_t> shape) {
  return RunOp("random.threefry_generate", {gen}, {{"out_shape", Ints(shape)}});
}

TEST(RandomKernels, GenerateMatchesKnownAnswers) {
  auto zero = Generate(GenOf(kZero, kZero), {4});
  CARVE_ASSERT_OK(zero);
  EXPECT_THAT(Values<uint64_t>((*zero)[1]), ElementsAreArray(TvmBlock(kKatZero, kZero)));
  // The next generator: same key and path, counter advanced by 4.
  EXPECT_THAT(Values<uint64_t>((*zero)[0]), ElementsAre(0, 0, 0, 0, 0, 0, 0, 4, kTop, 0));

  auto pi = Generate(GenOf(kPiKey, kPiCounter), {2, 2});
  CARVE_ASSERT_OK(pi);
  EXPECT_THAT(Values<uint64_t>((*pi)[1]), ElementsAreArray(TvmBlock(kKatPi, kPiKey)));
}

TEST(RandomKernels, SplitWithoutPathRoomHashesTheState) {
  // Key and counter all ones (Random123's second vector); word 8 is 0, so
  // the split hashes key + path + counter into a new key.
  const Words ones(4, ~uint64_t(0));
  const Words r123 = {0x29c24097942bba1b, 0x0371bbfb0f6f4e11, 0x3c231ffa33f83a1c,
                      0xcd29113fde32d168};
  auto split = RunOp("random.threefry_split", {GenOf(ones, ones, 0)});
  CARVE_ASSERT_OK(split);
  const Words k = TvmBlock(r123, ones);
  EXPECT_THAT(Values<uint64_t>((*split)[0]),
              ElementsAre(k[0], k[1], k[2], k[3], 0, 0, 0, 0, uint64_t(1) << 62, 0));
  EXPECT_THAT(Values<uint64_t>((*split)[1]),
              ElementsAre(k[0], k[1], k[2], k[3], kTop, 0, 0, 0, uint64_t(1) << 62, 0));
}

TEST(RandomKernels, SplitTvmExpectations) {
  // test_threefry_split: threefry_key(0) splits into these two.
  auto split = RunOp("random.threefry_split", {GenOf(kZero, kZero)});
  CARVE_ASSERT_OK(split);
  EXPECT_THAT(Values<uint64_t>((*split)[0]), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 1ULL << 62, 0));
  EXPECT_THAT(Values<uint64_t>((*split)[1]),
              ElementsAre(0, 0, 0, 0, kTop, 0, 0, 0, 1ULL << 62, 0));
  // 129 more splits to the right run out of path: the key changes, and both
  // sides share it.
  NDArray left, right = (*split)[1];
  for (int i = 0; i < 129; ++i) {
    auto next = RunOp("random.threefry_split", {right});
    CARVE_ASSERT_OK(next);
    left = (*next)[0];
    right = (*next)[1];
  }
  const Words l = Values<uint64_t>(left), r = Values<uint64_t>(right);
  EXPECT_TRUE(std::equal(l.begin(), l.begin() + 4, r.begin()));
  EXPECT_NE(Words(r.begin(), r.begin() + 4), kZero);
  auto a = Generate(left, {100});
  auto b = Generate(right, {100});
  CARVE_ASSERT_OK(a);
  CARVE_ASSERT_OK(b);
  const Words ra = Values<uint64_t>((*a)[1]), rb = Values<uint64_t>((*b)[1]);
  for (size_t i = 0; i < ra.size(); ++i) EXPECT_NE(ra[i], rb[i]) << i;
}

TEST(RandomKernels, GenerateCounterScheme) {
  // Block i adds i to all four counter words: block 1 of an 8-word draw is
  // the block of counter (1, 1, 1, 1).
  auto eight = Generate(GenOf(kPiKey, kZero), {8});
  auto ones = Generate(GenOf(kPiKey, {1, 1, 1, 1}), {4});
  CARVE_ASSERT_OK(eight);
  CARVE_ASSERT_OK(ones);
  const Words e = Values<uint64_t>((*eight)[1]);
  EXPECT_THAT(Words(e.begin() + 4, e.end()), ElementsAreArray(Values<uint64_t>((*ones)[1])));
  // A tail of 3 uses one block with the last word advanced by 4 * (7 / 4);
  // the next counter is that plus 4.
  auto seven = Generate(GenOf(kPiKey, kZero), {7});
  auto tail = Generate(GenOf(kPiKey, {0, 0, 0, 4}), {4});
  CARVE_ASSERT_OK(seven);
  CARVE_ASSERT_OK(tail);
  const Words s = Values<uint64_t>((*seven)[1]), t = Values<uint64_t>((*tail)[1]);
  EXPECT_THAT(Words(s.begin(), s.begin() + 4), ElementsAreArray(Words(e.begin(), e.begin() + 4)));
  EXPECT_THAT(Words(s.begin() + 4, s.end()), ElementsAreArray(Words(t.begin(), t.begin() + 3)));
  EXPECT_EQ(Values<uint64_t>((*seven)[0])[7], 8u);
}

TEST(RandomKernels, GenerateCounterOverflow) {
  // test_threefry_generate: a counter about to overflow moves the path on
  // and restarts the counter.
  auto a = Generate(Gen({0, 0, 0, 0, 0, 0, 0, ~uint64_t(0) - 1, kTop, 0}), {2048});
  CARVE_ASSERT_OK(a);
  EXPECT_THAT(Values<uint64_t>((*a)[0]), ElementsAre(0, 0, 0, 0, kTop, 0, 0, 2048, 1ULL << 62, 0));
  // With no path left TVM's compute reads past a buffer: an error here.
  auto b = Generate(Gen({0, 0, 0, 0, 0, 0, 0, ~uint64_t(0) - 1, 0, 0}), {2048});
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("reads past a buffer"));
}

// TVM's uniform of one word: its low 32 (float32) or high 52 (float64)
// bits as the mantissa of a value in [1, 2), minus 1.
double Standard32(uint64_t w) {
  return double(uint32_t(w) >> 9) / double(1 << 23);
}
double Standard64(uint64_t w) { return std::ldexp(double(w >> 12), -52); }

TEST(RandomKernels, UniformFromKnownAnswers) {
  const Words bits = TvmBlock(kKatZero, kZero);
  auto f32 = RunOp("random.uniform",
                   {GenOf(kZero, kZero), Tensor<float>({}, {5}), Tensor<float>({}, {10})},
                   {{"out_shape", Ints({4})}, {"out_dtype", Str("float32")}});
  CARVE_ASSERT_OK(f32);
  const std::vector<float> v32 = Values<float>((*f32)[1]);
  for (int i = 0; i < 4; ++i) {
    // u * 5 + 5 in float32: u has 23 bits, so the product and sum are exact
    // up to one rounding.
    EXPECT_FLOAT_EQ(v32[i], float(Standard32(bits[i]) * 5 + 5)) << i;
  }
  EXPECT_EQ(Values<uint64_t>((*f32)[0])[7], 4u);

  auto f64 = RunOp("random.uniform",
                   {GenOf(kZero, kZero), Tensor<double>({}, {-1}), Tensor<double>({}, {1})},
                   {{"out_shape", Ints({2, 2})}, {"out_dtype", Str("float64")}});
  CARVE_ASSERT_OK(f64);
  const std::vector<double> v64 = Values<double>((*f64)[1]);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(v64[i], Standard64(bits[i]) * 2 - 1) << i;

  auto f16 = RunOp("random.uniform",
                   {GenOf(kZero, kZero), Tensor<Half>({}, {Half(0)}), Tensor<Half>({}, {Half(1)})},
                   {{"out_shape", Ints({4})}, {"out_dtype", Str("float16")}});
  ASSERT_FALSE(f16.ok());
  EXPECT_THAT(f16.status().message(), HasSubstr("float32 and float64"));
}

TEST(RandomKernels, NormalIsBoxMullerOfTheUniformPairs) {
  // Two normals draw four words: u1 from words 0-1, u2 from words 2-3.
  const Words bits = TvmBlock(kKatZero, kZero);
  auto normal = RunOp("random.normal",
                      {GenOf(kZero, kZero), Tensor<double>({}, {3}), Tensor<double>({}, {2})},
                      {{"out_shape", Ints({2})}, {"out_dtype", Str("float64")}});
  CARVE_ASSERT_OK(normal);
  const std::vector<double> v = Values<double>((*normal)[1]);
  for (int i = 0; i < 2; ++i) {
    const double u1 = Standard64(bits[i]), u2 = Standard64(bits[2 + i]);
    const double want = std::sqrt(-2 * std::log(1 - u1)) * std::sin(2 * M_PI * u2) * 2 + 3;
    EXPECT_NEAR(v[i], want, 1e-12) << i;
  }
  EXPECT_EQ(Values<uint64_t>((*normal)[0])[7], 4u);

  // A large float32 draw has the mean and spread asked for.
  auto many = RunOp("random.normal",
                    {GenOf(kPiKey, kZero), Tensor<float>({}, {1}), Tensor<float>({}, {0.5})},
                    {{"out_shape", Ints({100, 100})}, {"out_dtype", Str("float32")}});
  CARVE_ASSERT_OK(many);
  double sum = 0, sq = 0;
  for (float x : Values<float>((*many)[1])) {
    sum += x;
    sq += double(x) * x;
  }
  const double mean = sum / 1e4, var = sq / 1e4 - mean * mean;
  EXPECT_NEAR(mean, 1.0, 0.02);
  EXPECT_NEAR(std::sqrt(var), 0.5, 0.02);
}

TEST(RandomKernels, MultinomialPicksTheFirstCumulativeAboveTheDraw) {
  // The same key draws the same uniform values, so each index is the first
  // category whose cumulative probability (0.25, 0.5, 1) exceeds the draw.
  const NDArray gen = GenOf(kPiKey, kZero);
  auto uniform = RunOp("random.uniform", {gen, Tensor<float>({}, {0}), Tensor<float>({}, {1})},
                       {{"out_shape", Ints({2, 8})}, {"out_dtype", Str("float32")}});
  auto picks = RunOp("random.multinomial", {gen, Tensor<float>({2, 3}, {1, 1, 2, -7, 0, 5})},
                     {{"num_samples", Int(8)}});
  CARVE_ASSERT_OK(uniform);
  CARVE_ASSERT_OK(picks);
  const std::vector<float> u = Values<float>((*uniform)[1]);
  const std::vector<int32_t> idx = Values<int32_t>((*picks)[1]);
  ASSERT_EQ(idx.size(), 16u);
  for (int s = 0; s < 8; ++s) {
    EXPECT_EQ(idx[s], u[s] < 0.25f ? 0 : u[s] < 0.5f ? 1 : 2) << s;
    EXPECT_EQ(idx[8 + s], 2) << "negative and zero probabilities are never drawn";
  }
  EXPECT_THAT(Values<uint64_t>((*picks)[0]), ElementsAreArray(Values<uint64_t>((*uniform)[0])));

  // A row of zeros normalises to NaN, which no draw exceeds: index 0.
  auto zeros = RunOp("random.multinomial", {gen, Tensor<float>({1, 2}, {0, 0})},
                     {{"num_samples", Int(3)}});
  CARVE_ASSERT_OK(zeros);
  EXPECT_THAT(Values<int32_t>((*zeros)[1]), ElementsAre(0, 0, 0));
}

}  // namespace
}  // namespace carve::testing
