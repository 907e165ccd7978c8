#include "ir/visit.h"

#include <span>

#include "absl/container/inlined_vector.h"

namespace carve {

size_t NumChildren(const Expr* e) {
  size_t n = 0;
  ForEachChild(e, [&n](const Expr*) { ++n; });
  return n;
}

void PostOrderVisit(const Expr* root, absl::FunctionRef<void(const Expr*)> f) {
  // done: 1 once expanded (children pushed), 2 once visited.
  AddressMap<uint8_t> state;
  std::vector<const Expr*> stack;
  stack.push_back(root);
  std::vector<const Expr*> kids;
  while (!stack.empty()) {
    const Expr* e = stack.back();
    auto [st, inserted] = state.TryEmplace(e, 1);
    if (!inserted) {
      stack.pop_back();
      if (*st == 1) {
        *st = 2;
        f(e);
      }
      continue;
    }
    kids.clear();
    ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      if (!state.Contains(*it)) stack.push_back(*it);
    }
  }
}

std::vector<const Expr*> PostOrder(const Expr* root) {
  std::vector<const Expr*> out;
  PostOrderVisit(root, [&out](const Expr* e) { out.push_back(e); });
  return out;
}

const Expr* ExprMutator::Mutate(const Expr* root) {
  std::vector<std::pair<const Expr*, bool>> stack;
  stack.emplace_back(root, false);
  std::vector<const Expr*> kids;
  while (!stack.empty()) {
    auto& [e, expanded] = stack.back();
    if (expanded) {
      // Not memoized yet: it was not when expanded, and only its own
      // descendants ran since (the graph is acyclic).
      const Expr* node = e;
      stack.pop_back();
      const Expr* rewritten = Rewrite(node);
      memo_.TryEmplace(node, rewritten);
      continue;
    }
    if (memo_.Contains(e)) {  // pushed twice (a shared node), done since
      stack.pop_back();
      continue;
    }
    expanded = true;
    if (VisitChildren(e)) {
      kids.clear();
      ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        if (!memo_.Contains(*it)) stack.emplace_back(*it, false);
      }
    }
  }
  return *memo_.Find(root);
}

const Expr* ExprMutator::Mutated(const Expr* original) const {
  const Expr* const* m = memo_.Find(original);
  return m == nullptr ? original : *m;
}

const Expr* ExprMutator::Rebuild(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      auto* c = Cast<Call>(e);
      const Expr* callee = Mutated(c->callee());
      std::span<const Expr* const> old_args = c->args();
      // Most nodes of a walk are unchanged: look for a changed operand
      // before copying any (no allocation on the unchanged path).
      size_t first = 0;
      const Expr* first_new = nullptr;
      for (; first < old_args.size(); ++first) {
        first_new = Mutated(old_args[first]);
        if (first_new != old_args[first]) break;
      }
      if (callee == c->callee() && first == old_args.size()) return e;
      absl::InlinedVector<const Expr*, 8> args(old_args.begin(), old_args.end());
      if (first < args.size()) {
        args[first] = first_new;
        for (size_t i = first + 1; i < args.size(); ++i) args[i] = Mutated(args[i]);
      }
      return builder_.MakeCall(callee, args, c->attrs(), c->span());
    }
    case ExprKind::kTuple: {
      auto* t = Cast<Tuple>(e);
      std::span<const Expr* const> old_fields = t->fields();
      size_t first = 0;
      const Expr* first_new = nullptr;
      for (; first < old_fields.size(); ++first) {
        first_new = Mutated(old_fields[first]);
        if (first_new != old_fields[first]) break;
      }
      if (first == old_fields.size()) return e;
      absl::InlinedVector<const Expr*, 8> fields(old_fields.begin(), old_fields.end());
      fields[first] = first_new;
      for (size_t i = first + 1; i < fields.size(); ++i) fields[i] = Mutated(fields[i]);
      return builder_.MakeTuple(fields, t->span());
    }
    case ExprKind::kTupleGetItem: {
      auto* g = Cast<TupleGetItem>(e);
      const Expr* t = Mutated(g->tuple());
      if (t == g->tuple()) return e;
      return builder_.MakeTupleGetItem(t, g->index(), g->span());
    }
    case ExprKind::kLet: {
      auto* l = Cast<Let>(e);
      const Expr* var = Mutated(l->var());
      const Expr* value = Mutated(l->value());
      const Expr* body = Mutated(l->body());
      if (var == l->var() && value == l->value() && body == l->body()) return e;
      const Var* v = DynCast<Var>(var);
      if (v == nullptr) v = l->var();
      return builder_.MakeLet(v, value, body, l->span());
    }
    case ExprKind::kIf: {
      auto* i = Cast<If>(e);
      const Expr* c = Mutated(i->cond());
      const Expr* t = Mutated(i->then_branch());
      const Expr* f = Mutated(i->else_branch());
      if (c == i->cond() && t == i->then_branch() && f == i->else_branch()) return e;
      return builder_.MakeIf(c, t, f, i->span());
    }
    case ExprKind::kFunction: {
      auto* fn = Cast<Function>(e);
      auto mutated_param = [this](const Var* p) {
        const Var* np = DynCast<Var>(Mutated(p));
        return np == nullptr ? p : np;
      };
      // Parameters rarely change: look before copying the list.
      std::span<const Var* const> old_params = fn->params();
      size_t first = 0;
      while (first < old_params.size() && mutated_param(old_params[first]) == old_params[first]) {
        ++first;
      }
      const Expr* body = Mutated(fn->body());
      if (first == old_params.size()) {
        if (body == fn->body()) return e;
        return builder_.MakeFunctionWithParamsOf(fn, body, fn->ret_type(), fn->attrs(),
                                                 fn->span());
      }
      std::vector<const Var*> params(old_params.begin(), old_params.end());
      for (size_t i = first; i < params.size(); ++i) params[i] = mutated_param(params[i]);
      return builder_.MakeFunction(params, body, fn->ret_type(), fn->attrs(),
                                   fn->type_params(), fn->span());
    }
    // ---- References ----
    case ExprKind::kRefCreate: {
      auto* r = Cast<RefCreate>(e);
      const Expr* v = Mutated(r->value());
      return v == r->value() ? e : builder_.MakeRefCreate(v, r->span());
    }
    case ExprKind::kRefRead: {
      auto* r = Cast<RefRead>(e);
      const Expr* ref = Mutated(r->ref());
      return ref == r->ref() ? e : builder_.MakeRefRead(ref, r->span());
    }
    case ExprKind::kRefWrite: {
      auto* r = Cast<RefWrite>(e);
      const Expr* ref = Mutated(r->ref());
      const Expr* v = Mutated(r->value());
      if (ref == r->ref() && v == r->value()) return e;
      return builder_.MakeRefWrite(ref, v, r->span());
    }
    default:
      return e;
  }
}

}  // namespace carve
