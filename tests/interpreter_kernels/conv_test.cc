// nn.conv{1,2,3}d and nn.conv{1,2,3}d_transpose against direct-loop
// references (one multiply-add per tap, no im2col) on odd shapes: asymmetric
// padding, strides, dilation, groups, depthwise, batches, every layout pair.
#define EIGEN_USE_THREADS
#include <array>
#include <unsupported/Eigen/CXX11/Tensor>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

// One convolution, described in logical (NC + spatial, OI + spatial) terms.
struct ConvCase {
  int spatial = 2;
  int64_t batch = 1, in_channels = 1, out_channels = 1, groups = 1;
  std::vector<int64_t> in, kernel, stride, dilation;
  std::vector<int64_t> padding_attr;           // as written in the call
  std::vector<int64_t> pad_before, pad_after;  // what it means, expanded by hand
  std::vector<int64_t> output_padding;         // transposed only
  std::string data_layout, kernel_layout, out_layout;
  DataType data_dtype = DataType::Float(32), weight_dtype = DataType::Float(32);
  DataType out_dtype = DataType::Float(32);
  bool transposed = false;
  // Pass the depthwise weight in TVM's (C, M, k...) form (groups == C,
  // out_channels == M * C) instead of the grouped (M * C, 1, k...) one.
  bool multiplier_weight = false;
};

std::string Spatial(int s) { return std::string("DHW").substr(3 - s); }

// Output extents of the case.
std::vector<int64_t> OutExtents(const ConvCase& c) {
  std::vector<int64_t> out;
  for (int i = 0; i < c.spatial; ++i) {
    const int64_t dk = (c.kernel[i] - 1) * c.dilation[i] + 1;
    const int64_t pads = c.pad_before[i] + c.pad_after[i];
    out.push_back(c.transposed ? (c.in[i] - 1) * c.stride[i] + dk - pads + c.output_padding[i]
                               : (c.in[i] + pads - dk) / c.stride[i] + 1);
  }
  return out;
}

// A case's spatial parameters padded to three axes (D, H, W) with unit
// leading axes, so one loop nest serves 1-d, 2-d and 3-d.
struct Spatial3 {
  std::array<int64_t, 3> in{1, 1, 1}, kernel{1, 1, 1}, out{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, pad{0, 0, 0};
};

Spatial3 ToSpatial3(const ConvCase& c) {
  Spatial3 s;
  const std::vector<int64_t> out = OutExtents(c);
  for (int i = 0; i < c.spatial; ++i) {
    const int a = 3 - c.spatial + i;
    s.in[a] = c.in[i];
    s.kernel[a] = c.kernel[i];
    s.out[a] = out[i];
    s.stride[a] = c.stride[i];
    s.dilation[a] = c.dilation[i];
    s.pad[a] = c.pad_before[i];
  }
  return s;
}

// The direct definition, as a scatter: every input element of every
// channel, times every kernel tap of every output channel of its group,
// lands on the output position it contributes to (forward: where
// out * stride + tap * dilation - pad == in; transposed: out == in * stride
// + tap * dilation - pad), if that position exists. Data NC+spatial, weight
// OI+spatial (IO+spatial when transposed), output NC+spatial.
std::vector<double> Reference(const ConvCase& c, const NDArray& data, const NDArray& weight) {
  const Spatial3 s = ToSpatial3(c);
  const std::vector<double> x = AsDoubles(data), w = AsDoubles(weight);
  const int64_t cg = c.in_channels / c.groups, og = c.out_channels / c.groups;
  const int64_t in_size = s.in[0] * s.in[1] * s.in[2];
  const int64_t out_size = s.out[0] * s.out[1] * s.out[2];
  const int64_t taps = s.kernel[0] * s.kernel[1] * s.kernel[2];
  std::vector<double> out(size_t(c.batch * c.out_channels * out_size), 0.0);
  // The output coordinate fed by input coordinate i and tap k on axis a, or -1.
  auto target = [&](int a, int64_t i, int64_t k) -> int64_t {
    if (c.transposed) {
      const int64_t y = i * s.stride[a] + k * s.dilation[a] - s.pad[a];
      return y >= 0 && y < s.out[a] ? y : -1;
    }
    const int64_t num = i + s.pad[a] - k * s.dilation[a];
    if (num < 0 || num % s.stride[a] != 0 || num / s.stride[a] >= s.out[a]) return -1;
    return num / s.stride[a];
  };
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t ci = 0; ci < c.in_channels; ++ci) {
      const int64_t g = ci / cg;
      for (int64_t p = 0; p < in_size; ++p) {
        const int64_t i0 = p / (s.in[1] * s.in[2]), i1 = p / s.in[2] % s.in[1], i2 = p % s.in[2];
        const double xv = x[(n * c.in_channels + ci) * in_size + p];
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t k0 = t / (s.kernel[1] * s.kernel[2]);
          const int64_t k1 = t / s.kernel[2] % s.kernel[1], k2 = t % s.kernel[2];
          const int64_t y0 = target(0, i0, k0), y1 = target(1, i1, k1), y2 = target(2, i2, k2);
          if (y0 < 0 || y1 < 0 || y2 < 0) continue;
          const int64_t q = (y0 * s.out[1] + y1) * s.out[2] + y2;
          for (int64_t oo = 0; oo < og; ++oo) {
            const int64_t o = g * og + oo;
            const double wv = c.transposed ? w[(ci * og + oo) * taps + t]
                                           : w[(o * cg + (ci - g * cg)) * taps + t];
            out[(n * c.out_channels + o) * out_size + q] += xv * wv;
          }
        }
      }
    }
  }
  return out;
}

