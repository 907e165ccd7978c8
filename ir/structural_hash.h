// A structural hash consistent with StructuralEqual (default options): equal
// expressions hash equal, whatever their variable names. Variables hash by the
// order in which a traversal first meets them (binding sites come before uses),
// so alpha-renaming does not change the hash.
//
// The hash does not distinguish a DAG from the tree it unfolds to (the two are
// unequal, see ir/structural_equal.h; they merely collide). Values are stable
// within a process, not across processes (absl::Hash is seeded per process).
// Iterative and linear in the number of distinct nodes.
#pragma once

#include <cstddef>

#include "ir/expr.h"
#include "ir/module.h"

namespace carve {

size_t StructuralHash(const Expr* e);

// Combines the hashes of every function with its global name.
size_t StructuralHash(const Module& mod);

}  // namespace carve
