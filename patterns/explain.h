// Explanations: why a pattern does or does not match at a node, as data
// (the node, the failing sub-pattern and sub-expression, a reason, the path
// between them) plus a one-line renderer for `carve why` and the REPL:
//
//   dnnl.conv2d_bias_relu at %12: arg 0, arg 1: expected a constant, got the variable %w
//
// When several constraints fail (alternatives, commuted args), the failure
// reached deepest into the expression is reported: it is the one that came
// closest to matching. ExplainInGraph also reports grouping decisions (a
// match rejected because an interior value escapes, or a node already taken
// by another match), which is what "why was this node not offloaded" needs.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "patterns/compile.h"
#include "patterns/describe.h"
#include "patterns/matcher.h"
#include "patterns/pattern.h"

namespace carve {

struct Explanation {
  enum class Verdict : uint8_t {
    kMatched,   // the pattern matches at the node (and, in a graph, forms a group)
    kNoMatch,   // a constraint failed: failed_at / sub_pattern / reason
    kRejected,  // matched, but grouping rejected it: reason
    kClaimed,   // the node belongs to a group rooted elsewhere: claimed_by
  };
  Verdict verdict = Verdict::kNoMatch;
  const Expr* node = nullptr;                // the node asked about
  const Expr* failed_at = nullptr;           // kNoMatch: where the constraint failed
  const PatternNode* sub_pattern = nullptr;  // kNoMatch: the failing sub-pattern
  std::string reason;
  std::vector<PathStep> path;        // kNoMatch: from node to failed_at
  const Expr* claimed_by = nullptr;  // kClaimed: the other group's root
  // kMatched: the captures, in pattern post-order.
  std::vector<std::pair<std::string, const Expr*>> captures;

  bool matched() const { return verdict == Verdict::kMatched; }
};

// Explains a match attempt of `pattern` at `node`. `graph` (optional) is the
// graph `node` lives in, for dominator patterns.
// `namer` (optional) names the nodes the reason mentions.
absl::StatusOr<Explanation> Explain(const Pattern& pattern, const Expr* node,
                                    const IndexedGraph* graph = nullptr);
Explanation Explain(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* node,
                    const IndexedGraph* graph = nullptr, const NodeNamer& namer = {});

// Explains `node` within the graph of `root` (a function body or function),
// including the grouping rules partition and rewriting apply.
Explanation ExplainInGraph(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* root,
                           const Expr* node, const NodeNamer& namer = {});

// "NAME at NODE: PATH: REASON" / "NAME matches at NODE (captures ...)".
// `namer` names the nodes (e.g. the printer's `%12`, see describe.h); without
// one, or for nodes it has no handle for, variables are named `%x` and other
// nodes described in words.
std::string RenderExplanation(const Explanation& explanation, std::string_view pattern_name,
                              const NodeNamer& namer = {});

}  // namespace carve
