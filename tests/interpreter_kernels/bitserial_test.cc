// nn.bitpack, nn.bitserial_dense and nn.bitserial_conv2d: packed words
// worked by hand, the bitserial sums against the integer products they
// stand for (x's low bits times w's low bits, or times 2w - (2^bits - 1)
// for unipolar weights), and the places where TVM's x86 casts change the
// result (each case says how).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Bitserial, BitpackWordsByHand) {
  // Values (3, 0, 2, 1, 0, 0, 0, 1) into uint8, first element in the top
  // bit: plane 0 is 1001 0001 = 145, plane 1 is 1010 0000 = 160.
  auto two = RunOp1(
      "nn.bitpack", {Tensor<int8_t>({1, 8}, {3, 0, 2, 1, 0, 0, 0, 1})},
      {{"bits", Int(2)}, {"pack_axis", Int(1)}, {"bit_axis", Int(0)}, {"pack_type", Str("uint8")}});
  CARVE_ASSERT_OK(two);
  EXPECT_EQ(two->shape(), (std::vector<int64_t>{2, 1, 1}));
  EXPECT_THAT(Values<uint8_t>(*two), ElementsAre(145, 160));
  // 64 elements into one uint64 word: the first at bit 63, the last at 0.
  std::vector<int32_t> v(64, 0);
  v[0] = v[63] = 1;
  auto wide = RunOp1("nn.bitpack", {Tensor<int32_t>({64, 1}, v)},
                     {{"bits", Int(1)},
                      {"pack_axis", Int(0)},
                      {"bit_axis", Int(2)},
                      {"pack_type", Str("uint64")}});
  CARVE_ASSERT_OK(wide);
  EXPECT_THAT(Values<uint64_t>(*wide), ElementsAre((uint64_t{1} << 63) | 1));
  auto negative = RunOp1("nn.bitpack", {Tensor<int32_t>({64, 1}, v)},
                         {{"bits", Int(1)},
                          {"pack_axis", Int(0)},
                          {"bit_axis", Int(-1)},
                          {"pack_type", Str("uint64")}});
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("non-negative"));
}

// Deterministic small integers.
template <typename T>
std::vector<T> Pattern(size_t n, int seed, int lo, int hi) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(lo + int((i * 7 + seed * 13) % (hi - lo + 1)));
  return v;
}

int64_t Weighted(int64_t w, int wbits, bool unipolar) {
  const int64_t q = w & ((1 << wbits) - 1);
  return unipolar ? 2 * q - ((1 << wbits) - 1) : q;
}

TEST(Bitserial, DenseIsTheProductOfTheLowBits) {
  const int64_t m = 2, n = 3, k = 64;
  const std::vector<int8_t> x = Pattern<int8_t>(m * k, 1, 0, 7),
                            w = Pattern<int8_t>(n * k, 2, 0, 3);
  for (bool unipolar : {false, true}) {
    auto y = RunOp1("nn.bitserial_dense", {Tensor<int8_t>({m, k}, x), Tensor<int8_t>({n, k}, w)},
                    {{"units", Int(n)},
                     {"data_bits", Int(2)},
                     {"weight_bits", Int(2)},
                     {"pack_dtype", Str("uint32")},
                     {"out_dtype", Str("int16")},
                     {"unipolar", Bool(unipolar)}});
    CARVE_ASSERT_OK(y);
    const std::vector<int16_t> got = Values<int16_t>(*y);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t want = 0;
        for (int64_t c = 0; c < k; ++c)
          want += (x[i * k + c] & 3) * Weighted(w[j * k + c], 2, unipolar);
        EXPECT_EQ(got[i * n + j], want) << unipolar << " " << i << " " << j;
      }
    }
  }
  // int64 out: the word's popcount difference is taken in uint32 and then
  // widened, so all-ones data against a zero weight word gives
  // 2^32 - 32, not -32.
  auto wide =
      RunOp1("nn.bitserial_dense",
             {Tensor<int8_t>({1, 32}, std::vector<int8_t>(32, 1)),
              Tensor<int8_t>({1, 32}, std::vector<int8_t>(32, 0))},
             {{"units", Int(1)}, {"pack_dtype", Str("uint32")}, {"out_dtype", Str("int64")}});
  CARVE_ASSERT_OK(wide);
  EXPECT_THAT(Values<int64_t>(*wide), ElementsAre((int64_t{1} << 32) - 32));
}

// The conv2d reference on NCHW data and an OIHW kernel.
std::vector<int64_t> Reference(const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                               int64_t c, int64_t h, int64_t wd, int64_t o, int64_t k, int64_t pad,
                               int abits, int wbits, bool unipolar) {
  const int64_t oh = h + 2 * pad - k + 1, ow = wd + 2 * pad - k + 1;
  std::vector<int64_t> out(o * oh * ow, 0);
  for (int64_t f = 0; f < o; ++f)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xx = 0; xx < ow; ++xx)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t ry = 0; ry < k; ++ry)
            for (int64_t rx = 0; rx < k; ++rx) {
              const int64_t iy = y + ry - pad, ix = xx + rx - pad;
              if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
              out[(f * oh + y) * ow + xx] +=
                  (x[(ch * h + iy) * wd + ix] & ((1 << abits) - 1)) *
                  Weighted(w[((f * c + ch) * k + ry) * k + rx], wbits, unipolar);
            }
  return out;
}

