// A node's children as IndexedGraph numbers them (TVM's IndexedGraph visit
// order), one at a time: how many, the k-th, and whether it is a dataflow
// input of its parent. Private to patterns/graph*.cc; inline because the
// builds call them once per edge of million-node graphs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/adt.h"
#include "ir/expr.h"

namespace carve::graph_internal {

inline size_t NumChildren(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kCall:
      return 1 + Cast<Call>(e)->args().size();
    case ExprKind::kTuple:
      return Cast<Tuple>(e)->fields().size();
    case ExprKind::kTupleGetItem:
    case ExprKind::kRefCreate:
    case ExprKind::kRefRead:
      return 1;
    case ExprKind::kRefWrite:
      return 2;
    case ExprKind::kMatch:  // the scrutinee, then each clause's right-hand side
      return 1 + Cast<Match>(e)->clauses().size();
    case ExprKind::kIf:
    case ExprKind::kLet:
      return 3;
    case ExprKind::kFunction:
      return Cast<Function>(e)->params().size() + 1;
    default:
      return 0;
  }
}

inline size_t NumParams(const Expr* e) {
  const auto* fn = DynCast<Function>(e);
  return fn == nullptr ? 0 : fn->params().size();
}

inline const Expr* ChildAt(const Expr* e, size_t k) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      const auto* c = Cast<Call>(e);
      return k == 0 ? c->callee() : c->args()[k - 1];
    }
    case ExprKind::kTuple:
      return Cast<Tuple>(e)->fields()[k];
    case ExprKind::kTupleGetItem:
      return Cast<TupleGetItem>(e)->tuple();
    case ExprKind::kRefCreate:
      return Cast<RefCreate>(e)->value();
    case ExprKind::kRefRead:
      return Cast<RefRead>(e)->ref();
    case ExprKind::kRefWrite: {
      const auto* w = Cast<RefWrite>(e);
      return k == 0 ? w->ref() : w->value();
    }
    case ExprKind::kMatch: {
      const auto* m = Cast<Match>(e);
      return k == 0 ? m->data() : m->clauses()[k - 1].rhs;
    }
    case ExprKind::kIf: {
      const auto* i = Cast<If>(e);
      return k == 0 ? i->cond() : k == 1 ? i->then_branch() : i->else_branch();
    }
    case ExprKind::kFunction: {
      const auto* f = Cast<Function>(e);
      return k < f->params().size() ? f->params()[k] : f->body();
    }
    case ExprKind::kLet: {
      const auto* l = Cast<Let>(e);
      return k == 0 ? l->value() : k == 1 ? l->var() : l->body();
    }
    default:
      return nullptr;
  }
}

// A function's parameters and a let's variable and value are children but
// not inputs: TVM's graph gives a function only its body as input and a let
// only its body (the variable's input is the value).
inline bool IsInputChild(const Expr* e, size_t k) {
  switch (e->kind()) {
    case ExprKind::kFunction:
      return k == Cast<Function>(e)->params().size();
    case ExprKind::kLet:
      return k == 2;
    default:
      return true;
  }
}

// Tracks the variables of the lets whose values are being visited: an
// occurrence of one inside its own value (a recursive function) is no node
// and no edge, so that the graph stays acyclic.
class LetVarsInProgress {
 public:
  // Called as a let's child `k` is visited: its variable is in progress
  // while its value (child 0) is.
  void Visiting(const Let* let, size_t k) {
    if (let == nullptr) return;
    if (k == 0) vars_.push_back(let->var());
    if (k == 1) vars_.pop_back();
  }
  bool IsRecursiveReference(const Expr* kid) const {
    const auto* v = DynCast<Var>(kid);
    return v != nullptr && std::find(vars_.begin(), vars_.end(), v) != vars_.end();
  }

 private:
  std::vector<const Var*> vars_;
};

}  // namespace carve::graph_internal
