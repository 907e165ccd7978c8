#include "passes/simplify/graph_normal_form.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/rebuild.h"
#include "ir/visit.h"

namespace carve {

namespace {

// Replaces each let-bound variable (but a function's) by its value and
// drops the lets, in one iterative post-order walk.
class LetInliner {
 public:
  LetInliner(const Function* fn, Arena* arena) : builder_(arena) {
    PostOrderVisit(fn, [&](const Expr* e) {
      const Let* let = DynCast<Let>(e);
      if (let != nullptr && !Isa<Function>(let->value())) value_of_.emplace(let->var(), let->value());
    });
  }

  bool HasLets() const { return !value_of_.empty(); }

  const Function* Run(const Function* fn) {
    std::vector<std::pair<const Expr*, bool>> stack = {{fn, false}};
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      if (out_.contains(e)) {
        stack.pop_back();
        continue;
      }
      if (!expanded) {
        stack.back().second = true;
        ForEachDep(e, [&](const Expr* d) {
          if (!out_.contains(d)) stack.emplace_back(d, false);
        });
        continue;
      }
      stack.pop_back();
      out_[e] = Rewrite(e);
    }
    return Cast<Function>(Mapped(fn));
  }

 private:
  bool Inlined(const Expr* e) const {
    const Let* let = DynCast<Let>(e);
    return let != nullptr && value_of_.contains(let->var());
  }

  // What each node depends on once lets are gone: a bound variable on its
  // value, an inlined let on its body, anything else on its children.
  template <typename F>
  void ForEachDep(const Expr* e, F&& f) const {
    if (const Var* v = DynCast<Var>(e)) {
      if (auto it = value_of_.find(v); it != value_of_.end()) f(it->second);
    } else if (Inlined(e)) {
      f(Cast<Let>(e)->body());
    } else {
      ForEachChild(e, f);
    }
  }

  const Expr* Mapped(const Expr* e) const {
    auto it = out_.find(e);
    return it == out_.end() ? e : it->second;
  }

  // `e` with its dependencies already rewritten.
  const Expr* Rewrite(const Expr* e) {
    if (const Var* v = DynCast<Var>(e)) {
      auto it = value_of_.find(v);
      return it != value_of_.end() ? Mapped(it->second) : e;
    }
    if (Inlined(e)) return Mapped(Cast<Let>(e)->body());
    std::vector<const Expr*> kids;
    bool changed = false;
    ForEachChild(e, [&](const Expr* c) {
      kids.push_back(Mapped(c));
      changed = changed || kids.back() != c;
    });
    return changed ? RebuildWithChildren(builder_, e, kids) : e;
  }

  IRBuilder builder_;
  absl::flat_hash_map<const Var*, const Expr*> value_of_;
  absl::flat_hash_map<const Expr*, const Expr*> out_;
};

}  // namespace

const Function* InlineLets(const Function* fn, Arena* arena) {
  LetInliner inliner(fn, arena);
  return inliner.HasLets() ? inliner.Run(fn) : fn;
}

PassPtr ToGraphNormalForm() {
  return MakeFunctionPass(
      "ToGraphNormalForm", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return InlineLets(fn, mod.arena());
      });
}

}  // namespace carve
