// FoldScaleAxis (TVM's src/relay/transforms/fold_scale_axis.cc): moves a
// per-channel `multiply` into the weight of the convolution or dense next to
// it. TVM's FoldScaleAxis is Sequential(BackwardFoldScaleAxis,
// ForwardFoldScaleAxis, FoldConstant); carve registers the two folds and a
// pipeline spells out the FoldConstant.
//
// Backward: `multiply(P, s)` where P is a conv2d / conv3d / dense, possibly
// behind relu / leaky_relu (s must then be a non-negative constant), add /
// subtract of a channel vector or of two such producers, or bias_add, each
// used once, and s broadcasts along P's channel axis only: the multiply
// disappears, each producer's weight becomes `multiply(w, expand_dims(s'))`
// (s' = s squeezed to the channel axis, a scalar s expanded and repeated)
// and each added vector is multiplied by s' too.
// Forward: `multiply(x, s)` feeding (through relu / leaky_relu, add /
// subtract of a channel vector) only conv2d / conv3d / dense data inputs:
// the multiply disappears, each consumer's weight is multiplied by s' along
// its input-channel axis and each added vector is divided by it.
//
// Exactly as TVM builds them, for simple layouts (NCHW / NHWC data, OIHW /
// HWIO / ... kernels) and blocked ones (NCHW16c data with OIHW16i16o
// kernels: the scale runs along C and c and is reshaped, not expanded,
// TVM's ReshapeToMatchAxis), with groups == 1 or depthwise. Where TVM would
// abort on an outstanding scale, carve leaves the function unchanged.
#pragma once

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

absl::StatusOr<const Function*> BackwardFoldScaleAxisFunction(const Function* fn, Arena* arena);
absl::StatusOr<const Function*> ForwardFoldScaleAxisFunction(const Function* fn, Arena* arena);
PassPtr BackwardFoldScaleAxis();
PassPtr ForwardFoldScaleAxis();

}  // namespace carve
