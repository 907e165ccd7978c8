// ConvertLayout (TVM v0.16 src/relay/transforms/convert_layout.cc, for the
// ops backends ask for): moves nn.conv2d and the 2-d pools (max, avg, global
// max, global avg) to a desired data layout, NCHW <-> NHWC.
//
//   1. Each such op whose layout differs gets layout_transform on its data
//      input (and on the conv kernel, to the desired kernel layout), its
//      layout attributes rewritten, and a layout_transform back on its
//      result, so consumers are unchanged.
//   2. Rules (patterns/rewrite.h, to a fixpoint) then move the transforms
//      out of the way, as TVM's layout inference does:
//        op(layout_transform(x, A->B)) -> layout_transform(op(x), A->B)
//          for unary elementwise ops;
//        bias_add(layout_transform(x, A->B), b, axis) ->
//          layout_transform(bias_add(x, b, axis in A), A->B);
//        binop(layout_transform(x, A->B), layout_transform(y, A->B)) and
//        binop(layout_transform(x, A->B), scalar) -> layout_transform(binop(..))
//          for broadcast binary ops;
//        layout_transform(layout_transform(x, A->B), B->A) -> x.
// A chain conv -> relu -> conv in NCHW becomes NHWC end to end with one
// transform in and one out (kernels transformed; FoldConstant folds constant
// ones).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

struct DesiredLayout {
  std::string data;                // "NHWC" or "NCHW"
  std::string kernel = "default";  // conv2d kernel layout; default: HWIO for NHWC, OIHW for NCHW
};

absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired, Arena* arena);

// InvalidArgument for layouts other than NCHW / NHWC (data) and a 4-d kernel
// layout of O, I, H, W.
absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired);

}  // namespace carve
