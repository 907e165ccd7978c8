// The convert-op-layout registrations of passes/layout/conv_rules.h against
// TVM v0.16's (python/tvm/relay/op/nn/_nn.py convert_conv2d,
// convert_conv2d_transpose, convert_conv3d, convert_conv3d_transpose;
// python/tvm/relay/qnn/op/layout_conversions.py), and the layout-string
// helpers of passes/layout/layout_names.h against TVM's Layout methods.
#include <gtest/gtest.h>

#include <string>

#include "ir/op.h"
#include "passes/layout/conv_rules.h"
#include "passes/layout/layout_names.h"

namespace carve::layout {
namespace {

std::string Default(std::string_view op, std::string_view data, bool depthwise = false) {
  return DefaultKernelLayout(*FindOp(op), data, depthwise);
}

TEST(ConvRulesTest, DefaultKernelLayoutsAreTvms) {
  EXPECT_EQ(Default("nn.conv2d", "NCHW"), "OIHW");
  EXPECT_EQ(Default("nn.conv2d", "NHWC"), "HWIO");
  EXPECT_EQ(Default("nn.conv2d", "NHWC", true), "HWOI");
  EXPECT_EQ(Default("qnn.conv2d", "NHWC", true), "HWOI");
  EXPECT_EQ(Default("nn.conv2d_transpose", "NCHW"), "IOHW");
  EXPECT_EQ(Default("nn.conv2d_transpose", "NHWC", true), "HWIO");
  EXPECT_EQ(Default("qnn.conv2d_transpose", "NHWC"), "HWIO");
  EXPECT_EQ(Default("nn.conv3d", "NCDHW"), "OIDHW");
  EXPECT_EQ(Default("nn.conv3d", "NDHWC"), "DHWIO");
  EXPECT_EQ(Default("nn.conv3d_transpose", "NCDHW"), "IODHW");
  EXPECT_EQ(Default("nn.conv3d_transpose", "NDHWC"), "DHWOI");
  // TVM's functions raise for other data layouts: no default.
  EXPECT_EQ(Default("nn.conv2d", "NCWH"), "");
  EXPECT_EQ(Default("nn.conv1d", "NWC"), "");
}

TEST(ConvRulesTest, CheckConvertible) {
  EXPECT_TRUE(CheckConvertible(*FindOp("nn.conv2d"), "NHWC", "default").ok());
  // An explicit kernel layout allows any layout of the op's axes, as TVM's
  // convert function passes it on.
  EXPECT_TRUE(CheckConvertible(*FindOp("nn.conv2d"), "NCWH", "OIHW").ok());
  EXPECT_TRUE(CheckConvertible(*FindOp("nn.conv3d"), "NDHWC", "default").ok());
  EXPECT_FALSE(CheckConvertible(*FindOp("nn.conv2d"), "NCWH", "default").ok());
  EXPECT_FALSE(CheckConvertible(*FindOp("nn.conv3d"), "NHWC", "default").ok());
  EXPECT_FALSE(CheckConvertible(*FindOp("nn.conv2d"), "NHWC", "OIDHW").ok());
  EXPECT_FALSE(CheckConvertible(*FindOp("nn.conv2d"), "NHWC", "OIHH").ok());
  EXPECT_FALSE(CheckConvertible(*FindOp("nn.conv1d"), "NWC", "default").ok());
  EXPECT_FALSE(CheckConvertible(*FindOp("nn.relu"), "NHWC", "default").ok());
}

TEST(LayoutNamesTest, TryTransformLikeIsTvms) {
  EXPECT_EQ(TryTransformLike("C", "NHWC", "NHWC"), "NHWC");
  EXPECT_EQ(TryTransformLike("C", "NHWC", "NCHW"), "NCHW");
  EXPECT_EQ(TryTransformLike("NC", "NCHW", "NCHW"), "BANC");
  EXPECT_EQ(TryTransformLike("", "NCHW", "NHWC"), "");
  EXPECT_EQ(ExpandPrimal("C", "NCHW"), "NHWC");
  EXPECT_EQ(Suffix("NHWC", 1), "C");
  EXPECT_TRUE(IsPlainLayout("NCDHW", 5));
  EXPECT_FALSE(IsPlainLayout("NCHW4c", 5));
  EXPECT_FALSE(IsPlainLayout("NCHC", 4));
}

}  // namespace
}  // namespace carve::layout
