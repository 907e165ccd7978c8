// Rebuilding one node with replaced children: the single mutation primitive
// the grouper-driven rewrites (partition.cc, rewrite.cc) share. Rebuilt
// nodes keep the original's span and checked type (partitioning and
// rewriting never change the type of a node they merely re-link), so later
// `check` callbacks and type constraints still see typed nodes without a
// whole-graph re-inference.
#pragma once

#include "absl/functional/function_ref.h"
#include "ir/expr.h"

namespace carve {

// `e` with every child c replaced by map(c); `e` itself when no child
// changes. Function params and let variables that map to a non-Var keep
// their original.
const Expr* RebuildNode(const Expr* e, absl::FunctionRef<const Expr*(const Expr*)> map,
                        IRBuilder& builder);

}  // namespace carve
