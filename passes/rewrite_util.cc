#include "passes/rewrite_util.h"

#include <vector>

namespace carve {
namespace {

const Expr* RebuildChanged(IRBuilder& b, const Expr* e,
                           absl::FunctionRef<const Expr*(const Expr*)> mutated) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      auto* c = Cast<Call>(e);
      const Expr* callee = mutated(c->callee());
      bool changed = callee != c->callee();
      std::vector<const Expr*> args;
      args.reserve(c->args().size());
      for (const Expr* a : c->args()) {
        args.push_back(mutated(a));
        changed |= args.back() != a;
      }
      return changed ? b.MakeCall(callee, args, c->attrs(), c->span()) : e;
    }
    case ExprKind::kTuple: {
      auto* t = Cast<Tuple>(e);
      std::vector<const Expr*> fields;
      bool changed = false;
      for (const Expr* f : t->fields()) {
        fields.push_back(mutated(f));
        changed |= fields.back() != f;
      }
      return changed ? b.MakeTuple(fields, t->span()) : e;
    }
    case ExprKind::kTupleGetItem: {
      auto* g = Cast<TupleGetItem>(e);
      const Expr* t = mutated(g->tuple());
      return t != g->tuple() ? b.MakeTupleGetItem(t, g->index(), g->span()) : e;
    }
    case ExprKind::kLet: {
      auto* l = Cast<Let>(e);
      const Var* var = DynCast<Var>(mutated(l->var()));
      if (var == nullptr) var = l->var();
      const Expr* value = mutated(l->value());
      const Expr* body = mutated(l->body());
      if (var == l->var() && value == l->value() && body == l->body()) return e;
      return b.MakeLet(var, value, body, l->span());
    }
    case ExprKind::kIf: {
      auto* i = Cast<If>(e);
      const Expr* c = mutated(i->cond());
      const Expr* t = mutated(i->then_branch());
      const Expr* f = mutated(i->else_branch());
      if (c == i->cond() && t == i->then_branch() && f == i->else_branch()) return e;
      return b.MakeIf(c, t, f, i->span());
    }
    case ExprKind::kFunction: {
      auto* fn = Cast<Function>(e);
      std::vector<const Var*> params;
      bool changed = false;
      for (const Var* p : fn->params()) {
        const Var* np = DynCast<Var>(mutated(p));
        if (np == nullptr) np = p;
        params.push_back(np);
        changed |= np != p;
      }
      const Expr* body = mutated(fn->body());
      if (!changed && body == fn->body()) return e;
      return b.MakeFunction(params, body, fn->ret_type(), fn->attrs(), fn->type_params(),
                            fn->span());
    }
    default:
      return e;
  }
}

}  // namespace

const Expr* RebuildNode(IRBuilder& builder, const Expr* e,
                        absl::FunctionRef<const Expr*(const Expr*)> mutated) {
  const Expr* out = RebuildChanged(builder, e, mutated);
  if (out != e && out->checked_type() == nullptr) out->set_checked_type(e->checked_type());
  return out;
}

const Expr* TypedMutator::RebuildTyped(const Expr* e) {
  const Expr* out = Rebuild(e);
  if (out != e && out->checked_type() == nullptr) out->set_checked_type(e->checked_type());
  return out;
}

}  // namespace carve
