// Facts the evaluator needs about a function body, computed once per
// function and shared by all of its activations:
//
//   - how many times each node's value is consumed in one activation (its
//     number of parent edges), so a value shared by several consumers is
//     kept exactly until its last consumer has run and then freed;
//   - how many times each variable is read (including captures by nested
//     function literals), so bindings are dropped after their last read;
//   - the function's free variables (what a closure over it captures) and
//     which nested function literals are let-bound recursive functions.
//
// Nested function literals are separate bodies with their own info: the
// analysis of a body stops at them.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/expr.h"

namespace carve {

struct FunctionInfo {
  const Function* function = nullptr;
  // Parent-edge counts of the non-atom nodes of the body that have more than
  // one (the rest are consumed once and never memoised).
  absl::flat_hash_map<const Expr*, uint32_t> shared_uses;
  // Reads of each variable in the body (absent = never read).
  absl::flat_hash_map<const Var*, uint32_t> var_reads;
  // Variables free in the function, in first-occurrence order.
  std::vector<const Var*> free_vars;
  // For each nested function literal that is the value of `let %v = fn ...`
  // and refers to %v: that variable (bound to the closure itself on calls).
  absl::flat_hash_map<const Function*, const Var*> recursive_var;

  // Times `e` is consumed (1 unless shared).
  uint32_t Uses(const Expr* e) const {
    auto it = shared_uses.find(e);
    return it == shared_uses.end() ? 1 : it->second;
  }
  uint32_t Reads(const Var* v) const {
    auto it = var_reads.find(v);
    return it == var_reads.end() ? 0 : it->second;
  }
};

// Analyses `fn` (iteratively: million-node bodies are fine).
FunctionInfo AnalyzeFunction(const Function* fn);

// The free variables of `fn` in first-occurrence order: variables read in
// its body (nested functions included) and bound by no parameter or let
// inside it.
std::vector<const Var*> FreeVars(const Function* fn);

}  // namespace carve
