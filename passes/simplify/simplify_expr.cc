#include "passes/simplify/simplify_expr.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

namespace {

using RuleTable = std::shared_ptr<const std::vector<RewriteRule>>;

// The rule table for `options`, built once per process for each set of
// keep_clip_after ops. A backend's flow parses its recipe, and so makes a new
// SimplifyExpr pass, on every run, and a table built anew has new pattern
// nodes, which RewriteExpr would compile again (CompilePatternCached is keyed
// by node): compiling the 24 rules was a quarter of the CPU of partitioning a
// small module (fuzz_byoc, docs/fuzzing.md). The rules hold no state, so one
// table serves every thread. At most kMaxTables option sets are kept (a REPL
// session could name many); past that the store starts over.
RuleTable SharedRules(const SimplifyExprOptions& options) {
  constexpr size_t kMaxTables = 64;
  static std::mutex mu;
  static auto* tables = new absl::flat_hash_map<std::vector<const OpInfo*>, RuleTable>();
  // SimplifyClip reads the ops as a set: order and repeats make no new table.
  std::vector<const OpInfo*> key = options.keep_clip_after;
  std::sort(key.begin(), key.end());
  key.erase(std::unique(key.begin(), key.end()), key.end());
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = tables->find(key); it != tables->end()) return it->second;
  if (tables->size() >= kMaxTables) tables->clear();
  auto table = std::make_shared<const std::vector<RewriteRule>>(SimplifyExprRules(options));
  tables->emplace(std::move(key), table);
  return table;
}

}  // namespace

absl::StatusOr<const Function*> SimplifyExprFunction(const Function* fn, Arena* arena,
                                                     const SimplifyExprOptions& options) {
  CARVE_ASSIGN_OR_RETURN(RewriteResult result, RewriteExpr(*SharedRules(options), fn, arena));
  return Cast<Function>(result.expr);
}

PassPtr SimplifyExpr(SimplifyExprOptions options) {
  RuleTable rules = SharedRules(options);
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
