// Pooling kernels against hand-computed windows and a naive reference:
// ceil_mode overhang, count_include_pad both ways, dilation, NHWC and
// NCHW16c, 1-d and 3-d, global and adaptive pools with non-divisible bins.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

// Window parameters per spatial axis, spelled out (no padding forms).
struct PoolCase {
  std::vector<int64_t> in, kernel, stride, dilation, pad_before, pad_after;
  bool ceil_mode = false;
  bool count_include_pad = false;
  bool max = true;
};

std::vector<int64_t> PoolOut(const PoolCase& c) {
  std::vector<int64_t> out;
  for (size_t a = 0; a < c.in.size(); ++a) {
    const int64_t dk = (c.kernel[a] - 1) * c.dilation[a] + 1;
    const int64_t span = c.in[a] + c.pad_before[a] + c.pad_after[a] - dk +
                         (c.ceil_mode ? c.stride[a] - 1 : 0);
    out.push_back(span / c.stride[a] + 1);
  }
  return out;
}

// Pools `planes` planes of extents c.in by visiting every tap of every
// window (ops.md §10): max over real taps (the lowest float when none),
// average over real taps divided by the taps inside the real input, or
// inside [-pad_before, in + pad_after) with count_include_pad.
std::vector<double> ReferencePool(const PoolCase& c, const std::vector<double>& x,
                                  int64_t planes) {
  const std::vector<int64_t> out = PoolOut(c);
  const size_t s = c.in.size();
  int64_t in_size = 1, out_size = 1, taps = 1;
  for (size_t a = 0; a < s; ++a) in_size *= c.in[a], out_size *= out[a], taps *= c.kernel[a];
  std::vector<double> y;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < out_size; ++o) {
      double best = std::numeric_limits<float>::lowest(), sum = 0;
      int64_t real = 0, padded = 0;
      for (int64_t t = 0; t < taps; ++t) {
        int64_t rem_o = o, rem_t = t, flat = 0;
        bool inside = true, inside_pad = true;
        std::vector<int64_t> pos(s);
        for (size_t a = s; a-- > 0;) {
          const int64_t oi = rem_o % out[a], ki = rem_t % c.kernel[a];
          rem_o /= out[a];
          rem_t /= c.kernel[a];
          pos[a] = oi * c.stride[a] - c.pad_before[a] + ki * c.dilation[a];
          inside &= pos[a] >= 0 && pos[a] < c.in[a];
          inside_pad &= pos[a] >= -c.pad_before[a] && pos[a] < c.in[a] + c.pad_after[a];
        }
        padded += inside_pad;
        if (!inside) continue;
        for (size_t a = 0; a < s; ++a) flat = flat * c.in[a] + pos[a];
        const double v = x[p * in_size + flat];
        best = std::max(best, v);
        sum += v;
        ++real;
      }
      const int64_t divisor = std::max<int64_t>(1, c.count_include_pad ? padded : real);
      y.push_back(c.max ? best : sum / double(divisor));
    }
  }
  return y;
}

std::vector<double> Iota(int64_t n, double start = 1) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + double(i));
  return v;
}

const Attrs* Pool2DAttrs(bool max, std::initializer_list<std::pair<std::string_view, AttrValue>> f) {
  return MakeAttrs(max ? "relay.attrs.MaxPool2DAttrs" : "relay.attrs.AvgPool2DAttrs", f);
}

