// Small rewriting helpers shared by the passes (RebuildNode, the one-node
// rebuild primitive, lives in patterns/rebuild.h).
#pragma once

#include "ir/expr.h"
#include "ir/visit.h"

namespace carve {

// An ExprMutator whose rebuilt nodes keep the checked type of the node they
// replace, so a pass that does not change types leaves a typed graph typed.
class TypedMutator : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override { return RebuildTyped(e); }
  // Rebuild(e), with e's checked type on a new node.
  const Expr* RebuildTyped(const Expr* e);
};

}  // namespace carve
