// The convolutions ConvertLayout converts: TVM v0.16's convert-op-layout
// registrations (python/tvm/relay/op/nn/_nn.py convert_conv2d,
// convert_conv2d_transpose, convert_conv3d, convert_conv3d_transpose;
// python/tvm/relay/qnn/op/layout_conversions.py for the qnn forms). A
// convolution whose layout rule is kConv (ir/ops.def) but that has no
// entry here (nn.conv1d: TVM registers its FInferCorrectLayout only) keeps
// its layout.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "ir/op.h"

namespace carve::layout {

// The kernel layout "default" means for `op` in `data_layout` (TVM's
// convert function: e.g. OIHW for NCHW, HWIO for NHWC, HWOI for a depthwise
// NHWC conv2d); "" when TVM's function raises for that data layout.
std::string DefaultKernelLayout(const OpInfo& op, std::string_view data_layout, bool depthwise);

// OK when ConvertLayout can move `op` to `data_layout` with `kernel_layout`
// ("default" allowed): `op` has a convert registration, the data layout
// is one of its own axes, and the kernel layout one of its kernel's. For
// nn.conv2d the data layout may also be NCHW<n>c (with a kernel layout
// given) and the kernel layout blocked (OHWI8o), as TVM's convert_conv2d
// takes them.
absl::Status CheckConvertible(const OpInfo& op, std::string_view data_layout,
                              std::string_view kernel_layout);

// The convolutions whose convert function consults TVM's LayoutConfig
// (skip_layers): nn.conv2d.
bool CountsForSkipLayers(const OpInfo& op);

// The ops other than convolutions with a convert function that moves their
// data layout only (pools, image.resize1d/2d, vision.roi_align / roi_pool:
// convert_rules.cc).
bool ConvertsDataLayout(const OpInfo& op);

// Whether TVM registers a convert function for `op` (a convolution above or
// such an op): the ops a desired-layouts map can name. TVM ignores the
// entries of other ops (they follow their producers' layouts anyway).
bool HasConvertFunction(const OpInfo& op);

// OK when ConvertLayout can move such an op to `data_layout`
// (`kernel_layout` must be "default").
absl::Status CheckDataConvertible(const OpInfo& op, std::string_view data_layout,
                                  std::string_view kernel_layout);

}  // namespace carve::layout