// 4x4 input 1..16, 3x3 window, stride 2, padding 1, ceil_mode: the output is
// 3x3 and the last window row/column hangs past the padding.
TEST(AvgPool2D, CeilModeOverhangAndCountIncludePadByHand) {
  NDArray x = Tensor<float>({1, 1, 4, 4}, Iota(16));
  for (bool include : {false, true}) {
    auto out = RunKernel1("nn.avg_pool2d", {x},
                          Pool2DAttrs(false, {{"pool_size", Ints({3, 3})},
                                              {"strides", Ints({2, 2})},
                                              {"padding", Ints({1, 1, 1, 1})},
                                              {"ceil_mode", Bool(true)},
                                              {"count_include_pad", Bool(include)}}),
                          TypeOf(DataType::Float(32), {1, 1, 3, 3}));
    CARVE_ASSERT_OK(out);
    const std::vector<double> got = AsDoubles(*out);
    // Window (0,0): {1,2,5,6}; (0,2): {4,8}; (2,2): {16}.
    if (include) {  // divisors 3*3, 3*2 and 2*2: padding counts, the overhang does not
      EXPECT_NEAR(got[0], 14.0 / 9, 1e-6);
      EXPECT_NEAR(got[2], 12.0 / 6, 1e-6);
      EXPECT_NEAR(got[8], 16.0 / 4, 1e-6);
    } else {
      EXPECT_NEAR(got[0], 14.0 / 4, 1e-6);
      EXPECT_NEAR(got[2], 12.0 / 2, 1e-6);
      EXPECT_NEAR(got[8], 16.0, 1e-6);
    }
  }
}

TEST(MaxPool2D, CeilModeByHand) {
  NDArray x = Tensor<float>({1, 1, 4, 4}, Iota(16, -8));  // -8 .. 7
  auto out = RunKernel1("nn.max_pool2d", {x},
                        Pool2DAttrs(true, {{"pool_size", Ints({3, 3})},
                                           {"strides", Ints({2, 2})},
                                           {"padding", Ints({1, 1, 1, 1})},
                                           {"ceil_mode", Bool(true)}}),
                        TypeOf(DataType::Float(32), {1, 1, 3, 3}));
  CARVE_ASSERT_OK(out);
  // Negative inputs: padding must never win.
  EXPECT_THAT(AsDoubles(*out), ElementsAre(-3, -1, -1, 5, 7, 7, 5, 7, 7));
}

// Runs a 2-d pool case on random NCHW data (optionally relaid to NHWC) and
// compares with the reference.
void CheckPool2D(const PoolCase& c, const std::vector<int64_t>& padding_attr,
                 const std::string& layout, DataType dtype = DataType::Float(32)) {
  const int64_t n = 2, ch = 3;
  NDArray x = NDArray::Empty(dtype, {n, ch, c.in[0], c.in[1]});
  NDArray r = Random<float>(x.shape(), 3, -5, 5);
  for (int64_t i = 0; i < x.num_elements(); ++i) x.SetFromDouble(i, r.GetAsDouble(i));
  const std::vector<double> expected = ReferencePool(c, AsDoubles(x), n * ch);
  const std::vector<int64_t> out = PoolOut(c);
  std::vector<AttrValue> pad;
  for (int64_t p : padding_attr) pad.push_back(Int(p));
  NDArray probe = NDArray::Empty(DataType::Int(8), {n, ch, out[0], out[1]});
  auto got = RunKernel1(
      c.max ? "nn.max_pool2d" : "nn.avg_pool2d", {Relayout(x, "NCHW", layout)},
      Pool2DAttrs(c.max, {{"pool_size", Ints({c.kernel[0], c.kernel[1]})},
                          {"strides", Ints({c.stride[0], c.stride[1]})},
                          {"dilation", Ints({c.dilation[0], c.dilation[1]})},
                          {"padding", AttrValue::Array(pad)},
                          {"layout", Str(layout)},
                          {"ceil_mode", Bool(c.ceil_mode)},
                          {"count_include_pad", Bool(c.count_include_pad)}}),
      TypeOf(dtype, Relayout(probe, "NCHW", layout).shape()));
  CARVE_ASSERT_OK(got);
  ExpectNear(AsDoubles(Relayout(*got, layout, "NCHW")), expected, dtype.is_float() ? 1e-5 : 0,
             layout);
}

// Odd extents, strides, dilation and asymmetric padding ({1, 0, 2, 1} as
// written in a call).
PoolCase OddCase() {
  PoolCase c;
  c.in = {9, 8};
  c.kernel = {3, 2};
  c.stride = {2, 3};
  c.dilation = {2, 1};
  c.pad_before = {1, 0};
  c.pad_after = {2, 1};
  return c;
}

