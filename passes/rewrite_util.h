// Small rewriting helpers shared by the passes (RebuildNode, the one-node
// rebuild primitive, lives in patterns/rebuild.h).
#pragma once

#include <utility>
#include <vector>

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

  // A let binding a pass keeps, with its (possibly rewritten) value.
  using KeptLet = std::pair<const Let*, const Expr*>;
  // Wraps `body` in the kept bindings of a let chain, outermost first in
  // `kept`, iteratively; a binding whose value and body are unchanged is
  // reused, so an untouched chain stays the same node.
  const Expr* RewrapLetChain(const std::vector<KeptLet>& kept, const Expr* body);
};

}  // namespace carve
