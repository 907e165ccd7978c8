// Queries over whole expressions and modules: every node where a pattern
// matches, each tested independently (no grouping), in post-order. This is
// what `carve match` prints.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/module.h"
#include "patterns/compile.h"
#include "patterns/pattern.h"

namespace carve {

struct FoundMatch {
  const Expr* root = nullptr;
  // Captures in pattern post-order.
  std::vector<std::pair<std::string, const Expr*>> captures;
};

// Matches at every node of `expr` (functions and their bodies included), in
// post-order.
std::vector<FoundMatch> FindMatches(const std::shared_ptr<const CompiledPattern>& pattern,
                                    const Expr* expr);

struct ModuleMatch {
  std::string function;  // the global function's name
  FoundMatch match;
};

// Matches in every function of `mod`, functions in name order.
absl::StatusOr<std::vector<ModuleMatch>> FindMatches(const Pattern& pattern, const Module& mod);

}  // namespace carve