AttrList ConvAttrs(std::string_view layout, bool unipolar, std::string_view out_dtype) {
  const bool nchw = layout == "NCHW";
  return {{"kernel_size", Ints({3, 3})},
          {"channels", Int(2)},
          {"padding", Ints({1, 1})},
          {"activation_bits", Int(2)},
          {"weight_bits", Int(1)},
          {"data_layout", Str(layout)},
          {"kernel_layout", Str(nchw ? "OIHW" : "HWIO")},
          {"pack_dtype", Str("uint32")},
          {"out_dtype", Str(out_dtype)},
          {"unipolar", Bool(unipolar)}};
}

NDArray Relaid(const std::vector<int8_t>& v, std::vector<int64_t> shape, std::vector<int> perm) {
  // Element-wise transpose: out axis i is axis perm[i] of the input.
  NDArray in = Tensor<int8_t>(shape, v);
  std::vector<int64_t> out_shape;
  for (int p : perm) out_shape.push_back(shape[p]);
  NDArray out = NDArray::Empty(DataType::Int(8), out_shape);
  std::vector<int64_t> idx(4);
  for (int64_t f = 0; f < out.num_elements(); ++f) {
    int64_t rem = f;
    for (int a = 3; a >= 0; --a) {
      idx[a] = rem % out_shape[a];
      rem /= out_shape[a];
    }
    std::vector<int64_t> src(4);
    for (int a = 0; a < 4; ++a) src[perm[a]] = idx[a];
    out.data<int8_t>()[f] =
        in.data<int8_t>()[((src[0] * shape[1] + src[1]) * shape[2] + src[2]) * shape[3] + src[3]];
  }
  return out;
}

TEST(Bitserial, Conv2DIsTheProductOfTheLowBits) {
  const int64_t c = 32, h = 4, wd = 5, o = 2, k = 3;
  const std::vector<int8_t> x = Pattern<int8_t>(c * h * wd, 3, 0, 3),
                            w = Pattern<int8_t>(o * c * k * k, 4, 0, 1);
  for (bool unipolar : {false, true}) {
    const std::vector<int64_t> want = Reference(x, w, c, h, wd, o, k, 1, 2, 1, unipolar);
    auto nchw = RunOp1("nn.bitserial_conv2d",
                       {Tensor<int8_t>({1, c, h, wd}, x), Tensor<int8_t>({o, c, k, k}, w)},
                       ConvAttrs("NCHW", unipolar, "int32"));
    CARVE_ASSERT_OK(nchw);
    EXPECT_EQ(AsDoubles(*nchw), std::vector<double>(want.begin(), want.end())) << unipolar;
    auto nhwc =
        RunOp1("nn.bitserial_conv2d",
               {Relaid(x, {1, c, h, wd}, {0, 2, 3, 1}), Relaid(w, {o, c, k, k}, {2, 3, 1, 0})},
               ConvAttrs("NHWC", unipolar, "int16"));
    CARVE_ASSERT_OK(nhwc);
    std::vector<double> got = AsDoubles(*nhwc), want_nhwc;  // NHWC order
    for (int64_t y = 0; y < h; ++y)
      for (int64_t xx = 0; xx < wd; ++xx)
        for (int64_t f = 0; f < o; ++f) want_nhwc.push_back(double(want[(f * h + y) * wd + xx]));
    EXPECT_EQ(got, want_nhwc) << unipolar;
  }
}

TEST(Bitserial, Conv2DNchwNarrowOutDtypeQuirk) {
  // 32 channels, 1 bit, 1x1: data has only channel 16 set (bit 15 of the
  // word), the weight is all zeros. The product is 1 * (2 * 0 - 1) = -1
  // (NHWC). TVM's x86 NCHW compute casts the data word to int16 (0x8000,
  // negative), so its first popcount is 0 and its second counts the
  // sign-extended 0xFFFF8000 against ~0: 17 bits, giving -17.
  std::vector<int8_t> x(32, 0);
  x[16] = 1;
  AttrList attrs = {{"kernel_size", Ints({1, 1})},
                    {"channels", Int(1)},
                    {"pack_dtype", Str("uint32")},
                    {"out_dtype", Str("int16")}};
  auto nchw = RunOp1(
      "nn.bitserial_conv2d",
      {Tensor<int8_t>({1, 32, 1, 1}, x), Tensor<int8_t>({1, 32, 1, 1}, std::vector<int8_t>(32, 0))},
      attrs);
  CARVE_ASSERT_OK(nchw);
  EXPECT_THAT(Values<int16_t>(*nchw), ElementsAre(-17));
  attrs.push_back({"data_layout", Str("NHWC")});
  attrs.push_back({"kernel_layout", Str("HWIO")});
  auto nhwc = RunOp1(
      "nn.bitserial_conv2d",
      {Tensor<int8_t>({1, 1, 1, 32}, x), Tensor<int8_t>({1, 1, 32, 1}, std::vector<int8_t>(32, 0))},
      attrs);
  CARVE_ASSERT_OK(nhwc);
  EXPECT_THAT(Values<int16_t>(*nhwc), ElementsAre(-1));
}

}  // namespace
}  // namespace carve::testing