const Attrs* ConvAttrs(const ConvCase& c) {
  std::vector<int64_t> out_sp = OutExtents(c);
  const std::string key = c.transposed ? fmt::format("relay.attrs.Conv{}DTransposeAttrs", c.spatial)
                                       : fmt::format("relay.attrs.Conv{}DAttrs", c.spatial);
  auto list = [](const std::vector<int64_t>& v) {
    std::vector<AttrValue> items;
    for (int64_t x : v) items.push_back(AttrValue::Int(x));
    return AttrValue::Array(items);
  };
  const Attrs* attrs = MakeAttrs(
      key, {{"strides", list(c.stride)},
            {"padding", list(c.padding_attr)},
            {"dilation", list(c.dilation)},
            {"groups", Int(c.groups)},
            {"channels", Int(c.out_channels)},
            {"kernel_size", list(c.kernel)},
            {"data_layout", Str(c.data_layout)},
            {"kernel_layout", Str(c.kernel_layout)},
            {"out_layout", Str(c.out_layout)},
            {"out_dtype", Str(c.out_dtype == c.data_dtype ? "" : c.out_dtype.ToString())}});
  if (c.transposed) attrs = WithField(attrs, "output_padding", list(c.output_padding));
  return attrs;
}

// `weight` (OI.. or IO..) viewed with its first axis split into (groups,
// rest): the 5-d G-first weight dnnl's legalize_group_conv makes with a
// reshape, which keeps the row-major order.
NDArray SplitGroups(const NDArray& weight, int64_t groups) {
  std::vector<int64_t> shape = weight.shape();
  shape[0] /= groups;
  shape.insert(shape.begin(), groups);
  return Reshaped(weight, shape);
}

// The grouped depthwise weight (C * M, 1, k...) as TVM's (C, M, k...): the
// same row-major order.
NDArray AsMultiplierWeight(const NDArray& weight, int64_t channels) {
  std::vector<int64_t> shape = weight.shape();
  shape[1] = shape[0] / channels;
  shape[0] = channels;
  return Reshaped(weight, shape);
}

