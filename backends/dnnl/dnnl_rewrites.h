// The graph rewrites TVM's DNNL flow runs between its preparation passes and
// MergeComposite (test_dnnl.py's partition_for_dnnl, from dnnl.py):
//   rewrite_layer_norm: mean / subtract / [cast] / power 2 / mean (or
//     variance) / add eps / sqrt + divide (or rsqrt + multiply) / multiply
//     gamma / add beta -> nn.layer_norm(data, gamma, beta) with the op's
//     default attributes (axis -1, epsilon 1e-5 whatever eps matched);
//   rewrite_dense_bias_gelu_reshape_last: dense -> reshape -> add(bias, .)
//     [-> erf GELU] becomes dense -> add(bias, .) [-> GELU] -> reshape, so
//     the dnnl.dense_bias[_gelu] composites can match.
// Both rewrite @main only, as TVM's do (mod["main"] = rewrite(...)).
// legalize_qnn_for_dnnl is not implemented (see docs/backends.md).
#pragma once

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace carve {

// Runs both rewrites on @main, in TVM's order, and re-types the module.
// Returns whether @main changed.
absl::StatusOr<bool> RunDnnlRewrites(Module& mod);

}  // namespace carve
