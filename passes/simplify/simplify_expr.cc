#include "passes/simplify/simplify_expr.h"

#include <memory>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
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

std::vector<RewriteRule> SimplifyExprRules(const SimplifyExprOptions& options) {
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
      SimplifyClip({options.keep_clip_after.begin(), options.keep_clip_after.end()}),
      SimplifyBinomial(),
  };
}

absl::StatusOr<const Function*> SimplifyExprFunction(const Function* fn, Arena* arena,
                                                     const SimplifyExprOptions& options) {
  CARVE_ASSIGN_OR_RETURN(RewriteResult result, RewriteExpr(SimplifyExprRules(options), fn, arena));
  return Cast<Function>(result.expr);
}

PassPtr SimplifyExpr(SimplifyExprOptions options) {
  // Built once per pass, not per function.
  auto rules = std::make_shared<const std::vector<RewriteRule>>(SimplifyExprRules(options));
  std::string description = "SimplifyExpr";
  if (!options.keep_clip_after.empty()) {
    std::vector<std::string_view> names;
    for (const OpInfo* op : options.keep_clip_after) names.push_back(op->name);
    description = fmt::format("SimplifyExpr(keep_clip_after=[{}])", fmt::join(names, ","));
  }
  return MakeFunctionPass(
      "SimplifyExpr", description,
      [rules](const Function* fn, const Module& mod,
              PassContext&) -> absl::StatusOr<const Function*> {
        CARVE_ASSIGN_OR_RETURN(RewriteResult result, RewriteExpr(*rules, fn, mod.arena()));
        return Cast<Function>(result.expr);
      },
      /*require_types=*/true);
}

absl::StatusOr<SimplifyExprOptions> SimplifyExprOptionsFor(
    const std::vector<std::string>& keep_clip_after) {
  SimplifyExprOptions options;
  for (const std::string& name : keep_clip_after) {
    const OpInfo* op = FindOp(name);
    if (op == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("SimplifyExpr: keep_clip_after names '{}', which is not an op", name));
    }
    options.keep_clip_after.push_back(op);
  }
  return options;
}

}  // namespace carve
