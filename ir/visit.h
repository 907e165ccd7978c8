// Traversals. All of them are iterative (explicit stacks), so a chain of a
// million nodes cannot overflow the C++ stack, and all of them visit each
// node of a DAG once.
#pragma once

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "ir/address_map.h"
#include "ir/adt.h"
#include "ir/expr.h"

namespace carve {

// Calls `f(child)` for each direct child of `e`, in evaluation order:
// call: callee then args; tuple: fields; projection: tuple; let: var, value,
// body; if: cond, then, else; function: params, body; ref_write: ref, value.
// Atoms have none.
template <typename F>
void ForEachChild(const Expr* e, F&& f) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      auto* c = Cast<Call>(e);
      f(c->callee());
      for (const Expr* a : c->args()) f(a);
      return;
    }
    case ExprKind::kTuple:
      for (const Expr* x : Cast<Tuple>(e)->fields()) f(x);
      return;
    case ExprKind::kTupleGetItem:
      f(Cast<TupleGetItem>(e)->tuple());
      return;
    case ExprKind::kLet: {
      auto* l = Cast<Let>(e);
      f(static_cast<const Expr*>(l->var()));
      f(l->value());
      f(l->body());
      return;
    }
    case ExprKind::kIf: {
      auto* i = Cast<If>(e);
      f(i->cond());
      f(i->then_branch());
      f(i->else_branch());
      return;
    }
    case ExprKind::kFunction: {
      auto* fn = Cast<Function>(e);
      for (const Var* p : fn->params()) f(static_cast<const Expr*>(p));
      f(fn->body());
      return;
    }
    // ---- References: the cell, then the value ----
    case ExprKind::kRefCreate:
      f(Cast<RefCreate>(e)->value());
      return;
    case ExprKind::kRefRead:
      f(Cast<RefRead>(e)->ref());
      return;
    case ExprKind::kRefWrite:
      f(Cast<RefWrite>(e)->ref());
      f(Cast<RefWrite>(e)->value());
      return;
    // ---- Match: the scrutinee, then each clause's right-hand side (the
    // variables its pattern binds are binders, reached through the clauses:
    // ForEachPatternVar in ir/adt.h) ----
    case ExprKind::kMatch:
      f(Cast<Match>(e)->data());
      for (const Clause& clause : Cast<Match>(e)->clauses()) f(clause.rhs);
      return;
    default:
      return;
  }
}

// Number of direct children (see ForEachChild).
size_t NumChildren(const Expr* e);

// Visits every node reachable from `root` once, children before parents.
void PostOrderVisit(const Expr* root, absl::FunctionRef<void(const Expr*)> f);
// The post-order as a list.
std::vector<const Expr*> PostOrder(const Expr* root);

// Rebuilds an expression bottom-up. Subclasses override Rewrite (called once
// per node after its children were mutated) and may stop the descent into a
// node with VisitChildren. The default Rewrite rebuilds a node only when one
// of its children changed, so an identity mutator returns the input pointer.
class ExprMutator {
 public:
  explicit ExprMutator(Arena* arena) : builder_(arena) {}
  virtual ~ExprMutator() = default;

  const Expr* Mutate(const Expr* root);

 protected:
  // Whether to mutate `e`'s children before Rewrite(e). When false, Mutated()
  // returns the children unchanged.
  virtual bool VisitChildren(const Expr* e) { return true; }
  virtual const Expr* Rewrite(const Expr* e) { return Rebuild(e); }

  // The mutated version of an already visited child (itself if unvisited).
  const Expr* Mutated(const Expr* original) const;
  // `e` with its children replaced by their mutated versions (e itself when
  // none changed).
  const Expr* Rebuild(const Expr* e);
  IRBuilder& builder() { return builder_; }

 private:
  IRBuilder builder_;
  AddressMap<const Expr*> memo_;
};

}  // namespace carve