TEST(Pool2D, RandomCasesAgainstReference) {
  PoolCase c = OddCase();
  for (bool max : {true, false}) {
    for (bool ceil : {false, true}) {
      for (bool include : {false, true}) {
        for (const char* layout : {"NCHW", "NHWC"}) {
          c.max = max;
          c.ceil_mode = ceil;
          c.count_include_pad = include;
          SCOPED_TRACE(fmt::format("max={} ceil={} include={} {}", max, ceil, include, layout));
          CheckPool2D(c, {1, 0, 2, 1}, layout);
        }
      }
    }
  }
}

// 2x2 and 3x3 windows at stride 2 that all lie inside the image (LeNet's
// and SqueezeNet's pooling, a path of their own): with 2x2, odd extents
// leave the last row and column unread; with 3x3 they are read exactly.
TEST(Pool2D, StrideTwoWholeWindows) {
  PoolCase c;
  c.in = {9, 7};
  c.stride = {2, 2};
  c.dilation = {1, 1};
  c.pad_before = c.pad_after = {0, 0};
  for (int64_t k : {2, 3}) {
    for (bool max : {true, false}) {
      for (bool include : {false, true}) {
        for (const char* layout : {"NCHW", "NHWC"}) {
          c.kernel = {k, k};
          c.max = max;
          c.count_include_pad = include;
          SCOPED_TRACE(fmt::format("{}x{} max={} include={} {}", k, k, max, include, layout));
          CheckPool2D(c, {0}, layout);
          if (max) CheckPool2D(c, {0}, layout, DataType::Int(32));
        }
      }
    }
  }
}

// Max keeps the first of equal values, in (kh, kw) order: +0 then -0 gives
// +0, -0 then +0 gives -0.
TEST(MaxPool2D, TiesKeepTheFirstTap) {
  NDArray x = Tensor<float>({1, 1, 2, 4}, {0.0, -0.0, -0.0, 0.0, -0.0, -0.0, 0.0, 0.0});
  auto got = RunKernel1("nn.max_pool2d", {x},
                        Pool2DAttrs(true, {{"pool_size", Ints({2, 2})},
                                           {"strides", Ints({2, 2})}}),
                        TypeOf(DataType::Float(32), {1, 1, 1, 2}));
  CARVE_ASSERT_OK(got);
  EXPECT_FALSE(std::signbit(got->data<float>()[0]));
  EXPECT_TRUE(std::signbit(got->data<float>()[1]));
}

TEST(Pool2D, PaddingWrittenAsOneAndTwoValues) {
  PoolCase c;
  c.in = {6, 7};
  c.kernel = {3, 3};
  c.stride = {1, 2};
  c.dilation = {1, 1};
  c.max = false;
  c.count_include_pad = true;
  c.pad_before = c.pad_after = {1, 1};
  CheckPool2D(c, {1}, "NCHW");
  c.pad_before = c.pad_after = {2, 1};
  CheckPool2D(c, {2, 1}, "NCHW");
}

TEST(AvgPool2D, IntegerAverageTruncates) {
  NDArray x = Tensor<int8_t>({1, 1, 2, 2}, {-7, 0, 0, 0});
  auto out = RunKernel1("nn.avg_pool2d", {x}, Pool2DAttrs(false, {{"pool_size", Ints({2, 2})}}),
                        TypeOf(DataType::Int(8), {1, 1, 1, 1}));
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(AsDoubles(*out), ElementsAre(-1));  // -7 / 4 truncates toward zero
}

