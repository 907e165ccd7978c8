// nn.contrib_conv2d_NCHWc and nn.contrib_depthwise_conv2d_NCHWc: the x86
// layout forms AlterOpLayout makes of conv2d (data NCHW[x]c, kernel
// OIHW[x]i[y]o). TVM's computes (topi/nn/conv2d.py conv2d_NCHWc,
// topi/x86/depthwise_conv2d.py depthwise_conv2d_NCHWc) index the split
// tensors exactly as conv2d indexes the primal ones, so both run through
// the conv2d driver, which moves split layouts to their primal forms and
// back.
//
// The depthwise form reads its filter at channel-multiplier index 0 only and
// asserts a multiplier of 1 (out channels == in channels), whatever `groups`
// says; carve runs it as the grouped convolution with groups = channels and
// rejects other multipliers.
#include <string>
#include <string_view>

#include "interpreter/kernels/conv.h"
#include "interpreter/kernels/kernel_util.h"
#include "ir/attrs.h"

namespace carve::nn_kernels {
namespace {

// The product of the extents of the axes of `layout` named `primal` (upper
// case) or its sub-axis (lower case): the full extent of that dimension.
absl::StatusOr<int64_t> FullExtent(const KernelContext& ctx, const NDArray& t,
                                   std::string_view layout, char primal) {
  int64_t extent = 1;
  size_t axis = 0;
  for (char c : layout) {
    if (c >= '0' && c <= '9') continue;
    if (axis >= t.rank()) break;
    if (c == primal || c == primal - 'A' + 'a') extent *= t.shape()[axis];
    ++axis;
  }
  if (axis != t.rank()) {
    return KernelError(ctx, "layout {} does not match a rank-{} tensor", layout, t.rank());
  }
  return extent;
}

absl::StatusOr<std::vector<NDArray>> Conv2DNCHWc(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunConv(ctx, 2, nullptr);
}

absl::StatusOr<std::vector<NDArray>> DepthwiseConv2DNCHWc(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const std::string_view data_layout = AttrString(ctx, "data_layout", "NCHW");
  const std::string_view kernel_layout = AttrString(ctx, "kernel_layout", "OIHW");
  CARVE_ASSIGN_OR_RETURN(int64_t channels, FullExtent(ctx, ctx.inputs[0], data_layout, 'C'));
  CARVE_ASSIGN_OR_RETURN(int64_t multiplier,
                         FullExtent(ctx, ctx.inputs[1], kernel_layout, 'I'));
  CARVE_ASSIGN_OR_RETURN(int64_t out_channels,
                         FullExtent(ctx, ctx.inputs[1], kernel_layout, 'O'));
  if (multiplier != 1 || out_channels != channels) {
    return KernelError(ctx,
                       "TVM's x86 compute takes a channel multiplier of 1 only (kernel with "
                       "{} output channels and multiplier {} for {} input channels)",
                       out_channels, multiplier, channels);
  }
  KernelContext inner = ctx;
  inner.attrs = WithField(ctx.attrs != nullptr ? ctx.attrs : DefaultAttrs(ctx.op->attrs),
                          "groups", AttrValue::Int(channels));
  return RunConv(inner, 2, nullptr);
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.contrib_conv2d_NCHWc", carve::nn_kernels::Conv2DNCHWc);
CARVE_REGISTER_KERNEL("nn.contrib_depthwise_conv2d_NCHWc",
                      carve::nn_kernels::DepthwiseConv2DNCHWc);
