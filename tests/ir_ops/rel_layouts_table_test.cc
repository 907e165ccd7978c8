// Layouts in the convolution, pooling, upsampling and resize relations
// (issue 21, item 6): one row per (op, layout, shapes, attrs) with the type
// TVM v0.16 gives, worked out by reading its relations (src/relay/op/nn/
// convolution.cc Conv{1,2,3}DRel, convolution.h Conv2DTransposeRel,
// pooling.cc Pool*Rel / AdaptivePool*Rel / GlobalPool2DRel, upsampling.cc,
// image/resize.cc). Error rows are inputs TVM rejects; their text is carve's.
//
// Each row names the TVM rule it exercises: "assign" rows set channels and
// kernel_size (TVM assigns the weight type, carve checks the weight against
// it), "read" rows leave them unset (TVM reads channels from the weight).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/ir_ops/rel_test_util.h"

namespace carve::testing {
namespace {

struct Row {
  const char* what;
  const char* op;
  std::vector<const Type*> args;
  std::vector<std::pair<std::string_view, AttrValue>> attrs;
  const char* expected;
};

std::string Run(const Row& row) {
  const OpInfo* op = FindOp(row.op);
  if (op == nullptr) return "error: no op";
  const Attrs* attrs = DefaultAttrs(op->attrs);
  for (const auto& [key, value] : row.attrs) attrs = WithField(attrs, key, value);
  TypeRelCall call{op, row.args, attrs};
  absl::StatusOr<const Type*> result = op->type_rel(call);
  if (!result.ok()) return "error: " + std::string(result.status().message());
  return TypeToString(*result);
}

AttrValue Doubles(std::initializer_list<double> v) {
  std::vector<AttrValue> items;
  for (double d : v) items.push_back(AttrValue::Float(d));
  return AttrValue::Array(items);
}

const std::vector<Row>& ConvRows() {
  static const std::vector<Row> rows = {
      // conv2d: every data layout of N, C, H, W and kernel layout of O, I, H, W.
      {"NCHW/OIHW read", "nn.conv2d", {T({1, 3, 32, 32}), T({8, 3, 3, 3})},
       {{"padding", Ints({1, 1})}}, "Tensor[(1, 8, 32, 32), float32]"},
      {"NHWC/HWIO read", "nn.conv2d", {T({1, 32, 32, 3}), T({3, 3, 3, 8})},
       {{"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWIO")}},
       "Tensor[(1, 30, 30, 8), float32]"},
      {"NHWC/OHWI read", "nn.conv2d", {T({1, 32, 32, 3}), T({8, 5, 3, 3})},
       {{"data_layout", Str("NHWC")}, {"kernel_layout", Str("OHWI")}},
       "Tensor[(1, 28, 30, 8), float32]"},
      {"NHWC/HWOI depthwise read", "nn.conv2d", {T({1, 32, 32, 8}), T({3, 3, 8, 1})},
       {{"groups", Int(8)}, {"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWOI")}},
       "Tensor[(1, 30, 30, 8), float32]"},
      {"NHWC/HWOI depthwise multiplier 3 assign", "nn.conv2d",
       {T({1, 32, 32, 8}), T({3, 3, 8, 3})},
       {{"groups", Int(8)},
        {"channels", Int(24)},
        {"kernel_size", Ints({3, 3})},
        {"data_layout", Str("NHWC")},
        {"kernel_layout", Str("HWOI")}},
       "Tensor[(1, 30, 30, 24), float32]"},
      {"NHWC/HWIO depthwise multiplier 2 assign (I = 1: O = C is not depthwise)", "nn.conv2d",
       {T({1, 32, 32, 8}), T({3, 3, 1, 16})},
       {{"groups", Int(8)},
        {"channels", Int(16)},
        {"kernel_size", Ints({3, 3})},
        {"data_layout", Str("NHWC")},
        {"kernel_layout", Str("HWIO")}},
       "Tensor[(1, 30, 30, 16), float32]"},
      {"NHWC/HWIO grouped read", "nn.conv2d", {T({1, 8, 8, 4}), T({3, 3, 2, 6})},
       {{"groups", Int(2)}, {"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWIO")}},
       "Tensor[(1, 6, 6, 6), float32]"},
      {"HWCN/HWIO read", "nn.conv2d", {T({32, 32, 3, 2}), T({3, 3, 3, 8})},
       {{"data_layout", Str("HWCN")}, {"kernel_layout", Str("HWIO")}},
       "Tensor[(30, 30, 8, 2), float32]"},
      {"NCHW/OIHW to out_layout NHWC", "nn.conv2d", {T({1, 3, 32, 32}), T({8, 3, 3, 3})},
       {{"out_layout", Str("NHWC")}}, "Tensor[(1, 30, 30, 8), float32]"},
      {"NCHW4c/OIHW4i4o read", "nn.conv2d", {T({1, 2, 32, 32, 4}), T({4, 2, 3, 3, 4, 4})},
       {{"data_layout", Str("NCHW4c")}, {"kernel_layout", Str("OIHW4i4o")}},
       "Tensor[(1, 4, 30, 30, 4), float32]"},
      {"NCHW4c/OIHW4i4o to NCHW", "nn.conv2d", {T({1, 2, 32, 32, 4}), T({4, 2, 3, 3, 4, 4})},
       {{"data_layout", Str("NCHW4c")},
        {"kernel_layout", Str("OIHW4i4o")},
        {"out_layout", Str("NCHW")}},
       "Tensor[(1, 16, 30, 30), float32]"},
      {"NCHW8c/OIHW8i8o assign", "nn.conv2d", {T({1, 2, 16, 16, 8}), T({4, 2, 1, 1, 8, 8})},
       {{"channels", Int(32)},
        {"kernel_size", Ints({1, 1})},
        {"data_layout", Str("NCHW8c")},
        {"kernel_layout", Str("OIHW8i8o")}},
       "Tensor[(1, 4, 16, 16, 8), float32]"},
      {"GOIHW grouped assign", "nn.conv2d", {T({1, 8, 16, 16}), T({2, 4, 4, 3, 3})},
       {{"groups", Int(2)},
        {"channels", Int(8)},
        {"kernel_size", Ints({3, 3})},
        {"kernel_layout", Str("GOIHW")}},
       "Tensor[(1, 8, 14, 14), float32]"},
      {"GOIHW grouped assign, G and O / G swapped", "nn.conv2d",
       {T({1, 8, 16, 16}), T({4, 2, 4, 3, 3})},
       {{"groups", Int(2)},
        {"channels", Int(8)},
        {"kernel_size", Ints({3, 3})},
        {"kernel_layout", Str("GOIHW")}},
       "error: grouped weight groups 4 do not match groups 2"},
      {"padding 4 values (top, left, bottom, right)", "nn.conv2d",
       {T({1, 3, 10, 10}), T({4, 3, 3, 3})}, {{"padding", Ints({1, 0, 2, 0})}},
       "Tensor[(1, 4, 11, 8), float32]"},
      {"? batch and height", "nn.conv2d", {T({kAny, kAny, 32, 3}), T({3, 3, 3, 8})},
       {{"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWIO")}},
       "Tensor[(?, ?, 30, 8), float32]"},
      // What TVM rejects.
      {"data layout of other axes", "nn.conv2d", {T({1, 3, 32}), T({8, 3, 3, 3})},
       {{"data_layout", Str("NCW")}},
       "error: data_layout NCW is not convertible to NCHW"},
      {"kernel layout of other axes", "nn.conv2d", {T({1, 3, 32, 32}), T({8, 3, 3, 3})},
       {{"kernel_layout", Str("OIHWC")}},
       "error: kernel_layout OIHWC is not convertible to OIHW"},
      {"input channels against HWIO I", "nn.conv2d", {T({1, 32, 32, 4}), T({3, 3, 3, 8})},
       {{"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWIO")}},
       "error: input channels 4 do not match weight input channels 3"},
      {"channels against OHWI O", "nn.conv2d", {T({1, 32, 32, 3}), T({8, 3, 3, 3})},
       {{"channels", Int(4)}, {"data_layout", Str("NHWC")}, {"kernel_layout", Str("OHWI")}},
       "error: channels 4 does not match weight output channels 8"},
      {"depthwise multiplier read without channels", "nn.conv2d",
       {T({1, 32, 32, 8}), T({3, 3, 8, 3})},
       {{"groups", Int(8)}, {"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWOI")}},
       "error: input channels 8 / groups 8 = 1 do not match weight input channels 3"},
      // nn.contrib_conv2d_NCHWc and the winograd form: TVM's
      // Conv2DWinogradRel reads no weight shape; channels and kernel_size
      // give the output, written back in out_layout.
      {"NCHWc NCHW16c/OIHW16i16o", "nn.contrib_conv2d_NCHWc",
       {T({1, 4, 56, 56, 16}), T({4, 4, 3, 3, 16, 16})},
       {{"channels", Int(64)},
        {"kernel_size", Ints({3, 3})},
        {"padding", Ints({1, 1, 1, 1})},
        {"data_layout", Str("NCHW16c")},
        {"kernel_layout", Str("OIHW16i16o")}},
       "Tensor[(1, 4, 56, 56, 16), float32]"},
      {"NCHWc to out_layout NCHW8c, packed weight not read", "nn.contrib_conv2d_NCHWc",
       {T({1, 4, 56, 56, 16}), T({2, 3})},
       {{"channels", Int(64)},
        {"kernel_size", Ints({3, 3})},
        {"strides", Ints({2, 2})},
        {"data_layout", Str("NCHW16c")},
        {"kernel_layout", Str("OIHW16i16o")},
        {"out_layout", Str("NCHW8c")}},
       "Tensor[(1, 8, 27, 27, 8), float32]"},
      {"NCHWc without channels", "nn.contrib_conv2d_NCHWc",
       {T({1, 4, 56, 56, 16}), T({4, 4, 3, 3, 16, 16})},
       {{"kernel_size", Ints({3, 3})},
        {"data_layout", Str("NCHW16c")},
        {"kernel_layout", Str("OIHW16i16o")}},
       "error: channels and kernel_size must be set (the weight's shape is not read)"},
      {"winograd NHWC, transformed weight", "nn.contrib_conv2d_winograd_without_weight_transform",
       {T({1, 10, 10, 8}), T({6, 6, 8, 16})},
       {{"tile_size", Int(4)},
        {"channels", Int(16)},
        {"kernel_size", Ints({3, 3})},
        {"padding", Ints({1, 1})},
        {"data_layout", Str("NHWC")},
        {"kernel_layout", Str("HWIO")}},
       "Tensor[(1, 10, 10, 16), float32]"},
      // conv1d: NCW / NWC with OIW / WIO / OWI.
      {"NCW/OIW read", "nn.conv1d", {T({1, 4, 10}), T({8, 4, 3})}, {},
       "Tensor[(1, 8, 8), float32]"},
      {"NWC/WIO read", "nn.conv1d", {T({1, 10, 4}), T({3, 4, 8})},
       {{"data_layout", Str("NWC")}, {"kernel_layout", Str("WIO")}},
       "Tensor[(1, 8, 8), float32]"},
      {"NWC/OWI assign", "nn.conv1d", {T({1, 10, 4}), T({8, 3, 4})},
       {{"channels", Int(8)},
        {"kernel_size", Ints({3})},
        {"padding", Ints({1, 1})},
        {"data_layout", Str("NWC")},
        {"kernel_layout", Str("OWI")}},
       "Tensor[(1, 10, 8), float32]"},
      {"NCW grouped read: TVM compares C with I, not C / groups", "nn.conv1d",
       {T({1, 4, 10}), T({8, 2, 3})}, {{"groups", Int(2)}},
       "error: input channels 4 do not match weight input channels 2"},
      {"NCW grouped assign", "nn.conv1d", {T({1, 4, 10}), T({8, 2, 3})},
       {{"groups", Int(2)}, {"channels", Int(8)}, {"kernel_size", Ints({3})}},
       "Tensor[(1, 8, 8), float32]"},
      // conv3d: NCDHW / NDHWC with OIDHW / DHWIO / DHWOI.
      {"NDHWC/DHWIO read", "nn.conv3d", {T({1, 8, 8, 8, 3}), T({3, 3, 3, 3, 16})},
       {{"data_layout", Str("NDHWC")}, {"kernel_layout", Str("DHWIO")}},
       "Tensor[(1, 6, 6, 6, 16), float32]"},
      {"NCDHW/OIDHW strides", "nn.conv3d", {T({1, 3, 9, 9, 9}), T({4, 3, 3, 3, 3})},
       {{"strides", Ints({2, 2, 2})}}, "Tensor[(1, 4, 4, 4, 4), float32]"},
      {"NDHWC/DHWOI depthwise multiplier 2 assign", "nn.conv3d",
       {T({1, 8, 8, 8, 4}), T({3, 3, 3, 4, 2})},
       {{"groups", Int(4)},
        {"channels", Int(8)},
        {"kernel_size", Ints({3, 3, 3})},
        {"data_layout", Str("NDHWC")},
        {"kernel_layout", Str("DHWOI")}},
       "Tensor[(1, 6, 6, 6, 8), float32]"},
      // Transposed convolutions: the kernel is read as IOHW.
      {"conv2d_transpose NCHW/IOHW", "nn.conv2d_transpose", {T({1, 4, 8, 8}), T({4, 6, 3, 3})},
       {{"strides", Ints({2, 2})}}, "Tensor[(1, 6, 17, 17), float32]"},
      {"conv2d_transpose NHWC/HWOI", "nn.conv2d_transpose", {T({1, 8, 8, 4}), T({3, 3, 6, 4})},
       {{"data_layout", Str("NHWC")}, {"kernel_layout", Str("HWOI")}},
       "Tensor[(1, 10, 10, 6), float32]"},
      {"conv1d_transpose NWC/WOI", "nn.conv1d_transpose", {T({1, 8, 4}), T({3, 6, 4})},
       {{"data_layout", Str("NWC")}, {"kernel_layout", Str("WOI")}},
       "Tensor[(1, 10, 6), float32]"},
      {"conv3d_transpose NDHWC/DHWOI", "nn.conv3d_transpose",
       {T({1, 4, 4, 4, 2}), T({2, 2, 2, 3, 2})},
       {{"data_layout", Str("NDHWC")}, {"kernel_layout", Str("DHWOI")}},
       "Tensor[(1, 5, 5, 5, 3), float32]"},
  };
  return rows;
}

