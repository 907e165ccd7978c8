// SimplifyExpr (TVM v0.16 src/relay/transforms/simplify_expr.cc): algebraic
// clean-ups written as pattern rules (patterns/rewrite.h) and applied to a
// fixpoint, every rule of TVM's pass in TVM's order (the table is in
// simplify_expr.cc, the rules in simplify_expr_{like,arith,layout,cast}.cc;
// simplify_expr_rules.h lists them). The function must be typed; rules read
// types and give every node they build its type.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"
#include "patterns/rewrite.h"

namespace carve {

// The pass's options (its `carve opt` arguments).
struct SimplifyExprOptions {
  // Ops whose result keeps a clip that changes no value (SimplifyClip leaves
  // clip(op(...)) alone). TVM v0.16 always keeps a clip of qnn.requantize
  // and qnn.add, for one backend's QNN legalization; carve keeps none unless
  // asked, and that backend's recipe asks (docs/tvm-deviations.md).
  std::vector<const OpInfo*> keep_clip_after;
};

// The rule table.
std::vector<RewriteRule> SimplifyExprRules(const SimplifyExprOptions& options = {});

absl::StatusOr<const Function*> SimplifyExprFunction(const Function* fn, Arena* arena,
                                                     const SimplifyExprOptions& options = {});
PassPtr SimplifyExpr(SimplifyExprOptions options = {});

// `names` as op handles; InvalidArgument for a name that is not an op.
absl::StatusOr<SimplifyExprOptions> SimplifyExprOptionsFor(
    const std::vector<std::string>& keep_clip_after);

}  // namespace carve