// Builds random inputs in logical layouts, runs the kernel on the case's
// layouts and compares with the reference.
void CheckConv(const ConvCase& c, double tol = 1e-4,
               const Eigen::ThreadPoolDevice* device = nullptr, uint32_t seed = 1) {
  const std::string sp = Spatial(c.spatial);
  const std::string data_logical = "NC" + sp;
  const std::string weight_logical = (c.transposed ? "IO" : "OI") + sp;
  std::vector<int64_t> data_shape{c.batch, c.in_channels};
  data_shape.insert(data_shape.end(), c.in.begin(), c.in.end());
  std::vector<int64_t> weight_shape =
      c.transposed ? std::vector<int64_t>{c.in_channels, c.out_channels / c.groups}
                   : std::vector<int64_t>{c.out_channels, c.in_channels / c.groups};
  weight_shape.insert(weight_shape.end(), c.kernel.begin(), c.kernel.end());
  const bool ints = c.data_dtype.is_integral();
  NDArray data = NDArray::Empty(c.data_dtype, data_shape);
  NDArray weight = NDArray::Empty(c.weight_dtype, weight_shape);
  {
    NDArray d = ints ? Random<int64_t>(data_shape, seed, c.data_dtype.is_uint() ? 0 : -128,
                                       c.data_dtype.is_uint() ? 255 : 127)
                     : Random<double>(data_shape, seed);
    NDArray w = ints ? Random<int64_t>(weight_shape, seed + 1, -128, 127)
                     : Random<double>(weight_shape, seed + 1);
    for (int64_t i = 0; i < d.num_elements(); ++i) data.SetFromDouble(i, d.GetAsDouble(i));
    for (int64_t i = 0; i < w.num_elements(); ++i) weight.SetFromDouble(i, w.GetAsDouble(i));
  }
  const std::vector<double> expected = Reference(c, data, weight);
  const std::string out_layout = c.out_layout.empty() ? c.data_layout : c.out_layout;
  std::vector<int64_t> out_logical{c.batch, c.out_channels};
  for (int64_t e : OutExtents(c)) out_logical.push_back(e);
  NDArray out_shape_probe = NDArray::Empty(DataType::Int(8), out_logical);
  const std::vector<int64_t> out_shape =
      Relayout(out_shape_probe, data_logical, out_layout).shape();
  const std::string op = fmt::format("nn.conv{}d{}", c.spatial, c.transposed ? "_transpose" : "");
  const bool grouped = c.kernel_layout.find('G') != std::string::npos;
  const NDArray logical_weight =
      c.multiplier_weight ? AsMultiplierWeight(weight, c.in_channels) : weight;
  auto out = RunKernel1(op,
                        {Relayout(data, data_logical, c.data_layout),
                         grouped ? Relayout(SplitGroups(weight, c.groups), "G" + weight_logical,
                                            c.kernel_layout)
                                 : Relayout(logical_weight, weight_logical, c.kernel_layout)},
                        ConvAttrs(c), TypeOf(c.out_dtype, out_shape), device);
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->dtype(), c.out_dtype);
  ExpectNear(AsDoubles(Relayout(*out, out_layout, data_logical)), expected, tol, op);
}

ConvCase Conv2DCase() {
  ConvCase c;
  c.batch = 2;
  c.in_channels = 3;
  c.out_channels = 5;
  c.in = {7, 9};
  c.kernel = {3, 2};
  c.stride = {2, 1};
  c.dilation = {1, 2};
  c.padding_attr = {1, 0, 2, 1};  // (top, left, bottom, right)
  c.pad_before = {1, 0};
  c.pad_after = {2, 1};
  c.data_layout = "NCHW";
  c.kernel_layout = "OIHW";
  return c;
}

TEST(Conv2D, NchwOihwAsymmetricPaddingStrideDilation) { CheckConv(Conv2DCase()); }

// Small output planes (7x7 = 49 positions) run the channels-first product
// transposed (conv_packed.cc): with groups, batch 2, asymmetric padding and
// dilation, on one and two threads.
TEST(Conv2D, SmallPlanesRunTheTransposedProduct) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  ConvCase c;
  c.batch = 2;
  c.in_channels = 20;
  c.out_channels = 32;
  c.groups = 2;
  c.in = {8, 7};
  c.kernel = {3, 3};
  c.stride = {1, 1};
  c.dilation = {2, 1};
  c.padding_attr = {2, 1, 1, 1};
  c.pad_before = {2, 1};
  c.pad_after = {1, 1};
  c.data_layout = "NCHW";
  c.kernel_layout = "OIHW";
  CheckConv(c);
  CheckConv(c, 1e-4, &device);
}

