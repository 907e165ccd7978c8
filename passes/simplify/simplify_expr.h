// SimplifyExpr (TVM v0.16 src/relay/transforms/simplify_expr.cc): algebraic
// clean-ups written as pattern rules (patterns/rewrite.h) and applied to a
// fixpoint. The rule table, one rule per line in simplify_expr.cc:
//   - SimplifyReshape:   reshape-like(reshape-like(x)) -> reshape(x)
//                        (reshape, expand_dims, squeeze, batch_flatten; static
//                        result shape)
//   - SimplifyTranspose: transpose(transpose(x, a), b) -> transpose(x, a.b),
//                        or x when the composition is the identity
//   - SimplifyCast:      cast(x, t) -> x when x already has dtype t
//   - EliminateIdentity: x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 -> x, when the
//                        constant is all zeros / ones and does not broadcast x
//   - ConcretizeLike:    zeros_like(x) -> zeros(shape, dtype), ones_like(x) ->
//                        ones(...) for a static x
// The function must be typed; rules read types and give new nodes types.
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