TEST(MaxPool1DAnd3D, AgainstReference) {
  PoolCase c1;
  c1.in = {11};
  c1.kernel = {3};
  c1.stride = {2};
  c1.dilation = {2};
  c1.pad_before = {1};
  c1.pad_after = {2};
  c1.ceil_mode = true;
  NDArray x1 = Random<float>({2, 3, 11}, 4);
  auto out1 = RunKernel1("nn.max_pool1d", {x1},
                         MakeAttrs("relay.attrs.MaxPool1DAttrs",
                                   {{"pool_size", Ints({3})},
                                    {"strides", Ints({2})},
                                    {"dilation", Ints({2})},
                                    {"padding", Ints({1, 2})},
                                    {"layout", Str("NCW")},
                                    {"ceil_mode", Bool(true)}}),
                         TypeOf(DataType::Float(32), {2, 3, PoolOut(c1)[0]}));
  CARVE_ASSERT_OK(out1);
  ExpectNear(AsDoubles(*out1), ReferencePool(c1, AsDoubles(x1), 6), 0);

  PoolCase c3;
  c3.in = {4, 5, 6};
  c3.kernel = {2, 3, 2};
  c3.stride = {2, 1, 2};
  c3.dilation = {1, 1, 2};
  c3.pad_before = {1, 1, 0};
  c3.pad_after = {0, 1, 1};
  c3.max = false;
  NDArray x3 = Random<float>({1, 2, 4, 5, 6}, 5);
  const std::vector<int64_t> o3 = PoolOut(c3);
  auto out3 = RunKernel1("nn.avg_pool3d", {Relayout(x3, "NCDHW", "NDHWC")},
                         MakeAttrs("relay.attrs.AvgPool3DAttrs",
                                   {{"pool_size", Ints({2, 3, 2})},
                                    {"strides", Ints({2, 1, 2})},
                                    {"dilation", Ints({1, 1, 2})},
                                    {"padding", Ints({1, 1, 0, 0, 1, 1})},
                                    {"layout", Str("NDHWC")}}),
                         TypeOf(DataType::Float(32), {1, o3[0], o3[1], o3[2], 2}));
  CARVE_ASSERT_OK(out3);
  ExpectNear(AsDoubles(Relayout(*out3, "NDHWC", "NCDHW")), ReferencePool(c3, AsDoubles(x3), 2),
             1e-6);
}

TEST(GlobalPool2D, MaxAndAverageInBothLayouts) {
  NDArray x = Tensor<float>({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6});
  auto avg = RunKernel1("nn.global_avg_pool2d", {x},
                        MakeAttrs("relay.attrs.GlobalPool2DAttrs", {}),
                        TypeOf(DataType::Float(32), {1, 2, 1, 1}));
  CARVE_ASSERT_OK(avg);
  EXPECT_THAT(AsDoubles(*avg), ElementsAre(3.5, -3.5));
  auto max = RunKernel1("nn.global_max_pool2d", {Relayout(x, "NCHW", "NHWC")},
                        MakeAttrs("relay.attrs.GlobalPool2DAttrs", {{"layout", Str("NHWC")}}),
                        TypeOf(DataType::Float(32), {1, 1, 1, 2}));
  CARVE_ASSERT_OK(max);
  EXPECT_THAT(AsDoubles(*max), ElementsAre(6, -1));
}

TEST(AdaptivePool2D, NonDivisibleBins) {
  // 5x7 -> 3x4: row bins [0,2) [1,4) [3,5); column bins [0,2) [1,4) [3,6) [5,7).
  NDArray x = Tensor<float>({1, 1, 5, 7}, Iota(35, 0));
  const int64_t rows[3][2] = {{0, 2}, {1, 4}, {3, 5}};
  const int64_t cols[4][2] = {{0, 2}, {1, 4}, {3, 6}, {5, 7}};
  std::vector<double> avg, max;
  for (auto& r : rows) {
    for (auto& c : cols) {
      double sum = 0, best = -1;
      for (int64_t i = r[0]; i < r[1]; ++i) {
        for (int64_t j = c[0]; j < c[1]; ++j) sum += i * 7 + j, best = std::max(best, i * 7.0 + j);
      }
      avg.push_back(sum / double((r[1] - r[0]) * (c[1] - c[0])));
      max.push_back(best);
    }
  }
  auto a = RunKernel1("nn.adaptive_avg_pool2d", {x},
                      MakeAttrs("relay.attrs.AdaptivePool2DAttrs", {{"output_size", Ints({3, 4})}}),
                      TypeOf(DataType::Float(32), {1, 1, 3, 4}));
  CARVE_ASSERT_OK(a);
  ExpectNear(AsDoubles(*a), avg, 1e-6);
  auto m = RunKernel1("nn.adaptive_max_pool2d", {Relayout(x, "NCHW", "NHWC")},
                      MakeAttrs("relay.attrs.AdaptivePool2DAttrs",
                                {{"output_size", Ints({3, 4})}, {"layout", Str("NHWC")}}),
                      TypeOf(DataType::Float(32), {1, 3, 4, 1}));
  CARVE_ASSERT_OK(m);
  EXPECT_THAT(AsDoubles(*m), ElementsAreArray(max));
}

