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
//   - The quantized ops follow TVM's qnn rules: qnn.conv2d converts when
//     listed in `ops` (TVM's desired_layouts keys), qnn.add / mul /
//     subtract broadcast their two data inputs, qnn.requantize renumbers
//     its axis, qnn.concatenate follows its fields; their scales and zero
//     points are read as they are.
//   - Any other consumer, and the function result, reads an alternated
//     value through layout_transform(new -> old), one per value and
//     direction (TVM's transform memo), so consumers are unchanged.
//   - A value whose layout TVM's rules define but that is not converted
//     (a conv2d, dense or pool output, and what follows it elementwise)
//     still makes a broadcast partner of lower rank take its rank: as TVM's
//     BinaryBroadcastLayout and TransformHelper, the operand is renamed
//     after the other's layout (TryTransformLike) and expand_dims'ed, so a
//     conv2d's rank-1 `add` bias becomes (1, 1, 1, C) in NHWC.
#pragma once

#include <string>
#include <vector>

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
  // The ops converted (TVM's desired_layouts keys), each an op with the
  // conv layout rule; others keep their layout and their inputs are
  // transformed back to it. Empty: no op is converted (AlterOpLayout with
  // no target-specific alteration, passes/layout/alter_op_layout.h).
  std::vector<std::string> ops = {"nn.conv2d"};
};

// `canonicalize`: run CanonicalizeOps first (TVM's ConvertLayout requires it;
// AlterOpLayout does not).
absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired, Arena* arena,
                                                      bool canonicalize = true);

// InvalidArgument for layouts other than NCHW / NHWC (data), a 4-d kernel
// layout of O, I, H, W, and an `ops` entry that is not a convolution op.
absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired);

}  // namespace carve
