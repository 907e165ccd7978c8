// What a node's value depends on, for the region analyses (merging, cycle
// checks): the operands of a call (not a function-literal callee: building a
// closure computes nothing), fields, the projected tuple, the parts of an
// if, a let's body, and, for a let-bound variable, the let's value. Function
// literals depend on nothing.
#pragma once

#include "absl/container/flat_hash_map.h"
#include "ir/expr.h"
#include "ir/visit.h"

namespace carve {

// The values bound by the lets seen so far.
class LetBindings {
 public:
  void Record(const Let* let) { value_of_[let->var()] = let->value(); }
  bool empty() const { return value_of_.empty(); }
  // The value bound to `var`, or nullptr for parameters and free variables.
  const Expr* ValueOf(const Var* var) const {
    auto it = value_of_.find(var);
    return it == value_of_.end() ? nullptr : it->second;
  }

 private:
  absl::flat_hash_map<const Var*, const Expr*> value_of_;
};

// Calls `f(d)` for each dependency d of `e`.
template <typename F>
void ForEachDependency(const Expr* e, const LetBindings& lets, F&& f) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      auto* call = Cast<Call>(e);
      if (!Isa<Function>(call->callee())) f(call->callee());
      for (const Expr* a : call->args()) f(a);
      return;
    }
    case ExprKind::kVar:
      if (const Expr* value = lets.ValueOf(Cast<Var>(e))) f(value);
      return;
    case ExprKind::kLet:
      f(Cast<Let>(e)->body());
      return;
    case ExprKind::kFunction:
      return;
    default:
      ForEachChild(e, f);
  }
}

}  // namespace carve
