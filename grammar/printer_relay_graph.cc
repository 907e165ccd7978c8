// RelayTextPrinter's view of the expression graph: TVM's DependencyGraph
// (analysis/dependency_graph.cc) reduced to what the printer asks of it —
// how many parents a node has (IsUnique) — plus the slot of every node and
// of its children, so that the printing walk indexes arrays instead of
// hashing pointers (which, on a 100k-node graph, is mostly cache misses).
#include "grammar/printer_relay.h"
#include "ir/visit.h"

namespace carve::print_internal {

uint32_t RelayTextPrinter::Slot(const Expr* e) {
  auto [slot, inserted] = slots_.TryEmplace(e, static_cast<uint32_t>(nodes_.size()));
  if (inserted) nodes_.emplace_back().kind = e->kind();
  return *slot;
}

uint32_t RelayTextPrinter::NewSlot(const Expr* e, ExprKind kind, bool* inserted) {
  auto [slot, fresh] = slots_.TryEmplace(e, static_cast<uint32_t>(nodes_.size()));
  if (fresh) nodes_.emplace_back().kind = kind;
  *inserted = fresh;
  return *slot;
}

namespace {

// Calls edge(child) for each child of `e` (of kind `kind`) in TVM's
// DependencyGraph, and binder(var) for the variables it binds, in the
// printer's order. A template, so that the walk's calls stay inline.
template <typename Edge, typename Binder>
void ForEachGraphEdge(const Expr* e, ExprKind kind, Edge&& edge, Binder&& binder) {
  switch (kind) {
    case ExprKind::kCall: {
      auto* call = Cast<Call>(e);
      edge(call->callee());
      for (const Expr* arg : call->args()) edge(arg);
      break;
    }
    case ExprKind::kTuple:
      for (const Expr* field : Cast<Tuple>(e)->fields()) edge(field);
      break;
    case ExprKind::kTupleGetItem:
      edge(Cast<TupleGetItem>(e)->tuple());
      break;
    case ExprKind::kIf: {
      auto* node = Cast<If>(e);
      edge(node->cond());
      edge(node->then_branch());
      edge(node->else_branch());
      break;
    }
    case ExprKind::kFunction: {
      auto* fn = Cast<Function>(e);
      for (const Var* param : fn->params()) binder(param);
      edge(fn->body());
      break;
    }
    case ExprKind::kLet: {
      auto* let = Cast<Let>(e);
      binder(let->var());
      edge(let->value());
      edge(let->body());
      break;
    }
    case ExprKind::kMatch: {  // the data, then each clause's variables and rhs
      auto* match = Cast<Match>(e);
      edge(match->data());
      for (const Clause& clause : match->clauses()) {
        ForEachPatternVar(clause.lhs, binder);
        edge(clause.rhs);
      }
      break;
    }
    case ExprKind::kRefCreate:  // references: one edge per operand
    case ExprKind::kRefRead:
    case ExprKind::kRefWrite:
      ForEachChild(e, edge);
      break;
    default:
      break;
  }
}

}  // namespace

void RelayTextPrinter::BuildGraph(const Expr* root) {
  slots_ = AddressMap<uint32_t>();
  nodes_.clear();
  edges_.clear();
  free_var_decls_.clear();
  // The arena's texts are the previous definition's memos, all copied into
  // its documents by now: its space is reused.
  arena_.clear();
  std::vector<std::pair<const Expr*, uint32_t>> stack = {{root, Slot(root)}};
  // One edge per child occurrence: multiply(%x, %x) gives %x two parents.
  // A new node's kind is filled in when it comes off the stack, and it is
  // fetched meanwhile: reading it is this walk's main cost (a cache miss per
  // node), and its siblings' reads overlap it.
  auto edge = [&](const Expr* child) {
    bool inserted;
    uint32_t slot = NewSlot(child, ExprKind::kVar, &inserted);
    NodeState& state = nodes_[slot];
    if (state.parents < kMaxParents) ++state.parents;
    edges_.push_back(slot);
    if (inserted) {
      __builtin_prefetch(child);
      stack.emplace_back(child, slot);
    }
  };
  // Binders are not children in TVM's graph (no parent), but are recorded
  // with them so that printing finds their slots too.
  auto binder = [&](const Var* var) {
    bool inserted;
    edges_.push_back(NewSlot(var, ExprKind::kVar, &inserted));
  };
  while (!stack.empty()) {
    auto [e, slot] = stack.back();
    stack.pop_back();
    ExprKind kind = e->kind();
    nodes_[slot].first_edge = static_cast<uint32_t>(edges_.size());
    nodes_[slot].kind = kind;
    ForEachGraphEdge(e, kind, edge, binder);
  }
  // The definition's names and pending node texts go to the arena (about 14
  // bytes a node on partitioned graphs): reserved so that it does not grow by
  // doubling, which copies it and touches twice its size in fresh pages. The
  // reserve costs nothing until it is written.
  arena_.reserve(nodes_.size() * 24);
}

}  // namespace carve::print_internal