const std::vector<Row>& PoolRows() {
  static const std::vector<Row> rows = {
      {"max_pool1d NCW", "nn.max_pool1d", {T({1, 3, 10})},
       {{"pool_size", Ints({3})}, {"strides", Ints({2})}}, "Tensor[(1, 3, 4), float32]"},
      {"avg_pool1d NWC ceil", "nn.avg_pool1d", {T({1, 10, 3})},
       {{"pool_size", Ints({3})},
        {"strides", Ints({2})},
        {"ceil_mode", Bool(true)},
        {"layout", Str("NWC")}},
       "Tensor[(1, 5, 3), float32]"},
      {"max_pool2d HWCN", "nn.max_pool2d", {T({9, 9, 3, 2})},
       {{"pool_size", Ints({3, 3})}, {"strides", Ints({3, 3})}, {"layout", Str("HWCN")}},
       "Tensor[(3, 3, 3, 2), float32]"},
      {"avg_pool2d NCHW4c padding 4", "nn.avg_pool2d", {T({1, 2, 9, 9, 4})},
       {{"pool_size", Ints({2, 2})},
        {"strides", Ints({2, 2})},
        {"padding", Ints({1, 0, 0, 0})},
        {"layout", Str("NCHW4c")}},
       "Tensor[(1, 2, 5, 4, 4), float32]"},
      {"max_pool2d dilation", "nn.max_pool2d", {T({1, 3, 10, 10})},
       {{"pool_size", Ints({3, 3})}, {"dilation", Ints({2, 2})}},
       "Tensor[(1, 3, 6, 6), float32]"},
      {"max_pool3d NDHWC", "nn.max_pool3d", {T({1, 8, 8, 8, 3})},
       {{"pool_size", Ints({2, 2, 2})}, {"strides", Ints({2, 2, 2})}, {"layout", Str("NDHWC")}},
       "Tensor[(1, 4, 4, 4, 3), float32]"},
      {"max_pool2d ? height", "nn.max_pool2d", {T({1, kAny, 10, 3})},
       {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}, {"layout", Str("NHWC")}},
       "Tensor[(1, ?, 5, 3), float32]"},
      {"global_max_pool2d NCHW8c", "nn.global_max_pool2d", {T({1, 2, 7, 7, 8})},
       {{"layout", Str("NCHW8c")}}, "Tensor[(1, 2, 1, 1, 8), float32]"},
      {"adaptive_avg_pool1d NWC", "nn.adaptive_avg_pool1d", {T({1, 10, 3})},
       {{"output_size", Ints({4})}, {"layout", Str("NWC")}}, "Tensor[(1, 4, 3), float32]"},
      {"adaptive_max_pool2d NHWC (2 values)", "nn.adaptive_max_pool2d", {T({1, 9, 9, 3})},
       {{"output_size", Ints({2, 4})}, {"layout", Str("NHWC")}},
       "Tensor[(1, 2, 4, 3), float32]"},
      {"adaptive_avg_pool2d no size", "nn.adaptive_avg_pool2d", {T({1, 3, 9, 7})}, {},
       "Tensor[(1, 3, 9, 7), float32]"},
      {"adaptive_avg_pool3d NDHWC one value", "nn.adaptive_avg_pool3d", {T({1, 8, 8, 8, 3})},
       {{"output_size", Ints({2})}, {"layout", Str("NDHWC")}},
       "Tensor[(1, 2, 2, 2, 3), float32]"},
      // What TVM rejects: split pooled axes.
      {"max_pool2d split W", "nn.max_pool2d", {T({1, 3, 8, 2, 4})},
       {{"pool_size", Ints({2, 2})}, {"layout", Str("NCHW4w")}},
       "error: layout NCHW4w must contain unsplit HW axes"},
      {"global_avg_pool2d without H", "nn.global_avg_pool2d", {T({1, 3, 8})},
       {{"layout", Str("NCW")}}, "error: layout NCW must contain unsplit HW axes"},
  };
  return rows;
}

