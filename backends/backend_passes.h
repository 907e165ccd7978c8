// Steps of TVM's partition_for_<backend> recipes that carve's pass registry
// does not have, registered under TVM's names by the backends library (so
// recipes, `carve partition` and `carve opt -p` find them):
//   RemoveUnusedFunctions  drop the global functions @main does not reach
//                          (TensorRT's recipe; TVM's pass with its default
//                          entry list ["main"]).
// A backend's own steps (dnnl's DnnlRewrites) are registered by its
// descriptor (backend.h, `register_passes`). A pass of the same name already
// registered (a generic one in passes/) is kept.
#pragma once

#include <string>

#include "ir/module.h"
#include "passes/pass_registry.h"

namespace carve {

// Removes the functions @main cannot reach; false when nothing was removed
// or the module has no @main.
bool RemoveUnreachableFunctions(Module& mod);

// Registers RemoveUnusedFunctions in `registry` unless it has one.
void RegisterBackendPasses(PassRegistry& registry);

// A module pass without arguments, for backends' register_passes hooks.
PassInfo MakeSimplePass(std::string name, std::string summary, ModuleTransform fn);

}  // namespace carve
