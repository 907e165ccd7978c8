#include "patterns/expr_equal.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/visit.h"

namespace carve {
namespace {

// Compares the node-local parts of a and b and pushes their child pairs.
bool Shallow(const Expr* a, const Expr* b, std::vector<std::pair<const Expr*, const Expr*>>& todo) {
  if (a->kind() != b->kind()) return false;
  auto push = [&](const Expr* x, const Expr* y) { todo.emplace_back(x, y); };
  switch (a->kind()) {
    case ExprKind::kVar:
    case ExprKind::kOp:
    case ExprKind::kConstructor:  // one node per constructor of a module
    case ExprKind::kMatch:        // binds variables: equal only to itself
      return a == b;
    case ExprKind::kGlobalVar:
      return Cast<GlobalVar>(a)->name() == Cast<GlobalVar>(b)->name();
    case ExprKind::kConstant:
      return Cast<Constant>(a)->data().BitwiseEqual(Cast<Constant>(b)->data());
    case ExprKind::kCall: {
      const auto* x = Cast<Call>(a);
      const auto* y = Cast<Call>(b);
      if (x->attrs() != y->attrs() || x->args().size() != y->args().size()) return false;
      push(x->callee(), y->callee());
      for (size_t i = 0; i < x->args().size(); ++i) push(x->args()[i], y->args()[i]);
      return true;
    }
    case ExprKind::kTuple: {
      auto xs = Cast<Tuple>(a)->fields();
      auto ys = Cast<Tuple>(b)->fields();
      if (xs.size() != ys.size()) return false;
      for (size_t i = 0; i < xs.size(); ++i) push(xs[i], ys[i]);
      return true;
    }
    case ExprKind::kTupleGetItem: {
      const auto* x = Cast<TupleGetItem>(a);
      const auto* y = Cast<TupleGetItem>(b);
      if (x->index() != y->index()) return false;
      push(x->tuple(), y->tuple());
      return true;
    }
    case ExprKind::kLet: {
      const auto* x = Cast<Let>(a);
      const auto* y = Cast<Let>(b);
      push(x->var(), y->var());
      push(x->value(), y->value());
      push(x->body(), y->body());
      return true;
    }
    case ExprKind::kIf: {
      const auto* x = Cast<If>(a);
      const auto* y = Cast<If>(b);
      push(x->cond(), y->cond());
      push(x->then_branch(), y->then_branch());
      push(x->else_branch(), y->else_branch());
      return true;
    }
    case ExprKind::kFunction: {
      const auto* x = Cast<Function>(a);
      const auto* y = Cast<Function>(b);
      if (x->params().size() != y->params().size() || x->attrs() != y->attrs()) return false;
      for (size_t i = 0; i < x->params().size(); ++i) push(x->params()[i], y->params()[i]);
      push(x->body(), y->body());
      return true;
    }
    case ExprKind::kRefCreate:  // references: operands pairwise
    case ExprKind::kRefRead:
    case ExprKind::kRefWrite: {
      std::vector<const Expr*> xs, ys;
      ForEachChild(a, [&](const Expr* c) { xs.push_back(c); });
      ForEachChild(b, [&](const Expr* c) { ys.push_back(c); });
      for (size_t i = 0; i < xs.size(); ++i) push(xs[i], ys[i]);
      return true;
    }
  }
  return false;
}

}  // namespace

bool ExprStructurallyEqual(const Expr* a, const Expr* b) {
  std::vector<std::pair<const Expr*, const Expr*>> todo = {{a, b}};
  absl::flat_hash_set<std::pair<const Expr*, const Expr*>> done;
  while (!todo.empty()) {
    auto [x, y] = todo.back();
    todo.pop_back();
    if (x == y || !done.insert({x, y}).second) continue;
    if (!Shallow(x, y, todo)) return false;
  }
  return true;
}

}  // namespace carve
