// The nnapi backend's static-cost annotator.
//
// The NNAPI RFC (seeds/nnapi-rfc.txt, "The Partitioner (Annotate)") lists,
// as its first option instead of on-device RPC profiling, "a heuristic
// static/calculated cost". It gives no formula, no op list and no
// threshold; this is carve's: the cost of a partition is the floating-point
// work its ops do, computed from the static shapes of the typed Relay body
// (composite bodies included), and a partition whose cost is below a
// minimum stays on the host (PruneNnapiSubgraphs below inlines it back, as
// prune_dnnl_subgraphs does). Per op, with `out` the number of output
// elements:
//
//   nn.conv2d           2 * out * (C_in / groups) * KH * KW   (= 2 * out * |weight| / C_out)
//   nn.dense            2 * out * K                           (K = the input's last dim)
//   nn.max/avg_pool2d   out * pool_h * pool_w
//   nn.softmax          3 * out                               (exp, sum, divide)
//   reshape, squeeze, expand_dims, layout-only ops            0
//   every other op      out                                   (add, bias_add, relu, clip, ...)
//
// Partitions need static shapes; a partition with an unknown dimension
// gets cost 0 and stays on the host.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "ir/expr.h"
#include "ir/module.h"

namespace carve {

// The default minimum cost of an offloaded nnapi partition, in FLOPs. A low
// bar chosen by carve (not measured on a device): an add + relu over 512
// elements (1024 FLOPs) or a 16 -> 4 dense layer (128) stay on the host; a
// 3x3 convolution from 3 to 8 channels over 16x16 (110592) is offloaded.
inline constexpr int64_t kNnapiDefaultMinFlops = 4096;

// The environment variable that overrides the minimum (a non-negative
// integer; 0 offloads every partition).
inline constexpr char kNnapiMinFlopsEnv[] = "CARVE_NNAPI_MIN_FLOPS";

// The cost of one typed op call by the table above (0 for non-op calls and
// unknown shapes).
int64_t NnapiOpFlops(const Call* call);

// The cost of a typed function: the sum over every op call of its body,
// composite bodies included.
int64_t NnapiStaticCost(const Function* fn);

// kNnapiDefaultMinFlops, or $CARVE_NNAPI_MIN_FLOPS when set; InvalidArgument
// when the variable is not a non-negative integer.
absl::StatusOr<int64_t> NnapiMinOffloadFlops();

// The nnapi backend's pruning step (nnapi_backend.cc): inlines back the nnapi
// partitions whose NnapiStaticCost is below `min_flops`, appending each to
// `log` (when not null) with its cost and the minimum; returns whether it
// inlined one.
absl::StatusOr<bool> PruneNnapiSubgraphs(Module& mod, int64_t min_flops,
                                         PruneLog* log = nullptr);

}  // namespace carve
