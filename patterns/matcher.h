// The pattern matcher, with TVM v0.16's semantics (DFPatternMatcher,
// tvm-reference.md 2.2-2.3):
//  - a pattern node, once matched, is bound to exactly one expression, and a
//    second visit must meet that same expression (shared sub-patterns,
//    diamonds); a failed sub-match rolls back the bindings it made;
//  - alternation is ordered and does not backtrack across siblings;
//  - a call pattern whose op is commutative in the registry
//    (OpInfo::commutative()) retries with swapped args;
//  - when a call pattern's callee does not match, the re-associated forms
//    made by CompilePattern are tried (multiply/divide, see compile.h);
//  - type/dtype/shape constraints read Expr::checked_type() (the module's
//    inferred types: run InferType first; an untyped node does not match);
//  - dominator patterns walk the expression's IndexedGraph.
// The memo is a vector indexed by pattern node id, reset in O(bindings) per
// attempt, so trying a pattern at every node of a graph allocates nothing.
// Recursion follows the pattern (not the expression), except for recursive
// patterns, whose nesting is capped (kMaxDepth) instead of overflowing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"
#include "patterns/compile.h"
#include "patterns/describe.h"
#include "patterns/graph.h"

namespace carve {

// One binding made by a successful match.
struct Binding {
  uint32_t pattern_id;
  // The graph index of `expr` (Matcher::Match with an index), found by
  // following the graph's inputs; IndexedGraph::kNone when not tracked.
  uint32_t index;
  const Expr* expr;
};

// A step from the match root to a sub-expression ("arg 1", "field 0", ...).
struct PathStep {
  enum class Kind : uint8_t {
    kCallee,
    kArg,
    kField,
    kTuple,
    kCond,
    kThen,
    kElse,
    kVar,
    kValue,
    kBody,
    kParam,
    kDominatorInput
  };
  Kind kind;
  uint32_t index = 0;
};
std::string PathToString(std::span<const PathStep> path);

// The first failed constraint of an explained match attempt (explain.h).
struct MatchFailure {
  const Expr* expr = nullptr;  // the node the failing sub-pattern was matched against
  uint32_t pattern_id = 0;     // the failing sub-pattern
  std::string reason;          // "expected a constant, got the variable %w"
  std::vector<PathStep> path;  // from the match root to `expr`
  // Sub-patterns bound when it failed: of two failures at the same depth,
  // the one that matched more came closer (an absent optional op fails at
  // the root before anything matched).
  size_t progress = 0;
};

class Matcher {
 public:
  // Nested pattern visits allowed before a match gives up (recursive
  // patterns over very long chains).
  static constexpr int kMaxDepth = 2000;

  // `graph` is the IndexedGraph the candidate roots belong to; dominator
  // patterns need it (without one, Match builds a graph of its root).
  Matcher(std::shared_ptr<const CompiledPattern> pattern, const IndexedGraph* graph);
  ~Matcher();

  const CompiledPattern& pattern() const { return *pattern_; }
  // Tries the pattern with its root at `expr`. Bindings stay valid until the
  // next call.
  bool Match(const Expr* expr);
  // Same, `expr` being node `index` of the graph the matcher was made with:
  // bindings carry the graph index of their expression wherever the walk
  // follows graph inputs (call callees and args, tuple fields, projected
  // tuples, and the wrappers around them), so that a grouper needs no
  // lookups; elsewhere (dominators, functions, lets, ifs) kNone.
  bool Match(const Expr* expr, uint32_t index);

  // After a successful Match: the expression bound to a pattern node (its
  // first binding), or nullptr.
  const Expr* Bound(uint32_t pattern_id) const { return bound_[pattern_id]; }
  // Every binding in the order made (dominator paths bind many nodes).
  std::span<const Binding> bindings() const { return trail_; }
  // The expression captured as `name`, or nullptr.
  const Expr* Capture(std::string_view name) const;
  // True when the last attempt hit kMaxDepth.
  bool depth_exceeded() const { return depth_exceeded_; }

  // Record the deepest failure of each attempt that no later success undid
  // (slower; for explanations).
  void set_explain(bool on) { explain_ = on; }
  const std::optional<MatchFailure>& failure() const { return failure_; }
  // How failure reasons refer to nodes (explain mode); default: in words.
  void set_namer(NodeNamer namer) { namer_ = std::move(namer); }

 private:
  // `idx`: the graph index of `e`, or kNone (see Match).
  static constexpr uint32_t kNoIndex = IndexedGraph::kNone;
  bool Visit(uint32_t id, const Expr* e, uint32_t idx = kNoIndex);
  bool VisitKind(uint32_t id, const Expr* e, uint32_t idx);
  bool VisitCall(uint32_t id, const Expr* e, uint32_t idx);
  bool MatchArgs(std::span<const uint32_t> pats, std::span<const Expr* const> args, bool swap,
                 uint32_t call_idx);
  bool VisitTuple(uint32_t id, const Expr* e, uint32_t idx);
  bool VisitFunction(uint32_t id, const Expr* e);
  bool VisitLetOrIf(uint32_t id, const Expr* e);
  bool VisitAttr(uint32_t id, const Expr* e, uint32_t idx);
  bool VisitTypeConstraint(uint32_t id, const Expr* e, uint32_t idx);
  bool VisitWhere(uint32_t id, const Expr* e, uint32_t idx);
  // IndexedGraph::InputIndex of the matcher's graph, if any.
  uint32_t InputIndex(uint32_t idx, size_t k, size_t count) const;
  // The child (matched at `e` itself) keeps `idx`; the paths and parent,
  // walked in a graph of their own when `e` is not in the matcher's, bind
  // without indices.
  bool VisitDominator(uint32_t id, const Expr* e, uint32_t idx);
  bool MatchesPath(uint32_t parent, uint32_t path, uint32_t start);
  bool DominatesParent(uint32_t parent, uint32_t start);
  // Visits a child with `step` on the explanation path.
  bool VisitChild(uint32_t id, const Expr* e, PathStep step, uint32_t idx = kNoIndex);
  void Bind(uint32_t id, const Expr* e, uint32_t idx);
  void Rollback(size_t mark);
  // True when a failure here would be closer to a match than `than`: deeper,
  // or as deep with more bound.
  bool Closer(const MatchFailure& than) const;
  // Records a failure (explain mode only); `reason` is built lazily.
  template <typename F>
  bool Fail(uint32_t id, const Expr* e, F&& reason);
  const IndexedGraph* GraphFor(const Expr* e);
  std::string Describe(const Expr* e) const { return DescribeExpr(e, namer_); }

  std::shared_ptr<const CompiledPattern> pattern_;
  const IndexedGraph* graph_;
  std::unique_ptr<IndexedGraph> own_graph_;
  std::vector<const Expr*> bound_;
  std::vector<Binding> trail_;
  std::vector<uint8_t> primary_;  // parallel to trail_: did the binding set bound_?
  bool memoize_ = true;
  int depth_ = 0;
  bool depth_exceeded_ = false;
  bool explain_ = false;
  std::vector<PathStep> path_;
  // Explain mode: the failures of the attempt so far, each deeper than the
  // one before; a sub-pattern that matches drops the ones recorded inside
  // it. The last one left is failure_.
  std::vector<MatchFailure> failures_;
  std::optional<MatchFailure> failure_;
  NodeNamer namer_;
};

// Convenience for tests and one-off queries: compiles `pattern` and matches
// it at `expr` (graph rooted at `expr`). False for invalid patterns.
bool MatchPattern(const Pattern& pattern, const Expr* expr);

}  // namespace carve
