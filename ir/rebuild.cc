#include "ir/rebuild.h"

#include "ir/adt.h"

#include <vector>

namespace carve {
namespace {

const Var* AsVar(const Expr* kid, const Var* original) {
  const Var* v = DynCast<Var>(kid);
  return v != nullptr ? v : original;
}

const Function* RebuildFunction(IRBuilder& builder, const Function* fn,
                                std::span<const Expr* const> kids) {
  std::span<const Var* const> old_params = fn->params();
  size_t first = 0;  // the first changed parameter (usually none: no copy)
  while (first < old_params.size() && AsVar(kids[first], old_params[first]) == old_params[first]) {
    ++first;
  }
  const Expr* body = kids.back();
  if (first == old_params.size()) {
    return builder.MakeFunctionWithParamsOf(fn, body, fn->ret_type(), fn->attrs(), fn->span());
  }
  std::vector<const Var*> params(old_params.begin(), old_params.end());
  for (size_t i = first; i < params.size(); ++i) params[i] = AsVar(kids[i], params[i]);
  return builder.MakeFunction(params, body, fn->ret_type(), fn->attrs(), fn->type_params(),
                              fn->span(), fn->virtual_device());
}

}  // namespace

const Expr* RebuildWithChildren(IRBuilder& builder, const Expr* e,
                                std::span<const Expr* const> kids, RebuildType type) {
  const Expr* out = nullptr;
  switch (e->kind()) {
    case ExprKind::kCall:
      out = builder.MakeCall(kids[0], kids.subspan(1), Cast<Call>(e)->attrs(), e->span());
      break;
    case ExprKind::kTuple:
      out = builder.MakeTuple(kids, e->span());
      break;
    case ExprKind::kTupleGetItem:
      out = builder.MakeTupleGetItem(kids[0], Cast<TupleGetItem>(e)->index(), e->span());
      break;
    case ExprKind::kLet: {
      const auto* let = Cast<Let>(e);
      out = builder.MakeLet(AsVar(kids[0], let->var()), kids[1], kids[2], e->span());
      break;
    }
    case ExprKind::kIf:
      out = builder.MakeIf(kids[0], kids[1], kids[2], e->span());
      break;
    case ExprKind::kFunction:
      out = RebuildFunction(builder, Cast<Function>(e), kids);
      break;
    case ExprKind::kRefCreate:
      out = builder.MakeRefCreate(kids[0], e->span());
      break;
    case ExprKind::kRefRead:
      out = builder.MakeRefRead(kids[0], e->span());
      break;
    case ExprKind::kRefWrite:
      out = builder.MakeRefWrite(kids[0], kids[1], e->span());
      break;
    case ExprKind::kMatch: {  // same patterns, new scrutinee and right-hand sides
      const auto* match = Cast<Match>(e);
      std::vector<Clause> clauses(match->clauses().begin(), match->clauses().end());
      for (size_t k = 0; k < clauses.size(); ++k) clauses[k].rhs = kids[k + 1];
      out = MakeMatch(builder.arena(), kids[0], clauses, match->complete(), e->span());
      break;
    }
    default:
      return e;
  }
  if (type == RebuildType::kKeep) out->set_checked_type(e->checked_type());
  return out;
}

}  // namespace carve
