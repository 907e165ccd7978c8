// DeadCodeElimination: drops let bindings whose variable is unused and whose
// value is pure.
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
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

// Whether evaluating an expression may read or write state, after TVM's
// PurityVisitor (dead_code.cc): ref_read and ref_write and stateful ops are
// impure; ref creation is not (unobservable but through reads and writes).
// Evaluating a function literal is pure; calling one is as pure as its body.
// A call through anything but an op, a global, a function literal or a
// let-bound function literal (a parameter, a projection, a ref_read) is
// assumed impure, as TVM does for higher-order values it does not track.
class Purity {
 public:
  Purity(const Module* mod, const Function* fn) : mod_(mod) { RecordLetFunctions(fn); }

  bool Impure(const Expr* e) { return EvalImpure(e, 0); }

 private:
  // TVM's kMaxCallDepth: deeper call chains are assumed impure.
  static constexpr int kMaxDepth = 25;

  void RecordLetFunctions(const Expr* root) {
    PostOrderVisit(root, [&](const Expr* n) {
      const Let* let = DynCast<Let>(n);
      if (let == nullptr) return;
      if (const Function* f = DynCast<Function>(let->value())) let_fns_[let->var()] = f;
    });
  }

  bool EvalImpure(const Expr* root, int depth) {
    if (depth > kMaxDepth) return true;
    bool impure = false;
    std::vector<const Expr*> stack{root};
    absl::flat_hash_set<const Expr*> seen;
    while (!stack.empty() && !impure) {
      const Expr* e = stack.back();
      stack.pop_back();
      if (!seen.insert(e).second || Isa<Function>(e)) continue;
      if (Isa<RefRead>(e) || Isa<RefWrite>(e)) return true;
      if (const Call* call = DynCast<Call>(e)) impure = CallImpure(call->callee(), depth);
      ForEachChild(e, [&](const Expr* c) { stack.push_back(c); });
    }
    return impure;
  }

  bool CallImpure(const Expr* callee, int depth) {
    if (const OpExpr* op = DynCast<OpExpr>(callee)) return (op->info()->flags & kOpStateful) != 0;
    if (const Function* f = DynCast<Function>(callee)) return EvalImpure(f->body(), depth + 1);
    if (const Var* v = DynCast<Var>(callee)) {
      auto it = let_fns_.find(v);
      return it == let_fns_.end() || EvalImpure(it->second->body(), depth + 1);
    }
    const GlobalVar* gv = DynCast<GlobalVar>(callee);
    if (gv == nullptr || mod_ == nullptr) return true;
    const Function* f = mod_->Lookup(gv);
    if (f == nullptr) return true;
    auto [it, inserted] = globals_.try_emplace(gv->name(), false);  // recursion: assume pure
    if (!inserted) return it->second;
    RecordLetFunctions(f);
    bool impure = EvalImpure(f->body(), depth + 1);
    globals_[gv->name()] = impure;
    return impure;
  }

  const Module* mod_;
  absl::flat_hash_map<const Var*, const Function*> let_fns_;
  absl::flat_hash_map<std::string_view, bool> globals_;
};

// Which let-bound variables occur in `e` (for the recursion guard).
bool Mentions(const Expr* e, const Var* v) {
  bool found = false;
  PostOrderVisit(e, [&](const Expr* n) { found = found || n == v; });
  return found;
}

class UnusedLetRemover : public TypedMutator {
 public:
  UnusedLetRemover(Arena* arena, const absl::flat_hash_map<const Var*, int>& uses,
                   Purity* purity, bool ignore_impurity, bool inline_once)
      : TypedMutator(arena),
        uses_(uses),
        purity_(purity),
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
      // An impure value stays where it is: neither dropped nor inlined
      // (inlining could reorder or repeat its effect).
      bool pure = ignore_impurity_ || !purity_->Impure(l->value());
      if (uses == 0 && pure) continue;
      const Expr* value = Mutate(l->value());
      if (inline_once_ && uses == 1 && pure &&
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
  Purity* purity_;
  bool ignore_impurity_;
  bool inline_once_;
  absl::flat_hash_map<const Var*, const Expr*> inlined_;
};

}  // namespace

absl::StatusOr<const Function*> DeadCodeEliminationFunction(const Function* fn,
                                                            bool ignore_impurity, Arena* arena,
                                                            bool inline_once,
                                                            const Module* mod) {
  // Removing a binding can leave the bindings its value used unused: repeat
  // until nothing changes (one round per level of such chains).
  while (true) {
    absl::flat_hash_map<const Var*, int> uses = CountUses(fn);
    Purity purity(mod, fn);
    UnusedLetRemover remover(arena, uses, &purity, ignore_impurity, inline_once);
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
        return DeadCodeEliminationFunction(fn, ignore_impurity, mod.arena(), inline_once,
                                           &mod);
      });
}

}  // namespace carve
