// Steps of TVM's partition_for_<backend> recipes that carve's pass registry
// does not have, registered under TVM's names by the backends library (so
// recipes, `carve partition` and `carve opt -p` find them):
//   RemoveUnusedFunctions  drop the global functions @main does not reach
//                          (TensorRT's recipe; TVM's pass with its default
//                          entry list ["main"]);
//   DnnlRewrites           dnnl.py's rewrite_layer_norm, then
//                          rewrite_dense_bias_gelu_reshape_last, on @main
//                          (dnnl_rewrites.h).
// A pass of the same name already registered (a generic one in passes/) is
// kept.
#pragma once

#include "ir/module.h"
#include "passes/pass_registry.h"

namespace carve {

// Removes the functions @main cannot reach; false when nothing was removed
// or the module has no @main.
bool RemoveUnreachableFunctions(Module& mod);

void RegisterBackendPasses(PassRegistry& registry);

}  // namespace carve
