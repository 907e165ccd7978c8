// The rewrite driver: rules {name, pattern, rewrite} applied until nothing
// changes, with TVM's `rewrite` semantics (tvm-reference.md 2.6):
//  - a round applies each active rule once, in order: group its matches in
//    the current graph (group.h: consumers first, no overlaps, no escaping
//    interior values), then rebuild bottom-up, calling the rule's rewrite at
//    each group root with the matched nodes mapped to their rebuilt versions;
//    returning `post` means "no change";
//  - rounds repeat until a round leaves the expression structurally equal
//    (ir/structural_equal.h) to the one it started from;
//  - `rewrite_once` retires a rule after its first pass that changed the
//    graph;
//  - `require_type` runs the caller's InferType callback before the rule's
//    pass whenever the expression changed since it was last typed (patterns/
//    does not depend on passes/, so the callback is injected);
//  - instead of TVM's abort after 100 passes, the driver stops at
//    `max_rounds` / `max_rewrites` and returns ResourceExhausted naming the
//    rules that were still firing, with their counts;
//  - a rule set that grows the graph (`nn.relu(?x) => nn.relu(nn.relu(?x))`
//    doubles it every round) stops when the graph passes `max_nodes`
//    (default: 16 times its starting size, at least 65536 nodes), within
//    seconds, with ResourceExhausted naming the rules and the sizes; without
//    it the rounds limit would be reached only after memory ran out.
// Each rule pass walks only the candidate roots its pattern's RootFilter
// admits (the per-pass worklist); rules whose root ops do not occur in the
// graph cost one graph walk.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/module.h"
#include "patterns/compile.h"
#include "patterns/matcher.h"
#include "patterns/pattern.h"

namespace carve {

// What a rewrite callback sees at a group root.
class RewriteContext {
 public:
  RewriteContext(const Expr* pre, const Expr* post, const CompiledPattern& pattern,
                 std::span<const Binding> bindings,
                 const std::function<const Expr*(const Expr*)>& to_post, IRBuilder& builder)
      : pre_(pre),
        post_(post),
        pattern_(pattern),
        bindings_(bindings),
        to_post_(to_post),
        builder_(builder) {}

  // The matched root before and after its inputs were rewritten.
  const Expr* pre() const { return pre_; }
  const Expr* post() const { return post_; }
  // The rebuilt expression captured as `name`, or nullptr.
  const Expr* Capture(std::string_view name) const;
  // The rebuilt expression bound to `p` (a node of the rule's pattern), or
  // nullptr; TVM's `node_map[p][0]`.
  const Expr* Get(const Pattern& p) const;
  // Every rebuilt expression bound to `p`, in binding order (node_map[p]).
  std::vector<const Expr*> GetAll(const Pattern& p) const;
  IRBuilder& builder() const { return builder_; }

 private:
  const Expr* First(uint32_t pattern_id) const;

  const Expr* pre_;
  const Expr* post_;
  const CompiledPattern& pattern_;
  std::span<const Binding> bindings_;
  const std::function<const Expr*(const Expr*)>& to_post_;
  IRBuilder& builder_;
};

// Returns the replacement of ctx.post() (ctx.post() itself: no change).
using RewriteCallback = std::function<absl::StatusOr<const Expr*>(const RewriteContext& ctx)>;

struct RewriteRule {
  std::string name;
  Pattern pattern;
  RewriteCallback rewrite;
  bool require_type = false;
  bool rewrite_once = false;
};

// Re-types an expression (InferExprType), returning the typed expression.
using RetypeFunction = std::function<absl::StatusOr<const Expr*>(const Expr*)>;

struct RewriteOptions {
  int max_rounds = 100;
  int64_t max_rewrites = int64_t{1} << 24;
  // The largest graph (nodes of the expression's dataflow graph) rewriting
  // may build; 0 = DefaultMaxNodes(the starting size).
  int64_t max_nodes = 0;
  // Required when a rule has require_type.
  RetypeFunction retype;
};

struct RewriteResult {
  const Expr* expr = nullptr;
  int rounds = 0;
  // Rewrites applied per rule, in rule order.
  std::vector<std::pair<std::string, int64_t>> rewrites;
};

// The node limit used when RewriteOptions::max_nodes is 0: room for rules
// that expand ops into several, not for unbounded growth.
inline constexpr int64_t kRewriteGrowthFactor = 16;
inline constexpr int64_t kRewriteMinNodeLimit = int64_t{1} << 16;
inline int64_t DefaultMaxNodes(int64_t start_nodes) {
  return std::max(kRewriteMinNodeLimit, kRewriteGrowthFactor * start_nodes);
}

// Rewrites `expr` to a fixpoint. New nodes go to `arena`. Errors: invalid
// patterns (InvalidArgument, naming the rule), a callback's error, a missing
// retype callback (FailedPrecondition), non-convergence (ResourceExhausted:
// "rewriting did not converge after 100 rounds; still firing: bn (1 rewrite
// in the last round, 100 in total), ..."; or "rewriting grew the graph from
// 3 to 98307 nodes, over the node limit of 65536, in 16 rounds; still
// firing: ...").
absl::StatusOr<RewriteResult> RewriteExpr(const std::vector<RewriteRule>& rules, const Expr* expr,
                                          Arena* arena, const RewriteOptions& options = {});

// Rewrites every function of `mod` (in name order) to a fixpoint, replacing
// the changed ones; new nodes go to the module's arena. Counts and rounds
// are summed / maximised over the functions; errors name the function.
absl::StatusOr<RewriteResult> RewriteModule(const std::vector<RewriteRule>& rules, Module& mod,
                                            const RewriteOptions& options = {});

}  // namespace carve
