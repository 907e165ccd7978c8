// Which preparation pass made a node disappear. `carve why FILE --backend B
// --at %N` looks the node up in the partitioned module by its source span;
// when no node with that span is left, a preparation pass folded it into a
// constant (FoldConstant, FoldScaleAxis), simplified it away (SimplifyExpr,
// SimplifyInference) or rewrote it without keeping the span. This replays
// the backend's preparation pipeline pass by pass and names the first pass
// after which the node is gone, with the pass's own summary, instead of
// reporting the node as missing.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "passes/byoc/target.h"

namespace carve::cli {

// "folded, simplified or rewritten away by dnnl's preparation pass
// FoldConstant (step 4 of 12: <its summary>)", or "" when the node survives the preparation (then it was
// removed later, by partitioning). `input` is the typed module `node`
// belongs to (same spans as the module that was partitioned).
absl::StatusOr<std::string> RemovingPass(const Module& input, const Expr* node,
                                         const TargetSpec& spec);

}  // namespace carve::cli