// TVM's pool computes take split layouts (NCHW16c, what AlterOpLayout makes
// on x86) and return the input's layout whatever out_layout says (the
// relations type the output that way too).
TEST(Pool2D, SplitLayoutAndOutLayoutAsTvmComputes) {
  PoolCase c = OddCase();
  const int64_t ch = 32;
  NDArray x = Random<float>({1, ch, 9, 8}, 5);
  const std::vector<int64_t> out = PoolOut(c);
  for (bool max : {true, false}) {
    c.max = max;
    const std::vector<double> expected = ReferencePool(c, AsDoubles(x), ch);
    auto attrs = [&](std::string_view layout, std::string_view out_layout) {
      return Pool2DAttrs(max, {{"pool_size", Ints({3, 2})},
                               {"strides", Ints({2, 3})},
                               {"dilation", Ints({2, 1})},
                               {"padding", Ints({1, 0, 2, 1})},
                               {"layout", Str(layout)},
                               {"out_layout", Str(out_layout)}});
    };
    const char* op = max ? "nn.max_pool2d" : "nn.avg_pool2d";
    // NCHW16c holds (N, C // 16, H, W, 16): NCHW viewed as (N, C // 16, 16,
    // H, W) with the 16 moved last.
    NDArray x16 = Relayout(Reshaped(x, {1, ch / 16, 16, 9, 8}), "NCcHW", "NCHWc");
    auto got = RunKernel1(op, {x16}, attrs("NCHW16c", ""),
                          TypeOf(DataType::Float(32), {1, ch / 16, out[0], out[1], 16}));
    CARVE_ASSERT_OK(got);
    ExpectNear(AsDoubles(Relayout(*got, "NCHWc", "NCcHW")), expected, 1e-5, "NCHW16c");
    auto nhwc = RunKernel1(op, {Relayout(x, "NCHW", "NHWC")}, attrs("NHWC", "NCHW"),
                           TypeOf(DataType::Float(32), {1, out[0], out[1], ch}));
    CARVE_ASSERT_OK(nhwc);
    ExpectNear(AsDoubles(Relayout(*nhwc, "NHWC", "NCHW")), expected, 1e-5, "NHWC");
  }
  // A pooled axis must not be split.
  auto split_h = RunKernel1("nn.max_pool2d", {Random<float>({1, 2, 4, 4, 2}, 1)},
                            Pool2DAttrs(true, {{"pool_size", Ints({1, 1})},
                                               {"layout", Str("NCHW2h")}}),
                            TypeOf(DataType::Float(32), {1, 2, 4, 4, 2}));
  ASSERT_FALSE(split_h.ok());
  EXPECT_THAT(std::string(split_h.status().message()),
              ::testing::HasSubstr("must hold the pooled HW axes unsplit"));
}

TEST(Pool2D, WrongOutputExtentIsAnError) {
  auto out = RunKernel1("nn.max_pool2d", {Random<float>({1, 1, 4, 4}, 1)},
                        Pool2DAttrs(true, {{"pool_size", Ints({2, 2})}}),
                        TypeOf(DataType::Float(32), {1, 1, 2, 2}));  // should be 3x3
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace carve::kernel_testing
