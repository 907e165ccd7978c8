// SimplifyExpr (TVM v0.16 src/relay/transforms/simplify_expr.cc): algebraic
// clean-ups written as pattern rules (patterns/rewrite.h) and applied to a
// fixpoint, every rule of TVM's pass in TVM's order (the table is in
// simplify_expr.cc, the rules in simplify_expr_{like,arith,layout,cast}.cc;
// simplify_expr_rules.h lists them). The function must be typed; rules read
// types and give every node they build its type.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"
#include "patterns/rewrite.h"

namespace carve {

// The rule table.
std::vector<RewriteRule> SimplifyExprRules();

absl::StatusOr<const Function*> SimplifyExprFunction(const Function* fn, Arena* arena);
PassPtr SimplifyExpr();

}  // namespace carve
