// The dnnl backend's pruning step (dnnl_backend.cc).
#pragma once

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "ir/module.h"

namespace carve {

// TVM's prune_dnnl_subgraphs: when the module holds more than one partition,
// the dnnl partitions without a compute op (conv*, conv*_transpose, dense,
// layer_norm, batch_matmul, global_avg_pool2d) are inlined back into @main.
// Appends each to `log` (when not null) with the rule and the number of
// partitions. Returns whether the module changed.
absl::StatusOr<bool> PruneDnnlSubgraphs(Module& mod, PruneLog* log = nullptr);

}  // namespace carve
