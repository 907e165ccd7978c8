#include "patterns/rebuild.h"

#include <vector>

namespace carve {
namespace {

const Var* MapVar(const Var* v, absl::FunctionRef<const Expr*(const Expr*)> map) {
  const Var* mapped = DynCast<Var>(map(v));
  return mapped != nullptr ? mapped : v;
}

const Expr* RebuildChanged(const Expr* e, absl::FunctionRef<const Expr*(const Expr*)> map,
                           IRBuilder& b, bool& changed) {
  auto m = [&](const Expr* c) {
    const Expr* r = map(c);
    changed |= r != c;
    return r;
  };
  switch (e->kind()) {
    case ExprKind::kCall: {
      const auto* c = Cast<Call>(e);
      const Expr* callee = m(c->callee());
      std::vector<const Expr*> args;
      args.reserve(c->args().size());
      for (const Expr* a : c->args()) args.push_back(m(a));
      return changed ? b.MakeCall(callee, args, c->attrs(), c->span()) : e;
    }
    case ExprKind::kTuple: {
      std::vector<const Expr*> fields;
      for (const Expr* f : Cast<Tuple>(e)->fields()) fields.push_back(m(f));
      return changed ? b.MakeTuple(fields, e->span()) : e;
    }
    case ExprKind::kTupleGetItem: {
      const auto* g = Cast<TupleGetItem>(e);
      const Expr* t = m(g->tuple());
      return changed ? b.MakeTupleGetItem(t, g->index(), g->span()) : e;
    }
    case ExprKind::kLet: {
      const auto* l = Cast<Let>(e);
      const Var* var = MapVar(l->var(), map);
      changed |= var != l->var();
      const Expr* value = m(l->value());
      const Expr* body = m(l->body());
      return changed ? b.MakeLet(var, value, body, l->span()) : e;
    }
    case ExprKind::kIf: {
      const auto* i = Cast<If>(e);
      const Expr* c = m(i->cond());
      const Expr* t = m(i->then_branch());
      const Expr* f = m(i->else_branch());
      return changed ? b.MakeIf(c, t, f, i->span()) : e;
    }
    case ExprKind::kFunction: {
      const auto* fn = Cast<Function>(e);
      std::vector<const Var*> params;
      for (const Var* p : fn->params()) {
        params.push_back(MapVar(p, map));
        changed |= params.back() != p;
      }
      const Expr* body = m(fn->body());
      return changed ? b.MakeFunction(params, body, fn->ret_type(), fn->attrs(), fn->type_params(),
                                      fn->span())
                     : e;
    }
    default: return e;
  }
}

}  // namespace

const Expr* RebuildNode(const Expr* e, absl::FunctionRef<const Expr*(const Expr*)> map,
                        IRBuilder& builder) {
  bool changed = false;
  const Expr* out = RebuildChanged(e, map, builder, changed);
  if (out != e) out->set_checked_type(e->checked_type());
  return out;
}

}  // namespace carve
