#include "handles.h"

#include <vector>

#include "absl/container/flat_hash_set.h"

namespace carve::python {
namespace {

// The build arena and the arenas its nodes refer to. Handed out as a
// shared_ptr<Arena> that aliases this owner, so modules made from built
// nodes keep the whole group alive.
struct BuildGroup {
  Arena arena;
  std::vector<std::shared_ptr<Arena>> kept;
  absl::flat_hash_set<const Arena*> kept_set;
};

std::weak_ptr<BuildGroup>& CurrentGroup() {
  static std::weak_ptr<BuildGroup> group;
  return group;
}

template <typename Handle>
pybind11::object Make(const std::shared_ptr<Arena>& arena, const Expr* expr) {
  Handle h;
  h.arena = arena;
  h.expr = expr;
  return pybind11::cast(std::move(h));
}

}  // namespace

pybind11::object WrapExpr(const std::shared_ptr<Arena>& arena, const Expr* expr) {
  if (expr == nullptr) return pybind11::none();
  switch (expr->kind()) {
    case ExprKind::kVar: return Make<VarHandle>(arena, expr);
    case ExprKind::kGlobalVar: return Make<GlobalVarHandle>(arena, expr);
    case ExprKind::kConstant: return Make<ConstantHandle>(arena, expr);
    case ExprKind::kOp: return Make<OpHandle>(arena, expr);
    case ExprKind::kCall: return Make<CallHandle>(arena, expr);
    case ExprKind::kTuple: return Make<TupleHandle>(arena, expr);
    case ExprKind::kTupleGetItem: return Make<TupleGetItemHandle>(arena, expr);
    case ExprKind::kLet: return Make<LetHandle>(arena, expr);
    case ExprKind::kIf: return Make<IfHandle>(arena, expr);
    case ExprKind::kRefCreate: return Make<RefCreateHandle>(arena, expr);
    case ExprKind::kRefRead: return Make<RefReadHandle>(arena, expr);
    case ExprKind::kRefWrite: return Make<RefWriteHandle>(arena, expr);
    case ExprKind::kFunction: return Make<FunctionHandle>(arena, expr);
    case ExprKind::kConstructor:  // no Python classes of their own yet: Exprs
    case ExprKind::kMatch: break;
  }
  return Make<ExprHandle>(arena, expr);
}

std::shared_ptr<Arena> BuildArena() {
  std::shared_ptr<BuildGroup> group = CurrentGroup().lock();
  if (group == nullptr) {
    group = std::make_shared<BuildGroup>();
    CurrentGroup() = group;
  }
  return std::shared_ptr<Arena>(group, &group->arena);
}

void KeepAlive(const std::shared_ptr<Arena>& build, const std::shared_ptr<Arena>& other) {
  if (other == nullptr || other.get() == build.get()) return;
  std::shared_ptr<BuildGroup> group = CurrentGroup().lock();
  // `build` always comes from BuildArena(), so the current group owns it.
  if (group == nullptr || &group->arena != build.get()) return;
  if (group->kept_set.insert(other.get()).second) group->kept.push_back(other);
}

}  // namespace carve::python
