// ConvertLayout (TVM v0.16 src/relay/transforms/convert_layout.cc with
// desired layouts {"nn.conv2d": [data, kernel]}): a forward rewrite in which
// every value is either in its original layout or "alternated" into a new
// one, as TVM's LayoutRewriter.
//
//   - CanonicalizeOps runs first (TVM's required pass): bias_add becomes
//     add(x, expand_dims(b)).
//   - nn.conv2d in NCHW/NHWC is converted to the desired data layout and
//     kernel layout ("default": OIHW for NCHW, HWIO for NHWC, HWOI for a
//     depthwise NHWC conv), its inputs transformed from their current layout.
//   - Ops with a layout rule follow their inputs' new layout: 2-d pools
//     without out_layout, unary elementwise ops, broadcast binary ops (the
//     lower-rank operand expanded with expand_dims and transformed, TVM's
//     BinaryBroadcastLayout; an all-ones or rank-0 operand untouched),
//     concatenate of fields that share one new layout (axis renumbered),
//     batch_norm read through projections (axis renumbered; field 0
//     follows, the per-channel fields do not change), and the reductions
//     sum, mean, max, min, prod (axes renumbered; the result follows while
//     its kept axes differ between the layouts), and nn.pad (pad_width rows
//     permuted).
//   - Any other consumer, and the function result, reads an alternated
//     value through layout_transform(new -> old), one per value and
//     direction (TVM's transform memo), so consumers are unchanged.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

struct DesiredLayout {
  std::string data;                // "NHWC" or "NCHW"
  std::string kernel = "default";  // conv2d kernel layout; default: HWIO for NHWC, OIHW for NCHW
  // The kernel layout of a depthwise conv2d when it differs from `kernel`
  // (ACL's optimize hook asks OHWI, and IHWO for depthwise); "" = `kernel`.
  std::string depthwise_kernel;
};

absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired, Arena* arena);

// InvalidArgument for layouts other than NCHW / NHWC (data) and a 4-d kernel
// layout of O, I, H, W.
absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired);

}  // namespace carve
