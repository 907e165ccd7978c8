// Small rewriting helpers shared by the passes.
#pragma once

#include "absl/functional/function_ref.h"
#include "ir/expr.h"
#include "ir/visit.h"

namespace carve {

// `e` with each child c replaced by `mutated(c)`; `e` itself when nothing
// changed. A new node takes e's checked type (callers use it for rewrites
// that do not change types).
const Expr* RebuildNode(IRBuilder& builder, const Expr* e,
                        absl::FunctionRef<const Expr*(const Expr*)> mutated);

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