const std::vector<Row>& ResampleRows() {
  static const std::vector<Row> rows = {
      {"upsampling NHWC", "nn.upsampling", {T({1, 4, 4, 3})},
       {{"scale_h", Float(2.0)}, {"scale_w", Float(1.5)}, {"layout", Str("NHWC")}},
       "Tensor[(1, 8, 6, 3), float32]"},
      {"upsampling NCHW4c", "nn.upsampling", {T({1, 2, 4, 4, 4})},
       {{"scale_h", Float(2.0)}, {"scale_w", Float(2.0)}, {"layout", Str("NCHW4c")}},
       "Tensor[(1, 2, 8, 8, 4), float32]"},
      {"upsampling3d NDHWC", "nn.upsampling3d", {T({1, 2, 3, 4, 5})},
       {{"scale_d", Float(2.0)},
        {"scale_h", Float(2.0)},
        {"scale_w", Float(3.0)},
        {"layout", Str("NDHWC")}},
       "Tensor[(1, 4, 6, 12, 5), float32]"},
      {"resize1d NWC", "image.resize1d", {T({1, 4, 3})},
       {{"size", Ints({9})}, {"roi", Doubles({0, 0})}, {"layout", Str("NWC")}},
       "Tensor[(1, 9, 3), float32]"},
      {"resize2d NHWC", "image.resize2d", {T({1, 4, 4, 3})},
       {{"size", Ints({7, 9})}, {"roi", Doubles({0, 0, 0, 0})}, {"layout", Str("NHWC")}},
       "Tensor[(1, 7, 9, 3), float32]"},
      {"resize2d NCHW4c out_dtype", "image.resize2d", {T({1, 2, 4, 4, 4}, kU8)},
       {{"size", Ints({8, 8})},
        {"roi", Doubles({0, 0, 0, 0})},
        {"layout", Str("NCHW4c")},
        {"out_dtype", Str("float32")}},
       "Tensor[(1, 2, 8, 8, 4), float32]"},
      {"resize3d NDHWC", "image.resize3d", {T({1, 2, 2, 2, 3})},
       {{"size", Ints({4, 5, 6})}, {"roi", Doubles({0, 0, 0, 0, 0, 0})}, {"layout", Str("NDHWC")}},
       "Tensor[(1, 4, 5, 6, 3), float32]"},
      // tvm::round folds with std::nearbyint: ties go to the even integer.
      {"upsampling tie 3 * 1.5 = 4.5", "nn.upsampling", {T({1, 2, 3, 5})},
       {{"scale_h", Float(1.5)}, {"scale_w", Float(0.5)}},
       "Tensor[(1, 2, 4, 2), float32]"},
      {"upsampling3d ties, int64 dims keep their width", "nn.upsampling3d",
       {TWide({1, 2, 5, 3, 7})},
       {{"scale_d", Float(0.5)}, {"scale_h", Float(1.5)}, {"scale_w", Float(0.5)}},
       "Tensor[(1i64, 2i64, 2i64, 4i64, 4i64), float32]"},
      // What TVM rejects.
      {"resize2d layout of other axes", "image.resize2d", {T({1, 4, 3})},
       {{"size", Ints({7, 9})}, {"roi", Doubles({0, 0, 0, 0})}, {"layout", Str("NWC")}},
       "error: layout NWC is not convertible to NCHW"},
      {"upsampling NCW", "nn.upsampling", {T({1, 4, 3})},
       {{"scale_h", Float(2.0)}, {"scale_w", Float(2.0)}, {"layout", Str("NCW")}},
       "error: layout NCW is not convertible to NCHW"},
  };
  return rows;
}

void CheckRows(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.op) + ": " + row.what);
    EXPECT_EQ(Run(row), row.expected);
  }
}

TEST(RelLayoutsTable, Convolutions) { CheckRows(ConvRows()); }
TEST(RelLayoutsTable, Pools) { CheckRows(PoolRows()); }
TEST(RelLayoutsTable, UpsamplingAndResize) { CheckRows(ResampleRows()); }

}  // namespace
}  // namespace carve::testing
