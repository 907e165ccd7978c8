#include "patterns/rewrite.h"

#include <algorithm>
#include <memory>

#include "fmt/format.h"
#include "ir/structural_equal.h"
#include "patterns/compile_cache.h"
#include "patterns/graph.h"
#include "patterns/group.h"
#include "patterns/rebuild.h"
#include "support/cancellation.h"
#include "support/status_macros.h"

namespace carve {

const Expr* RewriteContext::First(uint32_t id) const {
  for (const Binding& b : bindings_) {
    if (b.pattern_id == id) return to_post_(b.expr);
  }
  return nullptr;
}

const Expr* RewriteContext::Capture(std::string_view name) const {
  std::optional<uint32_t> id = pattern_.CaptureId(name);
  return id ? First(*id) : nullptr;
}

const Expr* RewriteContext::Get(const Pattern& p) const {
  std::optional<uint32_t> id = p ? pattern_.IdOf(p.get()) : std::nullopt;
  return id ? First(*id) : nullptr;
}

std::vector<const Expr*> RewriteContext::GetAll(const Pattern& p) const {
  std::vector<const Expr*> out;
  std::optional<uint32_t> id = p ? pattern_.IdOf(p.get()) : std::nullopt;
  if (!id) return out;
  for (const Binding& b : bindings_) {
    if (b.pattern_id == *id) out.push_back(to_post_(b.expr));
  }
  return out;
}

namespace {

struct CompiledRule {
  const RewriteRule* rule;
  std::shared_ptr<const CompiledPattern> pattern;
  bool done = false;
  int64_t total = 0;
  int64_t last_round = 0;
  int64_t previous_round = 0;  // last_round of the round before
};

// One pass of one rule over `graph` (of `expr`): group, then rebuild
// bottom-up calling the rule at each group root. Returns the new expression
// and counts rewrites. A graph larger than `max_nodes` (when positive) is
// left as it is.
absl::StatusOr<const Expr*> ApplyRuleOnce(CompiledRule& rule, const Expr* expr,
                                          const IndexedGraph& graph, Arena* arena,
                                          int64_t* rewrites, int64_t max_nodes) {
  if (max_nodes > 0 && static_cast<int64_t>(graph.size()) > max_nodes) return expr;
  PatternGrouper grouper(rule.pattern, graph);
  grouper.Run();
  // A Ctrl-C cuts the search short: its groups are too few to call the
  // round converged.
  CARVE_RETURN_IF_ERROR(CheckCancellation());
  if (grouper.groups().empty()) return expr;
  IRBuilder b(arena);
  GraphRebuilder rebuilder(graph, b);
  std::function<const Expr*(const Expr*)> to_post = [&](const Expr* e) {
    return rebuilder.Mapped(e);
  };
  CancellationPoll cancel;
  for (uint32_t i = 0; i < graph.size(); ++i) {
    if (cancel.Requested()) return CheckCancellation();
    const Expr* post = rebuilder.Rebuild(i);
    uint32_t gid = grouper.GroupOf(i);
    if (gid == IndexedGraph::kNone || grouper.groups()[gid].root != i) continue;
    const Group& group = grouper.groups()[gid];
    RewriteContext ctx(graph.node(i), post, *rule.pattern, group.bindings, to_post, b);
    CARVE_ASSIGN_OR_RETURN(const Expr* out, rule.rule->rewrite(ctx));
    if (out == nullptr) {
      return absl::InternalError(
          fmt::format("rewrite rule '{}' returned no expression", rule.rule->name));
    }
    if (out != post) ++*rewrites;
    rebuilder.Set(i, out);
  }
  return rebuilder.At(graph.root());
}

bool SameExpr(const Expr* a, const Expr* b) { return a == b || StructuralEqual(a, b); }

std::string Plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The rules that rewrote something in the last round, with their counts.
// A round stopped part way (the graph grew too large) counts the rules it
// has not reached with the round before.
std::string StillFiring(const std::vector<CompiledRule>& rules, bool partial_round = false) {
  std::string firing;
  for (const CompiledRule& r : rules) {
    int64_t last = r.last_round > 0 || !partial_round ? r.last_round : r.previous_round;
    if (last == 0) continue;
    if (!firing.empty()) firing += ", ";
    firing += fmt::format("{} ({} in the last round, {} in total)", r.rule->name,
                          Plural(last, "rewrite"), r.total);
  }
  return firing.empty() ? "(none)" : firing;
}

absl::Status NotConverged(const std::vector<CompiledRule>& rules, int rounds, bool by_rewrites) {
  return absl::ResourceExhaustedError(fmt::format(
      "rewriting did not converge after {}{}; still firing: {}", Plural(rounds, "round"),
      by_rewrites ? " (rewrite limit reached)" : "", StillFiring(rules)));
}

// `round`: the round under way, stopped part way.
absl::Status GrewTooLarge(const std::vector<CompiledRule>& rules, int round, int64_t start,
                          int64_t nodes, int64_t limit) {
  // Rounds that rewrote: this one only when a rule of it already did.
  bool this_round = false;
  for (const CompiledRule& r : rules) this_round |= r.last_round > 0;
  int rounds = this_round ? round : round - 1;
  return absl::ResourceExhaustedError(fmt::format(
      "rewriting grew the graph from {} to {} nodes, over the node limit of {}, in {}; still "
      "firing: {}",
      start, nodes, limit, Plural(rounds, "round"), StillFiring(rules, true)));
}

// The rules with their patterns compiled. InvalidArgument for a pattern
// that does not compile, FailedPrecondition for a rule that needs types
// when `options` cannot give them.
absl::StatusOr<std::vector<CompiledRule>> CompileRules(const std::vector<RewriteRule>& rules,
                                                       const RewriteOptions& options) {
  std::vector<CompiledRule> compiled;
  for (const RewriteRule& rule : rules) {
    // Memoized per pattern node: passes that keep their rule table for the
    // process (SimplifyExpr, the dnnl rewrites) compile each rule once.
    auto p = CompilePatternCached(rule.pattern);
    if (!p.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("rule '{}': {}", rule.name, std::string(p.status().message())));
    }
    if (rule.require_type && !options.retype) {
      return absl::FailedPreconditionError(
          fmt::format("rule '{}' requires types, but no retype callback was given", rule.name));
    }
    compiled.push_back({&rule, *std::move(p)});
  }
  return compiled;
}

}  // namespace

