// The tensorrt backend's pruning step (tensorrt_backend.cc).
#pragma once

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "ir/module.h"

namespace carve {

// TVM's prune_tensorrt_subgraphs in implicit batch mode: inlines back the
// tensorrt partitions with a scalar input or inputs of different batch
// sizes, appending each to `log` (when not null) with the input or the batch
// sizes. Returns whether it inlined one.
absl::StatusOr<bool> PruneTensorRtSubgraphs(Module& mod, PruneLog* log = nullptr);

}  // namespace carve
