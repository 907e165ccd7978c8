// RelayTextPrinter's scope rule (printer_relay.h, "Scopes"): a node shared
// between a body (if branch, fn body, let) and the code around it is bound
// in the enclosing scope before the body prints.
#include "grammar/printer_relay.h"
#include "ir/visit.h"

namespace carve::print_internal {

template <typename F>
void RelayTextPrinter::ForEachEdge(const Expr* e, uint32_t node, F&& f) const {
  switch (nodes_[node].kind) {
    case ExprKind::kCall: {
      auto* call = Cast<Call>(e);
      f(call->callee(), Child(node, 0));
      for (size_t k = 0; k < call->args().size(); ++k) f(call->args()[k], Child(node, k + 1));
      return;
    }
    case ExprKind::kTuple: {
      auto fields = Cast<Tuple>(e)->fields();
      for (size_t k = 0; k < fields.size(); ++k) f(fields[k], Child(node, k));
      return;
    }
    case ExprKind::kTupleGetItem:
      f(Cast<TupleGetItem>(e)->tuple(), Child(node, 0));
      return;
    case ExprKind::kIf: {
      auto* i = Cast<If>(e);
      f(i->cond(), Child(node, 0));
      f(i->then_branch(), Child(node, 1));
      f(i->else_branch(), Child(node, 2));
      return;
    }
    case ExprKind::kFunction: {
      auto* fn = Cast<Function>(e);
      f(fn->body(), Child(node, fn->params().size()));
      return;
    }
    case ExprKind::kLet: {
      auto* let = Cast<Let>(e);
      f(let->value(), Child(node, 1));
      f(let->body(), Child(node, 2));
      return;
    }
    case ExprKind::kMatch: {
      auto* match = Cast<Match>(e);
      f(match->data(), Child(node, 0));
      for (size_t k = 0; k < match->clauses().size(); ++k) {
        f(match->clauses()[k].rhs, Child(node, ClauseRhsIndex(match, k)));
      }
      return;
    }
    case ExprKind::kRefCreate:  // references: operands in order
    case ExprKind::kRefRead:
    case ExprKind::kRefWrite: {
      size_t k = 0;
      ForEachChild(e, [&](const Expr* child) { f(child, Child(node, k++)); });
      return;
    }
    default:
      return;
  }
}

void RelayTextPrinter::EscapingNodes(
    std::initializer_list<std::pair<const Expr*, uint32_t>> roots,
    std::vector<std::pair<const Expr*, uint32_t>>* out) {
  if (inner_uses_.size() < nodes_.size()) {
    inner_uses_.resize(nodes_.size());
    inner_stamp_.resize(nodes_.size());
  }
  const uint32_t stamp = ++stamp_;
  // A post-order walk of the body counting the in-edges each node receives
  // from inside it. Atoms and nodes bound already need nothing and are not
  // entered (what they reach is bound or visited already).
  struct Entry {
    const Expr* e;
    uint32_t slot;
    bool expanded;
  };
  std::vector<Entry> stack;
  std::vector<std::pair<const Expr*, uint32_t>> post;
  for (auto it = roots.end(); it != roots.begin();) {
    --it;
    auto [root, root_slot] = *it;
    if (inner_stamp_[root_slot] == stamp) {
      ++inner_uses_[root_slot];
      continue;
    }
    inner_stamp_[root_slot] = stamp;
    inner_uses_[root_slot] = 1;  // the edge from the body's owner
    const NodeState& state = nodes_[root_slot];
    if (!IsAtomKind(state.kind) && (state.flags & kBound) == 0) {
      stack.push_back({root, root_slot, false});
    }
  }
  while (!stack.empty()) {
    Entry& top = stack.back();
    if (top.expanded) {
      post.emplace_back(top.e, top.slot);
      stack.pop_back();
      continue;
    }
    top.expanded = true;
    const Expr* e = top.e;
    uint32_t slot = top.slot;
    ForEachEdge(e, slot, [&](const Expr* child, uint32_t child_slot) {
      if (inner_stamp_[child_slot] == stamp) {
        ++inner_uses_[child_slot];
        return;
      }
      inner_stamp_[child_slot] = stamp;
      inner_uses_[child_slot] = 1;
      const NodeState& state = nodes_[child_slot];
      if (IsAtomKind(state.kind) || (state.flags & kBound) != 0) return;
      stack.push_back({child, child_slot, false});
    });
  }
  for (const auto& [e, slot] : post) {
    const NodeState& state = nodes_[slot];
    if (IsAtomKind(state.kind) || (state.flags & kBound) != 0) continue;
    if (state.parents == kMaxParents || state.parents > inner_uses_[slot]) {
      out->emplace_back(e, slot);
    }
  }
}

bool RelayTextPrinter::HoistEscapingNodes(const Expr* e, uint32_t node) {
  std::vector<std::pair<const Expr*, uint32_t>> hoist;
  switch (nodes_[node].kind) {
    case ExprKind::kIf: {  // each branch is a scope of its own
      auto* i = Cast<If>(e);
      EscapingNodes({{i->then_branch(), Child(node, 1)}}, &hoist);
      EscapingNodes({{i->else_branch(), Child(node, 2)}}, &hoist);
      break;
    }
    case ExprKind::kFunction: {
      auto* fn = Cast<Function>(e);
      EscapingNodes({{fn->body(), Child(node, fn->params().size())}}, &hoist);
      break;
    }
    case ExprKind::kMatch: {  // each clause is a scope of its own
      auto* match = Cast<Match>(e);
      for (size_t k = 0; k < match->clauses().size(); ++k) {
        EscapingNodes({{match->clauses()[k].rhs, Child(node, ClauseRhsIndex(match, k))}}, &hoist);
      }
      break;
    }
    case ExprKind::kLet: {  // the chain's lines and its body: one scope
      auto* let = Cast<Let>(e);
      EscapingNodes({{let->value(), Child(node, 1)}, {let->body(), Child(node, 2)}}, &hoist);
      break;
    }
    default:
      return false;
  }
  if (hoist.empty()) return false;
  // Frames run last-pushed first: push in reverse to bind in post-order.
  for (auto it = hoist.rbegin(); it != hoist.rend(); ++it) {
    Push(Frame::kPrint, it->first, it->second, /*try_inline=*/false);
  }
  return true;
}

}  // namespace carve::print_internal
