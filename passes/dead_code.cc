// DeadCodeElimination: drops let bindings whose variable is unused.
#include "absl/container/flat_hash_map.h"
#include "passes/cleanup_passes.h"
#include "passes/rewrite_util.h"

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

class UnusedLetRemover : public TypedMutator {
 public:
  UnusedLetRemover(Arena* arena, const absl::flat_hash_map<const Var*, int>& uses,
                   bool ignore_impurity)
      : TypedMutator(arena), uses_(uses), ignore_impurity_(ignore_impurity) {}

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    const Let* let = DynCast<Let>(post);
    if (let == nullptr || uses_.contains(Cast<Let>(e)->var())) return post;
    if (!ignore_impurity_ && HasStatefulCall(let->value())) return post;
    return let->body();
  }

 private:
  const absl::flat_hash_map<const Var*, int>& uses_;
  bool ignore_impurity_;
};

}  // namespace

absl::StatusOr<const Function*> DeadCodeEliminationFunction(const Function* fn,
                                                            bool ignore_impurity, Arena* arena) {
  // Removing a binding can leave the bindings its value used unused: repeat
  // until nothing changes (one round per level of such chains).
  while (true) {
    absl::flat_hash_map<const Var*, int> uses = CountUses(fn);
    UnusedLetRemover remover(arena, uses, ignore_impurity);
    const Function* next = Cast<Function>(remover.Mutate(fn));
    if (next == fn) return fn;
    fn = next;
  }
}

PassPtr DeadCodeElimination(bool ignore_impurity) {
  return MakeFunctionPass(
      "DeadCodeElimination", ignore_impurity ? "DeadCodeElimination(ignore_impurity=True)" : "",
      [ignore_impurity](const Function* fn, const Module& mod,
                        PassContext&) -> absl::StatusOr<const Function*> {
        return DeadCodeEliminationFunction(fn, ignore_impurity, mod.arena());
      });
}

}  // namespace carve