absl::StatusOr<RewriteResult> RewriteExpr(const std::vector<RewriteRule>& rules, const Expr* expr,
                                          Arena* arena, const RewriteOptions& options) {
  CARVE_ASSIGN_OR_RETURN(std::vector<CompiledRule> compiled, CompileRules(rules, options));
  RewriteResult result;
  const Expr* typed = nullptr;  // the expression last re-typed
  int64_t total = 0;
  int64_t start_nodes = -1, max_nodes = options.max_nodes;
  std::unique_ptr<IndexedGraph> graph;
  const Expr* graph_of = nullptr;  // the expression `graph` indexes
  for (int round = 1;; ++round) {
    const Expr* start = expr;
    for (CompiledRule& rule : compiled) {
      rule.previous_round = rule.last_round;
      rule.last_round = 0;
      if (rule.done) continue;
      // Ctrl-C (support/cancellation.h): a growing or cycling rule set stops
      // here, or within a few thousand nodes inside ApplyRuleOnce.
      CARVE_RETURN_IF_ERROR(CheckCancellation());
      if (rule.rule->require_type && typed != expr) {
        CARVE_ASSIGN_OR_RETURN(expr, options.retype(expr));
        typed = expr;
      }
      const Expr* before = expr;
      // Most rules find nothing to rewrite: the next one groups the same
      // graph, so it is indexed again only once a rule changed the
      // expression.
      if (graph_of != expr) {
        graph.reset();  // before the next is built: one graph at a time
        graph =
            std::make_unique<IndexedGraph>(expr, IndexedGraphOptions{.opaque_composites = true});
        graph_of = expr;
      }
      // Checked on the graph each rule pass indexes anyway, before the pass
      // rewrites it: memory stays within about twice the limit.
      int64_t nodes = static_cast<int64_t>(graph->size());
      CARVE_ASSIGN_OR_RETURN(expr,
                             ApplyRuleOnce(rule, expr, *graph, arena, &rule.last_round, max_nodes));
      if (start_nodes < 0) {
        start_nodes = nodes;
        if (max_nodes <= 0) max_nodes = DefaultMaxNodes(nodes);
      }
      if (nodes > max_nodes) return GrewTooLarge(compiled, round, start_nodes, nodes, max_nodes);
      rule.total += rule.last_round;
      total += rule.last_round;
      if (rule.rule->rewrite_once && !SameExpr(before, expr)) rule.done = true;
    }
    result.rounds = round;
    if (SameExpr(start, expr)) break;
    if (total >= options.max_rewrites) return NotConverged(compiled, round, true);
    if (round >= options.max_rounds) return NotConverged(compiled, round, false);
  }
  result.expr = expr;
  for (const CompiledRule& r : compiled) result.rewrites.emplace_back(r.rule->name, r.total);
  return result;
}

absl::StatusOr<RewriteResult> RewriteModule(const std::vector<RewriteRule>& rules, Module& mod,
                                            const RewriteOptions& options) {
  RewriteResult total;
  for (const RewriteRule& rule : rules) total.rewrites.emplace_back(rule.name, 0);
  for (const auto& [gv, fn] : mod.Functions()) {
    auto r = RewriteExpr(rules, fn, mod.arena(), options);
    if (!r.ok()) {
      return absl::Status(r.status().code(),
                          fmt::format("@{}: {}", gv->name(), std::string(r.status().message())));
    }
    if (r->expr != fn) {
      const auto* rewritten = DynCast<Function>(r->expr);
      if (rewritten == nullptr) {
        return absl::FailedPreconditionError(
            fmt::format("@{}: the rules rewrote the function into a non-function", gv->name()));
      }
      mod.Add(gv, rewritten);
    }
    total.rounds = std::max(total.rounds, r->rounds);
    for (size_t i = 0; i < rules.size(); ++i) total.rewrites[i].second += r->rewrites[i].second;
  }
  return total;
}

}  // namespace carve
