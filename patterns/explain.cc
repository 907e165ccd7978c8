#include "patterns/explain.h"

#include "fmt/format.h"
#include "patterns/describe.h"
#include "patterns/graph.h"
#include "patterns/group.h"
#include "support/status_macros.h"

namespace carve {
namespace {

std::vector<std::pair<std::string, const Expr*>> Captures(const Matcher& m) {
  std::vector<std::pair<std::string, const Expr*>> out;
  for (const auto& [name, id] : m.pattern().captures()) out.emplace_back(name, m.Bound(id));
  return out;
}

std::string DefaultName(const Expr* e) {
  if (const auto* v = DynCast<Var>(e)) return fmt::format("%{}", v->name());
  if (const auto* g = DynCast<GlobalVar>(e)) return fmt::format("@{}", g->name());
  return DescribeExpr(e);
}

}  // namespace

Explanation Explain(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* node,
                    const IndexedGraph* graph, const NodeNamer& namer) {
  Matcher matcher(pattern, graph);
  matcher.set_explain(true);
  matcher.set_namer(namer);
  Explanation out;
  out.node = node;
  if (matcher.Match(node)) {
    out.verdict = Explanation::Verdict::kMatched;
    out.captures = Captures(matcher);
    return out;
  }
  out.verdict = Explanation::Verdict::kNoMatch;
  if (const auto& f = matcher.failure()) {
    out.failed_at = f->expr;
    out.sub_pattern = pattern->node(f->pattern_id).node;
    out.reason = f->reason;
    out.path = f->path;
  } else {
    out.failed_at = node;
    out.reason = "no match";
  }
  return out;
}

absl::StatusOr<Explanation> Explain(const Pattern& pattern, const Expr* node,
                                    const IndexedGraph* graph) {
  CARVE_ASSIGN_OR_RETURN(auto compiled, CompilePattern(pattern));
  return Explain(compiled, node, graph);
}

Explanation ExplainInGraph(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* root,
                           const Expr* node, const NodeNamer& namer) {
  IndexedGraph graph(root, {.opaque_composites = true});  // as partition sees it
  uint32_t index = graph.IndexOf(node);
  Explanation out = Explain(pattern, node, &graph, namer);
  if (index == IndexedGraph::kNone) return out;
  PatternGrouper grouper(pattern, graph);
  grouper.Run();
  uint32_t gid = grouper.GroupOf(index);
  if (gid != IndexedGraph::kNone && grouper.groups()[gid].root != index) {
    out.verdict = Explanation::Verdict::kClaimed;
    out.claimed_by = graph.node(grouper.groups()[gid].root);
    out.reason = "the node is inside a match rooted at another node";
    return out;
  }
  if (out.matched() && gid == IndexedGraph::kNone) {
    out.verdict = Explanation::Verdict::kRejected;
    out.reason = "the match was not used";
    for (const GroupRejection& r : grouper.rejections()) {
      if (r.root == index) out.reason = r.Reason(namer);
    }
  }
  return out;
}

std::string RenderExplanation(const Explanation& e, std::string_view pattern_name,
                              const NodeNamer& namer) {
  auto name = [&](const Expr* x) {
    std::string handle = namer ? namer(x).handle : "";
    return handle.empty() ? DefaultName(x) : handle;
  };
  std::string at = fmt::format("{} at {}", pattern_name, name(e.node));
  switch (e.verdict) {
    case Explanation::Verdict::kMatched: {
      std::string out = fmt::format("{} matches at {}", pattern_name, name(e.node));
      std::string caps;
      for (const auto& [n, x] : e.captures) {
        if (x == nullptr) continue;
        caps += fmt::format("{}?{} = {}", caps.empty() ? "" : ", ", n, name(x));
      }
      return caps.empty() ? out : fmt::format("{} ({})", out, caps);
    }
    case Explanation::Verdict::kNoMatch: {
      std::string path = PathToString(e.path);
      return path.empty() ? fmt::format("{}: {}", at, e.reason)
                          : fmt::format("{}: {}: {}", at, path, e.reason);
    }
    case Explanation::Verdict::kRejected:
      return fmt::format("{}: matches, but cannot be grouped: {}", at, e.reason);
    case Explanation::Verdict::kClaimed:
      return fmt::format("{}: already part of the match at {}", at, name(e.claimed_by));
  }
  return at;
}

}  // namespace carve