TEST(Conv2D, EveryDataAndKernelLayoutPair) {
  for (const char* data : {"NCHW", "NHWC"}) {
    for (const char* kernel : {"OIHW", "HWIO", "OHWI", "HWOI"}) {
      ConvCase c = Conv2DCase();
      c.data_layout = data;
      c.kernel_layout = kernel;
      SCOPED_TRACE(std::string(data) + "/" + kernel);
      CheckConv(c);
    }
  }
}

TEST(Conv2D, OutLayoutDiffersFromDataLayout) {
  ConvCase c = Conv2DCase();
  c.out_layout = "NHWC";
  CheckConv(c);
  c.data_layout = "NHWC";
  c.kernel_layout = "HWIO";
  c.out_layout = "NCHW";
  CheckConv(c);
}

TEST(Conv2D, GroupsBothLayouts) {
  ConvCase c = Conv2DCase();
  c.in_channels = 6;
  c.out_channels = 4;
  c.groups = 2;
  CheckConv(c);
  c.data_layout = "NHWC";
  c.kernel_layout = "HWIO";
  CheckConv(c);
}

TEST(Conv2D, DepthwiseWithChannelMultiplier) {
  for (int64_t multiplier : {1, 2}) {
    for (const char* layout : {"NCHW", "NHWC"}) {
      ConvCase c = Conv2DCase();
      c.in_channels = 4;
      c.groups = 4;
      c.out_channels = 4 * multiplier;
      c.data_layout = layout;
      c.kernel_layout = std::string(layout) == "NCHW" ? "OIHW" : "HWOI";
      SCOPED_TRACE(fmt::format("{} x{}", layout, multiplier));
      CheckConv(c);
    }
  }
}

// `base` as a depthwise convolution of `channels` input channels with
// channel multiplier `multiplier`, its weight in TVM's (C, M, k...) form.
ConvCase MultiplierCase(ConvCase base, int64_t channels, int64_t multiplier,
                        const std::string& data, const std::string& kernel) {
  base.in_channels = base.groups = channels;
  base.out_channels = channels * multiplier;
  base.multiplier_weight = true;
  base.data_layout = data;
  base.kernel_layout = kernel;
  return base;
}

// TVM's depthwise form (test_compile_depthwise_conv2d_arm_cpu, issue 21):
// NHWC data with an HWOI weight (kh, kw, C, M), channels = M * C; also
// NCHW/OIHW and the other kernel layouts, on every data layout.
TEST(Conv2D, DepthwiseMultiplierWeightInTvmForm) {
  for (const char* data : {"NCHW", "NHWC"}) {
    for (const char* kernel : {"HWOI", "OIHW", "HWIO", "OHWI"}) {
      SCOPED_TRACE(fmt::format("{}/{}", data, kernel));
      CheckConv(MultiplierCase(Conv2DCase(), 4, 2, data, kernel));
    }
  }
}

TEST(Conv2D, PointwiseFastPathsAndStridedOneByOne) {
  for (const char* layout : {"NCHW", "NHWC"}) {
    ConvCase c = Conv2DCase();
    c.in_channels = 5;
    c.out_channels = 7;
    c.kernel = {1, 1};
    c.stride = {1, 1};
    c.dilation = {1, 1};
    c.padding_attr = {0, 0};
    c.pad_before = c.pad_after = {0, 0};
    c.data_layout = layout;
    c.kernel_layout = std::string(layout) == "NCHW" ? "OIHW" : "HWIO";
    CheckConv(c);
    c.stride = {2, 2};  // no longer a plain GEMM on the input
    CheckConv(c);
  }
}

TEST(Conv2D, PaddingWrittenAsOneOrTwoValues) {
  ConvCase c = Conv2DCase();
  c.padding_attr = {2};
  c.pad_before = c.pad_after = {2, 2};
  CheckConv(c);
  c.padding_attr = {1, 3};  // (ph, pw)
  c.pad_before = c.pad_after = {1, 3};
  CheckConv(c);
}

TEST(Conv2D, Int8WidensToInt32) {
  for (const char* layout : {"NCHW", "NHWC"}) {
    ConvCase c = Conv2DCase();
    c.in_channels = 8;  // 8 * 6 taps of 127 * 127 overflow int16 but not int32
    c.data_dtype = c.weight_dtype = DataType::Int(8);
    c.out_dtype = DataType::Int(32);
    c.data_layout = layout;
    c.kernel_layout = std::string(layout) == "NCHW" ? "OIHW" : "HWIO";
    CheckConv(c, 0);
  }
}

