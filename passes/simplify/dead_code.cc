// DeadCodeElimination: drops let bindings whose variable is unused.
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "passes/simplify/cleanup_passes.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve {
namespace {

// Uses of each variable: edges from distinct nodes to it, binding sites
// (let variables, parameters) excluded.
absl::flat_hash_map<const Var*, int> CountUses(const Expr* root) {
  absl::flat_hash_map<const Var*, int> uses;
  PostOrderVisit(root, [&](const Expr* e) {
    if (const Function* fn = DynCast<Function>(e)) {
      if (const Var* v = DynCast<Var>(fn->body())) ++uses[v];  // params bind
      return;
    }
    bool first = true;
    ForEachChild(e, [&](const Expr* c) {
      bool binder = first && Isa<Let>(e);
      first = false;
      if (const Var* v = DynCast<Var>(c); v != nullptr && !binder) ++uses[v];
    });
  });
  return uses;
}

bool HasStatefulCall(const Expr* e) {
  bool found = false;
  PostOrderVisit(e, [&](const Expr* n) {
    const Call* call = DynCast<Call>(n);
    found = found || (call != nullptr && call->op() != nullptr && (call->op()->flags & kOpStateful));
  });
  return found;
}

// Which let-bound variables occur in `e` (for the recursion guard).
bool Mentions(const Expr* e, const Var* v) {
  bool found = false;
  PostOrderVisit(e, [&](const Expr* n) { found = found || n == v; });
  return found;
}

class UnusedLetRemover : public TypedMutator {
 public:
  UnusedLetRemover(Arena* arena, const absl::flat_hash_map<const Var*, int>& uses,
                   bool ignore_impurity, bool inline_once)
      : TypedMutator(arena),
        uses_(uses),
        ignore_impurity_(ignore_impurity),
        inline_once_(inline_once) {}

 protected:
  // A let chain is walked by RewriteLetChain: an inlined value must be
  // rebuilt before the body that reads its variable.
  bool VisitChildren(const Expr* e) override { return !Isa<Let>(e); }

  const Expr* Rewrite(const Expr* e) override {
    if (const Var* v = DynCast<Var>(e)) {
      auto it = inlined_.find(v);
      return it == inlined_.end() ? e : it->second;
    }
    if (const Let* let = DynCast<Let>(e)) return RewriteLetChain(let);
    return RebuildTyped(e);
  }

 private:
  int Uses(const Var* v) const {
    auto it = uses_.find(v);
    return it == uses_.end() ? 0 : it->second;
  }

  // Walks the spine iteratively; values are rebuilt by a nested Mutate
  // (nesting bounded by the text's block depth).
  const Expr* RewriteLetChain(const Let* head) {
    std::vector<KeptLet> kept;
    const Expr* cur = head;
    while (const Let* l = DynCast<Let>(cur)) {
      cur = l->body();
      int uses = Uses(l->var());
      if (uses == 0 && (ignore_impurity_ || !HasStatefulCall(l->value()))) continue;
      const Expr* value = Mutate(l->value());
      if (inline_once_ && uses == 1 &&
          !(Isa<Function>(l->value()) && Mentions(l->value(), l->var()))) {
        inlined_.emplace(l->var(), value);
        continue;
      }
      kept.emplace_back(l, value);
    }
    const Expr* body = Mutate(cur);
    return RewrapLetChain(kept, body);
  }

  const absl::flat_hash_map<const Var*, int>& uses_;
  bool ignore_impurity_;
  bool inline_once_;
  absl::flat_hash_map<const Var*, const Expr*> inlined_;
};

}  // namespace

absl::StatusOr<const Function*> DeadCodeEliminationFunction(const Function* fn,
                                                            bool ignore_impurity, Arena* arena,
                                                            bool inline_once) {
  // Removing a binding can leave the bindings its value used unused: repeat
  // until nothing changes (one round per level of such chains).
  while (true) {
    absl::flat_hash_map<const Var*, int> uses = CountUses(fn);
    UnusedLetRemover remover(arena, uses, ignore_impurity, inline_once);
    const Function* next = Cast<Function>(remover.Mutate(fn));
    if (next == fn) return fn;
    fn = next;
  }
}

PassPtr DeadCodeElimination(bool ignore_impurity, bool inline_once) {
  std::string description;
  if (inline_once && ignore_impurity) {
    description = "DeadCodeElimination(inline_once=True,ignore_impurity=True)";
  } else if (inline_once) {
    description = "DeadCodeElimination(inline_once=True)";
  } else if (ignore_impurity) {
    description = "DeadCodeElimination(ignore_impurity=True)";
  }
  return MakeFunctionPass(
      "DeadCodeElimination", description,
      [ignore_impurity, inline_once](const Function* fn, const Module& mod,
                                     PassContext&) -> absl::StatusOr<const Function*> {
        return DeadCodeEliminationFunction(fn, ignore_impurity, mod.arena(), inline_once);
      });
}

}  // namespace carve
