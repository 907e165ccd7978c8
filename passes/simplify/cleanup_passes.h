// Small graph clean-ups that backend pipelines run before partitioning
// (tvm-reference 3.6, 4.x):
//   - RemoveDropout (TVM's SimplifyInference, dropout part; TensorRT and CLML
//     pipelines): `nn.dropout(x).0` becomes `x`.
//   - CanonicalizeOps (run before the DNNL patterns): `nn.bias_add(x, b,
//     axis=a)` becomes `add(x, expand_dims(b, axis=1, num_newaxis=rank-a-1))`
//     (no expand_dims when a is the last axis).
//   - DeadCodeElimination: drops `let` bindings whose variable is never used
//     (values with a stateful op are kept unless ignore_impurity); with
//     inline_once, a binding used exactly once is inlined at its use (TVM
//     does so for impure values too). Dataflow nodes nobody uses do not exist
//     in a graph, so lets are all there is.
// Each is a function pass followed by one InferType, like TVM's.
#pragma once

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

absl::StatusOr<const Function*> RemoveDropoutFunction(const Function* fn, Arena* arena);
PassPtr RemoveDropout();

// `fn` must be typed (the bias_add's input rank is read from its type).
absl::StatusOr<const Function*> CanonicalizeOpsFunction(const Function* fn, Arena* arena);
PassPtr CanonicalizeOps();

absl::StatusOr<const Function*> DeadCodeEliminationFunction(const Function* fn,
                                                            bool ignore_impurity, Arena* arena,
                                                            bool inline_once = false,
                                                            const Module* mod = nullptr);
PassPtr DeadCodeElimination(bool ignore_impurity = false, bool inline_once = false);

}  // namespace carve
