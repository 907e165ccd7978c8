#include "ir/visit.h"

#include "ir/rebuild.h"
#include "support/cancellation.h"

namespace carve {

size_t NumChildren(const Expr* e) {
  size_t n = 0;
  ForEachChild(e, [&n](const Expr*) { ++n; });
  return n;
}

void PostOrderVisit(const Expr* root, absl::FunctionRef<void(const Expr*)> f) {
  // done: 1 once expanded (children pushed), 2 once visited.
  AddressMap<uint8_t> state;
  std::vector<const Expr*> stack;
  stack.push_back(root);
  std::vector<const Expr*> kids;
  while (!stack.empty()) {
    const Expr* e = stack.back();
    auto [st, inserted] = state.TryEmplace(e, 1);
    if (!inserted) {
      stack.pop_back();
      if (*st == 1) {
        *st = 2;
        f(e);
      }
      continue;
    }
    kids.clear();
    ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      if (!state.Contains(*it)) stack.push_back(*it);
    }
  }
}

std::vector<const Expr*> PostOrder(const Expr* root) {
  std::vector<const Expr*> out;
  PostOrderVisit(root, [&out](const Expr* e) { out.push_back(e); });
  return out;
}

// On a Ctrl-C (support/cancellation.h) the walk stops and returns `root`
// unchanged: a valid expression, so the pass finishes quickly on IR it
// knows, and the pass manager, which checks the flag after every pass,
// discards the result. (PostOrderVisit does not stop: its callers rely on
// seeing every node, and the walk itself is fast.)
const Expr* ExprMutator::Mutate(const Expr* root) {
  CancellationPoll cancel;
  std::vector<std::pair<const Expr*, bool>> stack;
  stack.emplace_back(root, false);
  std::vector<const Expr*> kids;
  while (!stack.empty()) {
    auto& [e, expanded] = stack.back();
    if (expanded) {
      // Not memoized yet: it was not when expanded, and only its own
      // descendants ran since (the graph is acyclic).
      const Expr* node = e;
      stack.pop_back();
      const Expr* rewritten = Rewrite(node);
      memo_.TryEmplace(node, rewritten);
      continue;
    }
    if (memo_.Contains(e)) {  // pushed twice (a shared node), done since
      stack.pop_back();
      continue;
    }
    if (cancel.Requested()) return root;
    expanded = true;
    if (VisitChildren(e)) {
      kids.clear();
      ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        if (!memo_.Contains(*it)) stack.emplace_back(*it, false);
      }
    }
  }
  return *memo_.Find(root);
}

const Expr* ExprMutator::Mutated(const Expr* original) const {
  const Expr* const* m = memo_.Find(original);
  return m == nullptr ? original : *m;
}

// A mutator's children may change type, so the rebuilt node is left untyped
// for InferType (a subclass that knows better sets the type).
const Expr* ExprMutator::Rebuild(const Expr* e) {
  return RebuildMapped(
      builder_, e, [this](const Expr* c) { return Mutated(c); }, RebuildType::kDrop);
}

}  // namespace carve
