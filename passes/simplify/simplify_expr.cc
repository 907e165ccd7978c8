#include "fmt/format.h"
#include "passes/simplify/simplify_expr.h"

#include <string>
#include <vector>

#include "passes/rewrite/rewrite_util.h"
#include "passes/simplify/simplify_expr_rules.h"
#include "support/status_macros.h"

namespace carve {
namespace simplify {

absl::StatusOr<const Expr*> TypedOpCall(IRBuilder& b, std::string_view op,
                                        std::span<const Expr* const> args, const Attrs* attrs) {
  const Call* call = b.MakeCall(GetOp(op), args, attrs);
  std::vector<const Type*> types;
  for (const Expr* arg : args) {
    if (arg->checked_type() == nullptr) {
      return absl::InternalError(fmt::format("SimplifyExpr: an argument of {} is untyped", op));
    }
    types.push_back(arg->checked_type());
  }
  absl::StatusOr<const Type*> type =
      call->op()->type_rel(TypeRelCall{call->op(), types, call->attrs()});
  if (!type.ok()) {
    return absl::InternalError(
        fmt::format("SimplifyExpr built an ill-typed {}: {}", op, std::string(type.status().message())));
  }
  call->set_checked_type(*type);
  return call;
}

const Expr* TypedScalar(IRBuilder& b, DataType dtype, double value) {
  const Constant* c = b.MakeScalar(dtype, value);
  c->set_checked_type(TensorTy(dtype, std::span<const Dim>{}));
  return c;
}

}  // namespace simplify

std::vector<RewriteRule> SimplifyExprRules() {
  using namespace simplify;  // NOLINT: the rule factories
  // TVM's order (SimplifyExpr in simplify_expr.cc); each round applies them
  // in turn, to a fixpoint.
  return {
      ConcretizeZerosLike(),
      ConcretizeOnesLike(),
      ConcretizeFullLike(),
      ConcretizeReshapeLike(),
      ConcretizeCollapseSumLike(),
      ConcretizeBroadcastToLike(),
      ConcretizeCastLike(),
      SimplifyAdd(),
      SimplifyRSqrt(),
      EliminateIdentity(),
      SimplifyReshape(),
      SimplifyTranspose(),
      SimplifyNoOpTranspose(),
      SimplifySameCast(),
      SimplifyConsecutiveCast(),
      FullElementwise(),
      SwitchAddMultiply(),
      SimplifyAdjacentMultiplyOrAdd(),
      SimplifyDQArg("argmax"),
      SimplifyDQArg("argmin"),
      SimplifyDQArg("argsort"),
      SimplifyClipAndConsecutiveCast(),
      SimplifyClip(),
      SimplifyBinomial(),
  };
}

absl::StatusOr<const Function*> SimplifyExprFunction(const Function* fn, Arena* arena) {
  static const std::vector<RewriteRule> kRules = SimplifyExprRules();
  CARVE_ASSIGN_OR_RETURN(RewriteResult result, RewriteExpr(kRules, fn, arena));
  return Cast<Function>(result.expr);
}

PassPtr SimplifyExpr() {
  return MakeFunctionPass(
      "SimplifyExpr", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return SimplifyExprFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