TEST(Conv2D, Uint8DataInt8Weight) {
  ConvCase c = Conv2DCase();
  c.data_dtype = DataType::UInt(8);
  c.weight_dtype = DataType::Int(8);
  c.out_dtype = DataType::Int(32);
  CheckConv(c, 0);
}

TEST(Conv2D, Float64AndFloat16) {
  ConvCase c = Conv2DCase();
  c.data_dtype = c.weight_dtype = c.out_dtype = DataType::Float(64);
  CheckConv(c, 1e-12);
  c.data_dtype = c.weight_dtype = c.out_dtype = DataType::Float(16);
  CheckConv(c, 4e-3);  // one float16 rounding of a float-accumulated sum
}

TEST(Conv2D, LargeImageSpansSeveralIm2colTiles) {
  for (const char* layout : {"NCHW", "NHWC"}) {
    ConvCase c = Conv2DCase();
    c.batch = 1;
    c.in_channels = 8;
    c.out_channels = 6;
    c.in = {260, 300};
    c.kernel = {3, 3};
    c.stride = {1, 1};
    c.dilation = {1, 1};
    c.padding_attr = {1, 1, 1, 1};
    c.pad_before = c.pad_after = {1, 1};
    c.data_layout = layout;
    c.kernel_layout = std::string(layout) == "NCHW" ? "OIHW" : "HWIO";
    CheckConv(c, 1e-4);
  }
}

TEST(Conv2D, DeepReductionSpansDepthBlocks) {
  // Cg * K = 48 * 9 = 432 crosses the packed GEMM's 384-deep blocks, and a
  // block boundary falls inside a tap's channel run (channels-last).
  for (const char* layout : {"NCHW", "NHWC"}) {
    ConvCase c = Conv2DCase();
    c.batch = 1;
    c.in_channels = 96;
    c.groups = 2;
    c.out_channels = 22;
    c.in = {9, 11};
    c.kernel = {3, 3};
    c.data_layout = layout;
    c.kernel_layout = std::string(layout) == "NCHW" ? "OIHW" : "HWIO";
    CheckConv(c, 1e-4);
  }
}

TEST(Conv2D, ThreadPoolDeviceGivesTheSameResult) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  ConvCase c = Conv2DCase();
  c.in_channels = 16;
  c.out_channels = 32;
  c.in = {40, 33};
  CheckConv(c, 1e-4, &device);
  c.data_layout = "NHWC";
  c.kernel_layout = "HWIO";
  CheckConv(c, 1e-4, &device);
  c.groups = 16;  // depthwise, parallel over channels
  c.out_channels = 16;
  c.kernel_layout = "HWOI";
  CheckConv(c, 1e-4, &device);
}

TEST(Conv1D, BothLayoutsAsymmetricPadding) {
  for (const char* layout : {"NCW", "NWC"}) {
    ConvCase c;
    c.spatial = 1;
    c.batch = 2;
    c.in_channels = 4;
    c.out_channels = 6;
    c.groups = 2;
    c.in = {11};
    c.kernel = {3};
    c.stride = {2};
    c.dilation = {2};
    c.padding_attr = {2, 1};  // (left, right)
    c.pad_before = {2};
    c.pad_after = {1};
    c.data_layout = layout;
    c.kernel_layout = std::string(layout) == "NCW" ? "OIW" : "WIO";
    CheckConv(c);
  }
}

ConvCase Conv3DCase() {
  ConvCase c;
  c.spatial = 3;
  c.batch = 1;
  c.in_channels = 3;
  c.out_channels = 4;
  c.in = {5, 6, 7};
  c.kernel = {2, 3, 2};
  c.stride = {1, 2, 1};
  c.dilation = {2, 1, 1};
  c.padding_attr = {1, 0, 1, 0, 2, 1};  // (front, top, left, back, bottom, right)
  c.pad_before = {1, 0, 1};
  c.pad_after = {0, 2, 1};
  return c;
}

