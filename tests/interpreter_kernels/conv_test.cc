// nn.conv{1,2,3}d and nn.conv{1,2,3}d_transpose against direct-loop
// references (one multiply-add per tap, no im2col) on odd shapes: asymmetric
// padding, strides, dilation, groups, depthwise, batches, every layout pair.
#define EIGEN_USE_THREADS
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
};

std::string Spatial(int s) { return std::string("DHW").substr(3 - s); }

// Output extents of the case.
std::vector<int64_t> OutExtents(const ConvCase& c) {
  std::vector<int64_t> out;
  for (int i = 0; i < c.spatial; ++i) {
    const int64_t dk = (c.kernel[i] - 1) * c.dilation[i] + 1;
    const int64_t pads = c.pad_before[i] + c.pad_after[i];
    out.push_back(c.transposed
                      ? (c.in[i] - 1) * c.stride[i] + dk - pads + c.output_padding[i]
                      : (c.in[i] + pads - dk) / c.stride[i] + 1);
  }
  return out;
}

// Unravels a flat index over `dims` (row-major).
std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    idx[i] = flat % dims[i];
    flat /= dims[i];
  }
  return idx;
}

int64_t Ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t i = 0; i < dims.size(); ++i) flat = flat * dims[i] + idx[i];
  return flat;
}

// The direct definition: for every output element, every input channel of
// its group and every kernel tap, one multiply-add (out-of-range taps are
// zero). Data NC+spatial, weight OI+spatial (IO+spatial when transposed).
std::vector<double> Reference(const ConvCase& c, const NDArray& data, const NDArray& weight) {
  const std::vector<int64_t> out_sp = OutExtents(c);
  const int64_t cg = c.in_channels / c.groups, og = c.out_channels / c.groups;
  std::vector<int64_t> out_dims{c.batch, c.out_channels};
  out_dims.insert(out_dims.end(), out_sp.begin(), out_sp.end());
  std::vector<int64_t> in_dims{c.batch, c.in_channels};
  in_dims.insert(in_dims.end(), c.in.begin(), c.in.end());
  int64_t taps = 1, in_points = 1;
  for (int i = 0; i < c.spatial; ++i) taps *= c.kernel[i], in_points *= c.in[i];
  int64_t out_count = 1;
  for (int64_t d : out_dims) out_count *= d;
  std::vector<double> out(static_cast<size_t>(out_count), 0.0);
  const auto w_at = [&](int64_t a, int64_t b, const std::vector<int64_t>& k) {
    std::vector<int64_t> idx{a, b};
    idx.insert(idx.end(), k.begin(), k.end());
    return weight.GetAsDouble(Ravel(idx, weight.shape()));
  };
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t ci = 0; ci < c.in_channels; ++ci) {
      const int64_t g = ci / cg;
      for (int64_t p = 0; p < in_points; ++p) {
        const std::vector<int64_t> ip = Unravel(p, c.in);
        std::vector<int64_t> iidx{n, ci};
        iidx.insert(iidx.end(), ip.begin(), ip.end());
        const double x = data.GetAsDouble(Ravel(iidx, in_dims));
        for (int64_t t = 0; t < taps; ++t) {
          const std::vector<int64_t> k = Unravel(t, c.kernel);
          for (int64_t oo = 0; oo < og; ++oo) {
            // The output position this (input, tap) pair feeds; forward
            // convolutions need it to be a whole stride step.
            std::vector<int64_t> oidx{n, g * og + oo};
            bool ok = true;
            for (int i = 0; i < c.spatial && ok; ++i) {
              int64_t y;
              if (c.transposed) {
                y = ip[i] * c.stride[i] + k[i] * c.dilation[i] - c.pad_before[i];
              } else {
                const int64_t num = ip[i] + c.pad_before[i] - k[i] * c.dilation[i];
                ok = num >= 0 && num % c.stride[i] == 0;
                y = num / c.stride[i];
              }
              ok = ok && y >= 0 && y < out_sp[i];
              oidx.push_back(y);
            }
            if (!ok) continue;
            const double w = c.transposed ? w_at(ci, oo, k) : w_at(g * og + oo, ci - g * cg, k);
            out[Ravel(oidx, out_dims)] += x * w;
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

// Builds random inputs in logical layouts, runs the kernel on the case's
// layouts and compares with the reference.
void CheckConv(const ConvCase& c, double tol = 1e-4, const Eigen::ThreadPoolDevice* device = nullptr,
               uint32_t seed = 1) {
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
  auto out = RunKernel1(op,
                        {Relayout(data, data_logical, c.data_layout),
                         Relayout(weight, weight_logical, c.kernel_layout)},
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

TEST(Conv3D, BothLayoutsSixValuePadding) {
  for (const char* layout : {"NCDHW", "NDHWC"}) {
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
    c.data_layout = layout;
    c.kernel_layout = std::string(layout) == "NCDHW" ? "OIDHW" : "DHWIO";
    CheckConv(c);
  }
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

TEST(Conv2D, SplitLayoutIsUnimplemented) {
  NDArray data = Random<float>({1, 1, 4, 4, 4}, 1);
  NDArray weight = Random<float>({4, 4, 1, 1}, 2);
  auto out = RunKernel1("nn.conv2d", {data, weight},
                        MakeAttrs("relay.attrs.Conv2DAttrs", {{"data_layout", Str("NCHW4c")}}),
                        TypeOf(DataType::Float(32), {1, 1, 4, 4, 4}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace carve::kernel_testing
