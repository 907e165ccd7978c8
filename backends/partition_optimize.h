// The per-partition optimize hooks (BackendDescriptor::optimize, TVM's
// `relay.ext.<compiler>.optimize`), as one step that runs right after
// PartitionGraph.
//
// TVM's PartitionGraph calls the hook while it builds each partition: on a
// module whose main is the region's function, constants bound, before the
// function gets its Compiler / Primitive / global_symbol attributes (so
// FoldConstant folds inside it), then keeps the hook's main. This step does
// the same to every global function whose Compiler attribute names a
// backend with a hook: the function without attributes goes through the
// hook's pipeline, gated by the flow's pass context, and gets its
// attributes back.
#pragma once

#include <vector>

#include "passes/byoc/target.h"
#include "passes/pass.h"
#include "passes/pass_gate.h"

namespace carve {

// The step for `backends` under `gate`, or nullptr when none has a hook.
PassPtr OptimizePartitions(const std::vector<TargetSpecPtr>& backends, const PassGate& gate);

}  // namespace carve
