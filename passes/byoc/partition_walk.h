// Pieces the PartitionGraph walks share (partition_graph.cc,
// partition_prep.cc): a node rebuilt over children the walk already holds.
#pragma once

#include <span>

#include "ir/expr.h"

namespace carve {

// `e` over the rewritten children `kids`, given in ForEachChild's order
// (ir/visit.h). Function parameters and let variables keep the original
// (variables rewrite to themselves in these walks). The new node takes e's
// checked type. Call only when some child changed.
const Expr* RebuildOverChildren(IRBuilder& builder, const Expr* e,
                                std::span<const Expr* const> kids);

}  // namespace carve
