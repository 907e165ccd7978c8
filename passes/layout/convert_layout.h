// ConvertLayout (TVM v0.16 src/relay/transforms/convert_layout.cc with
// desired layouts {op: [data, kernel]} for each listed op): the listed
// convolutions move to the desired layouts and the ops after them follow,
// through the layout rewriter of passes/layout/layout_rewriter.h (the rules
// per op family: conv_rules.cc, follow_rules.cc, axis_rules.cc).
//
//   - CanonicalizeOps runs first (TVM's required pass): bias_add becomes
//     add(x, expand_dims(b)).
//   - A listed pool (nn.max_pool2d, nn.avg_pool2d, nn.global_max_pool2d,
//     nn.global_avg_pool2d: layout and out_layout), image.resize1d/2d or
//     vision.roi_align / roi_pool (layout) moves to its desired data
//     layout, its data input transformed to it (convert_rules.cc).
//   - A listed convolution (nn.conv2d, qnn.conv2d, nn.conv2d_transpose,
//     qnn.conv2d_transpose, nn.conv3d, nn.conv3d_transpose: the ops TVM
//     registers a convert function for) moves to the desired data layout
//     and kernel layout ("default": TVM's per-op default, e.g. OIHW / HWIO
//     / HWOI for a depthwise NHWC conv2d, IOHW / HWIO for conv2d_transpose,
//     OIDHW / DHWIO for conv3d), its inputs transformed from their current
//     layout. Other convolutions keep their layout.
//   - nn.conv2d with a desired NCHW<n>c (and a kernel layout such as
//     OIHW<n>i<n>o) becomes nn.contrib_conv2d_NCHWc, as TVM's
//     convert_conv2d does, except where its data is a parameter whose
//     dimension 1 n does not divide (TVM's exception) or a block does not
//     divide the axis it splits; the followers named below take the
//     blocked layout where TVM's rules do (elementwise, broadcasts, pools,
//     concatenate, split, reductions), the others read it back.
//   - Ops with a layout rule follow their inputs' new layout: pools and
//     image.resize1d/2d/3d without out_layout, unary elementwise ops,
//     broadcast binary ops (the lower-rank operand expanded with
//     expand_dims and transformed, TVM's BinaryBroadcastLayout; an all-ones
//     or rank-0 operand untouched), concatenate, batch_norm, nn.pad, the
//     reductions, transpose, strided_slice, split, squeeze, layer_norm,
//     instance_norm, l2_normalize, and the qnn rules
//     (qnn.add / mul / subtract, qnn.requantize, qnn.concatenate; scales
//     and zero points are read as they are).
//   - Any other consumer, and the function result, reads an alternated
//     value through layout_transform(new -> old), one per value and
//     direction (TVM's transform memo), so consumers are unchanged.
//   - A value whose layout TVM's rules define but that is not converted
//     still makes a broadcast partner of lower rank take its rank (TVM's
//     TryTransformLike and TransformHelper): a conv2d's rank-1 `add` bias
//     becomes (1, 1, 1, C) in NHWC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

// One entry of TVM's desired_layouts map that gives its op a layout of its
// own: {op: [data, kernel]}.
struct OpLayout {
  std::string op;
  std::string data;
  // A convolution's kernel layout ("default": TVM's per-op default); the
  // other ops take no kernel layout (TVM's functions read only the data
  // layout, roi_align / roi_pool require "default" for their rois).
  std::string kernel = "default";
  // Whether the entry named its kernel layout (op:data:kernel), so that the
  // pass prints back as it was written.
  bool kernel_given = false;
};

// TVM's desired layouts: one [data, kernel] pair for every op in `ops`,
// and the entries of `per_op` each with their own.
struct DesiredLayout {
  std::string data;                // e.g. "NHWC" ("NDHWC" for nn.conv3d)
  std::string kernel = "default";  // the kernel layout; "default": each op's TVM default
  // The kernel layout of a depthwise conv2d when it differs from `kernel`
  // (ACL's optimize hook asks OHWI, and IHWO for depthwise); "" = `kernel`.
  std::string depthwise_kernel;
  // The ops converted (TVM's desired_layouts keys), each an op with the
  // conv layout rule; others keep their layout and their inputs are
  // transformed back to it. Empty: no op is converted (AlterOpLayout with
  // no target-specific alteration, passes/layout/alter_op_layout.h).
  std::vector<std::string> ops = {"nn.conv2d"};
  // Ops with a layout of their own (TVM's map with different layouts per
  // op, e.g. {"nn.conv2d": ["NCHW", "OIHW"], "nn.max_pool2d": ["NHWC"]}),
  // none of them also in `ops`.
  std::vector<OpLayout> per_op = {};
  // TVM's LayoutConfig(skip_layers): the listed nn.conv2d calls, numbered
  // from 0 in the order the pass reaches them (post-order), keep their
  // layouts.
  std::vector<int64_t> skip_layers = {};
};

// "op:data" or "op:data:kernel" (the pass's `layouts` argument).
absl::StatusOr<OpLayout> ParseOpLayout(std::string_view entry);

// The pass as pipeline text, e.g. `ConvertLayout(NHWC)` or
// `ConvertLayout(layouts=[nn.max_pool2d:NHWC])`: the global layouts only
// when set, arguments at their defaults left out.
std::string DescribeConvertLayout(const DesiredLayout& desired);

// A non-negative layer number (the pass's `skip_layers` argument).
absl::StatusOr<int64_t> ParseSkipLayer(std::string_view text);

// `canonicalize`: run CanonicalizeOps first (TVM's ConvertLayout requires it;
// AlterOpLayout does not).
absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired, Arena* arena,
                                                      bool canonicalize = true);

// InvalidArgument for an op TVM has no convert function for (or one whose
// conversion TVM never applies: qnn.avg_pool2d, nn.deformable_conv2d), an
// op listed twice, a data layout that is not a layout of the op's data
// axes (or, with kernel "default", not one TVM's function knows), a kernel
// layout that is not a layout of the op's kernel axes, and a kernel layout
// other than "default" for an op without a kernel.
absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired);

}  // namespace carve