TEST(Conv3D, BothLayoutsSixValuePadding) {
  for (const char* layout : {"NCDHW", "NDHWC"}) {
    ConvCase c = Conv3DCase();
    c.data_layout = layout;
    c.kernel_layout = std::string(layout) == "NCDHW" ? "OIDHW" : "DHWIO";
    CheckConv(c);
  }
}

// test_compile_depthwise_conv3d's channels: data (1, 16, ...), weight
// (16, 2, k...), groups 16, channels 32 (TVM's Conv3DRel depthwise rule).
TEST(Conv3D, DepthwiseMultiplierWeightInTvmForm) {
  for (const char* layout : {"NCDHW", "NDHWC"}) {
    SCOPED_TRACE(layout);
    const bool first = std::string(layout) == "NCDHW";
    CheckConv(MultiplierCase(Conv3DCase(), 16, 2, layout, first ? "OIDHW" : "DHWOI"));
  }
}

// TVM's Conv2DRel reads a kernel layout holding G (groups > 1) as GOIHW:
// the weight (G, O/G, I/G, kh, kw) dnnl's legalize_group_conv makes. The
// result is the ungrouped convolution's, for plain groups, depthwise (the
// legalization does not exempt it) and a permuted G-layout.
TEST(Conv2D, GroupedGoihwWeightMatchesOihw) {
  ConvCase c = Conv2DCase();
  c.in_channels = 6;
  c.out_channels = 4;
  c.groups = 2;
  c.kernel_layout = "GOIHW";
  CheckConv(c);
  c.data_layout = "NHWC";
  c.kernel_layout = "GHWIO";
  CheckConv(c);
  for (int64_t multiplier : {1, 2}) {
    ConvCase d = Conv2DCase();
    d.in_channels = 4;
    d.groups = 4;
    d.out_channels = 4 * multiplier;
    d.kernel_layout = "GOIHW";
    SCOPED_TRACE(fmt::format("depthwise x{}", multiplier));
    CheckConv(d);
  }
}

// A 4-d weight under a G-layout, or a G-layout with groups=1, is what TVM's
// type relation rejects; the kernel reports it instead of misreading it.
TEST(Conv2D, GroupedLayoutNeedsFiveDimsAndGroups) {
  ConvCase c = Conv2DCase();
  c.in_channels = 6;
  c.out_channels = 4;
  c.groups = 2;
  c.kernel_layout = "GOIHW";
  auto out = RunKernel1("nn.conv2d", {Random<float>({2, 6, 7, 9}, 1), Random<float>({4, 3, 3, 2}, 2)},
                        ConvAttrs(c), TypeOf(DataType::Float(32), {2, 4, 4, 8}));
  EXPECT_FALSE(out.ok());
  c.groups = 1;
  c.in_channels = 3;
  out = RunKernel1("nn.conv2d", {Random<float>({2, 3, 7, 9}, 1), Random<float>({1, 4, 3, 3, 2}, 2)},
                   ConvAttrs(c), TypeOf(DataType::Float(32), {2, 4, 4, 8}));
  EXPECT_FALSE(out.ok());
}

ConvCase TransposeCase() {
  ConvCase c = Conv2DCase();
  c.transposed = true;
  c.in_channels = 4;
  c.out_channels = 6;
  c.groups = 2;
  c.in = {5, 4};
  c.kernel = {3, 2};
  c.stride = {2, 3};
  c.dilation = {1, 2};
  c.padding_attr = {1, 0, 0, 1};
  c.pad_before = {1, 0};
  c.pad_after = {0, 1};
  c.output_padding = {1, 2};
  c.kernel_layout = "IOHW";
  return c;
}

TEST(Conv2DTranspose, GroupsStridesDilationOutputPadding) {
  CheckConv(TransposeCase());
  ConvCase c = TransposeCase();
  c.data_layout = "NHWC";
  c.kernel_layout = "HWIO";
  CheckConv(c);
}

// conv2d_transpose's grouped layout is GIOHW: (G, I/G, O/G, kh, kw).
TEST(Conv2DTranspose, GroupedGiohwWeightMatchesIohw) {
  ConvCase c = TransposeCase();
  c.kernel_layout = "GIOHW";
  CheckConv(c);
  c.groups = 4;
  c.out_channels = 4;
  SCOPED_TRACE("depthwise");
  CheckConv(c);
}

