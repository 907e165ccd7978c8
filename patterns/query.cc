#include "patterns/query.h"

#include "patterns/graph.h"
#include "patterns/matcher.h"
#include "support/status_macros.h"

namespace carve {

std::vector<FoundMatch> FindMatches(const std::shared_ptr<const CompiledPattern>& pattern,
                                    const Expr* expr) {
  IndexedGraph graph(expr);
  Matcher matcher(pattern, &graph);
  std::vector<FoundMatch> out;
  for (const Expr* e : graph.nodes()) {
    if (!pattern->root_filter().Admits(e) || !matcher.Match(e)) continue;
    FoundMatch m{e, {}};
    for (const auto& [name, id] : pattern->captures())
      m.captures.emplace_back(name, matcher.Bound(id));
    out.push_back(std::move(m));
  }
  return out;
}

absl::StatusOr<std::vector<ModuleMatch>> FindMatches(const Pattern& pattern, const Module& mod) {
  CARVE_ASSIGN_OR_RETURN(auto compiled, CompilePattern(pattern));
  std::vector<ModuleMatch> out;
  for (const auto& [gv, fn] : mod.Functions()) {
    for (FoundMatch& m : FindMatches(compiled, fn)) {
      out.push_back({std::string(gv->name()), std::move(m)});
    }
  }
  return out;
}

}  // namespace carve
