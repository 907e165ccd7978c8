// The one primitive every rewrite uses to rebuild a node over new children
// (ExprMutator, the pattern rebuilders, the PartitionGraph walks,
// MergeCompilerRegions): `e` with its children, in ForEachChild's order
// (ir/visit.h), replaced by `kids`.
//
// The new node keeps e's span, so diagnostics and the printer's span output
// still point at the source. It keeps e's checked type too (kKeep) when the
// caller re-links nodes without changing what they compute (partitioning,
// annotation removal, pattern rewrites that keep types): later passes then
// see a typed graph without a re-inference. A caller whose children may have
// changed type (a general ExprMutator) asks for kDrop, and InferType types
// the node again.
#pragma once

#include <span>

#include "absl/container/inlined_vector.h"
#include "ir/expr.h"
#include "ir/visit.h"

namespace carve {

enum class RebuildType { kKeep, kDrop };

// A function parameter or let variable whose new child is not a Var keeps
// the original variable. A function whose parameters are unchanged shares
// e's parameter arrays. Atoms are returned as they are.
const Expr* RebuildWithChildren(IRBuilder& builder, const Expr* e,
                                std::span<const Expr* const> kids,
                                RebuildType type = RebuildType::kKeep);

// `e` over map(child) for each of its children, or `e` itself when no child
// changed. A binder (function parameter, let variable) that maps to a
// non-variable counts as unchanged, as RebuildWithChildren keeps it.
template <typename Map>
const Expr* RebuildMapped(IRBuilder& builder, const Expr* e, Map&& map,
                          RebuildType type = RebuildType::kKeep) {
  size_t binders = e->kind() == ExprKind::kLet        ? 1
                   : e->kind() == ExprKind::kFunction ? Cast<Function>(e)->params().size()
                                                      : 0;
  absl::InlinedVector<const Expr*, 8> kids;
  bool changed = false;
  ForEachChild(e, [&](const Expr* c) {
    const Expr* m = map(c);
    if (kids.size() < binders && !Isa<Var>(m)) m = c;
    changed |= m != c;
    kids.push_back(m);
  });
  return changed ? RebuildWithChildren(builder, e, kids, type) : e;
}

}  // namespace carve