TEST(ConvTranspose, OneAndThreeSpatialAxes) {
  ConvCase c;
  c.transposed = true;
  c.spatial = 1;
  c.batch = 2;
  c.in_channels = 3;
  c.out_channels = 2;
  c.in = {6};
  c.kernel = {4};
  c.stride = {3};
  c.dilation = {1};
  c.padding_attr = {1, 2};
  c.pad_before = {1};
  c.pad_after = {2};
  c.output_padding = {1};
  c.data_layout = "NCW";
  c.kernel_layout = "IOW";
  CheckConv(c);
  c.spatial = 3;
  c.in = {3, 4, 2};
  c.kernel = {2, 2, 3};
  c.stride = {2, 1, 2};
  c.dilation = {1, 2, 1};
  c.padding_attr = {1};
  c.pad_before = c.pad_after = {1, 1, 1};
  c.output_padding = {1, 0, 1};
  c.data_layout = "NCDHW";
  c.kernel_layout = "IODHW";
  CheckConv(c);
}

TEST(Conv2D, MismatchedWeightIsAnError) {
  ConvCase c = Conv2DCase();
  NDArray data = Random<float>({1, 3, 7, 9}, 1);
  NDArray weight = Random<float>({5, 4, 3, 2}, 2);  // I = 4, data has 3 channels
  auto out = RunKernel1("nn.conv2d", {data, weight}, ConvAttrs(c),
                        TypeOf(DataType::Float(32), {1, 5, 4, 8}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("weight"));
}

// The engines write the data's batch: an output type with another batch
// (a kernel called directly, outside InferType) must be refused, not overrun.
TEST(Conv2D, MismatchedBatchIsAnError) {
  ConvCase c = Conv2DCase();
  NDArray data = Random<float>({1, 3, 7, 9}, 1);
  NDArray weight = Random<float>({5, 3, 3, 2}, 2);
  auto out = RunKernel1("nn.conv2d", {data, weight}, ConvAttrs(c),
                        TypeOf(DataType::Float(32), {2, 5, 4, 8}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("batch"));
}

// TVM's x86 conv2d_NCHWc layouts: NCHW4c data, an OIHW4i2o kernel and an
// NCHW2c output compute the NCHW / OIHW convolution (and so does a
// transposed conv with split layouts).
TEST(Conv2D, SplitLayoutsComputeThePrimalConvolution) {
  ConvCase c = Conv2DCase();
  c.in_channels = 8;
  c.out_channels = 6;
  const std::vector<int64_t> out = OutExtents(c);
  NDArray data = Random<float>({2, 8, 7, 9}, 1);
  NDArray weight = Random<float>({6, 8, 3, 2}, 2);
  const std::vector<double> expected = Reference(c, data, weight);
  // (N, C, H, W) as (N, C/4, 4, H, W) with the 4 moved last; (O, I, H, W)
  // as (O/2, 2, I/4, 4, H, W) with the 4 and the 2 moved last.
  NDArray data4c = Relayout(Reshaped(data, {2, 2, 4, 7, 9}), "NCcHW", "NCHWc");
  NDArray weight4i2o = Relayout(Reshaped(weight, {3, 2, 2, 4, 3, 2}), "OoIiHW", "OIHWio");
  c.data_layout = "NCHW4c";
  c.kernel_layout = "OIHW4i2o";
  c.out_layout = "NCHW2c";
  auto got = RunKernel1("nn.conv2d", {data4c, weight4i2o}, ConvAttrs(c),
                        TypeOf(DataType::Float(32), {2, 3, out[0], out[1], 2}));
  CARVE_ASSERT_OK(got);
  ExpectNear(AsDoubles(Relayout(*got, "NCHWc", "NCcHW")), expected, 1e-4, "NCHW4c");
  // Data whose channels (9, in NCHW3c) are not the weight's is an error.
  c.data_layout = "NCHW3c";
  auto bad = RunKernel1("nn.conv2d", {Random<float>({2, 3, 7, 9, 3}, 1), weight4i2o}, ConvAttrs(c),
                        TypeOf(DataType::Float(32), {2, 3, out[0], out[1], 2}));
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace carve::kernel_testing
