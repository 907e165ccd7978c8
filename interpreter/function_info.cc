#include "interpreter/function_info.h"

#include "absl/container/flat_hash_set.h"
#include "ir/visit.h"

namespace carve {
namespace {

// Calls f(child) for each child of `e` that is read when `e` is evaluated:
// ForEachChild minus binding occurrences (let variables, parameters).
template <typename F>
void ForEachOperand(const Expr* e, F&& f) {
  switch (e->kind()) {
    case ExprKind::kLet: {
      auto* l = Cast<Let>(e);
      f(l->value());
      f(l->body());
      return;
    }
    case ExprKind::kFunction:
      f(Cast<Function>(e)->body());
      return;
    default:
      ForEachChild(e, f);
  }
}

}  // namespace

std::vector<const Var*> FreeVars(const Function* fn) {
  absl::flat_hash_set<const Expr*> visited;
  absl::flat_hash_set<const Var*> bound(fn->params().begin(), fn->params().end());
  absl::flat_hash_set<const Var*> seen_reads;
  std::vector<const Var*> reads;
  std::vector<const Expr*> stack = {fn->body()};
  std::vector<const Expr*> children;
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    if (!visited.insert(e).second) continue;
    if (const Var* v = DynCast<Var>(e)) {
      if (seen_reads.insert(v).second) reads.push_back(v);
      continue;
    }
    if (const Let* l = DynCast<Let>(e)) bound.insert(l->var());
    if (const Function* f = DynCast<Function>(e))
      bound.insert(f->params().begin(), f->params().end());
    if (const Match* m = DynCast<Match>(e)) {  // clause variables
      for (const Clause& clause : m->clauses()) {
        ForEachPatternVar(clause.lhs, [&bound](const Var* v) { bound.insert(v); });
      }
    }
    children.clear();
    ForEachOperand(e, [&](const Expr* c) { children.push_back(c); });
    // Reverse, so that children are visited (and reads ordered) left to right.
    for (size_t i = children.size(); i-- > 0;) stack.push_back(children[i]);
  }
  std::vector<const Var*> free;
  for (const Var* v : reads) {
    if (!bound.contains(v)) free.push_back(v);
  }
  return free;
}

FunctionInfo AnalyzeFunction(const Function* fn) {
  FunctionInfo info;
  info.function = fn;
  info.free_vars = FreeVars(fn);
  // Parent-edge counts of every non-atom node reached; a node is expanded
  // when it is first counted (so the map doubles as the visited set).
  absl::flat_hash_map<const Expr*, uint32_t> uses;
  absl::flat_hash_map<const Function*, const Var*> let_var_of;
  std::vector<const Function*> nested;
  std::vector<const Expr*> stack = {fn->body()};
  if (const Var* v = DynCast<Var>(fn->body())) ++info.var_reads[v];  // fn (%x) { %x }
  if (fn->body()->is_atom()) stack.clear();
  uses[fn->body()] = 1;  // the body's value is returned
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    if (const Function* f = DynCast<Function>(e)) {
      nested.push_back(f);  // a separate body: its reads are its captures
      continue;
    }
    if (const Let* l = DynCast<Let>(e)) {
      if (const Function* f = DynCast<Function>(l->value())) let_var_of[f] = l->var();
    }
    ForEachOperand(e, [&](const Expr* c) {
      if (const Var* v = DynCast<Var>(c)) {
        ++info.var_reads[v];
      } else if (!c->is_atom()) {
        if (uses[c]++ == 0) stack.push_back(c);
      }
    });
  }
  // Creating a closure reads each captured variable once. A let-bound
  // function that names its own variable is recursive: that variable is
  // bound at each call instead of captured.
  for (const Function* f : nested) {
    auto it = let_var_of.find(f);
    const Var* self = it == let_var_of.end() ? nullptr : it->second;
    for (const Var* v : FreeVars(f)) {
      if (v == self) {
        info.recursive_var[f] = self;
      } else {
        ++info.var_reads[v];
      }
    }
  }
  for (const auto& [e, n] : uses) {
    if (n > 1) info.shared_uses[e] = n;
  }
  return info;
}

}  // namespace carve
