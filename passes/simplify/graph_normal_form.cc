#include "passes/simplify/graph_normal_form.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/visit.h"
#include "passes/byoc/partition_walk.h"

namespace carve {

const Function* InlineLets(const Function* fn, Arena* arena) {
  absl::flat_hash_map<const Var*, const Expr*> value_of;
  PostOrderVisit(fn, [&](const Expr* e) {
    const Let* let = DynCast<Let>(e);
    if (let != nullptr && !Isa<Function>(let->value())) value_of.emplace(let->var(), let->value());
  });
  if (value_of.empty()) return fn;
  auto inlined = [&](const Expr* e) {
    const Let* let = DynCast<Let>(e);
    return let != nullptr && value_of.contains(let->var());
  };
  // What each node depends on once lets are gone: a bound variable on its
  // value, an inlined let on its body, anything else on its children.
  auto for_each_dep = [&](const Expr* e, auto&& f) {
    if (const Var* v = DynCast<Var>(e)) {
      if (auto it = value_of.find(v); it != value_of.end()) f(it->second);
    } else if (inlined(e)) {
      f(Cast<Let>(e)->body());
    } else {
      ForEachChild(e, f);
    }
  };
  IRBuilder builder(arena);
  absl::flat_hash_map<const Expr*, const Expr*> out;
  auto mapped = [&](const Expr* e) {
    auto it = out.find(e);
    return it == out.end() ? e : it->second;
  };
  std::vector<std::pair<const Expr*, bool>> stack = {{fn, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    if (out.contains(e)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for_each_dep(e, [&](const Expr* d) {
        if (!out.contains(d)) stack.emplace_back(d, false);
      });
      continue;
    }
    stack.pop_back();
    const Expr* result = e;
    if (const Var* v = DynCast<Var>(e)) {
      if (auto it = value_of.find(v); it != value_of.end()) result = mapped(it->second);
    } else if (inlined(e)) {
      result = mapped(Cast<Let>(e)->body());
    } else {
      std::vector<const Expr*> kids;
      bool changed = false;
      ForEachChild(e, [&](const Expr* c) {
        kids.push_back(mapped(c));
        changed = changed || kids.back() != c;
      });
      if (changed) result = RebuildOverChildren(builder, e, kids);
    }
    out[e] = result;
  }
  return Cast<Function>(mapped(fn));
}

PassPtr ToGraphNormalForm() {
  return MakeFunctionPass(
      "ToGraphNormalForm", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return InlineLets(fn, mod.arena());
      });
}

}  // namespace carve
