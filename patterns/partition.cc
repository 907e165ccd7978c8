#include "patterns/partition.h"

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "patterns/graph.h"
#include "patterns/group.h"
#include "patterns/rebuild.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// The function literal of a group: its body rebuilt over fresh parameters.
const Function* MakeGroupFunction(const Group& group, const IndexedGraph& graph,
                                  const PartitionOptions& options, IRBuilder& b) {
  absl::flat_hash_map<const Expr*, const Expr*> map;
  std::vector<const Var*> params;
  for (size_t k = 0; k < group.inputs.size(); ++k) {
    params.push_back(b.MakeVar(fmt::format("FunctionVar_{}_{}", group.number, k)));
    map[graph.node(group.inputs[k])] = params.back();
  }
  auto mapped = [&](const Expr* c) {
    auto it = map.find(c);
    return it == map.end() ? c : it->second;
  };
  for (uint32_t n : group.nodes) {
    const Expr* e = graph.node(n);
    const Expr* r = RebuildNode(e, mapped, b);
    if (r != e) map[e] = r;
  }
  const Attrs* attrs =
      WithAttr(EmptyAttrs(), "PartitionedFromPattern", AttrValue::Str(group.label));
  for (const AttrEntry& a : options.attrs) attrs = WithAttr(attrs, a.key, a.value);
  return b.MakeFunction(params, mapped(graph.node(group.root)), nullptr, attrs);
}

}  // namespace

const Expr* Partition(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* expr,
                      Arena* arena, const PartitionOptions& options, PartitionStats* stats) {
  if (pattern->node(pattern->root()).kind == PatternKind::kFunction) return expr;
  IndexedGraph graph(expr);
  PatternGrouper grouper(pattern, graph);
  grouper.Run();
  if (stats != nullptr) stats->groups = static_cast<int>(grouper.groups().size());
  if (grouper.groups().empty()) return expr;

  // Post-order rewrite over the graph: rebuild nodes whose children changed,
  // replace accepted group roots by calls of their functions.
  IRBuilder b(arena);
  std::vector<const Expr*> out(graph.nodes().begin(), graph.nodes().end());
  absl::flat_hash_map<const Expr*, const Expr*> changed;
  auto mapped = [&](const Expr* c) {
    auto it = changed.find(c);
    return it == changed.end() ? c : it->second;
  };
  for (uint32_t i = 0; i < graph.size(); ++i) {
    const Expr* e = graph.node(i);
    const Expr* r = changed.empty() ? e : RebuildNode(e, mapped, b);
    uint32_t gid = grouper.GroupOf(i);
    if (gid != IndexedGraph::kNone && grouper.groups()[gid].root == i &&
        (!options.check || options.check(e))) {
      const Group& group = grouper.groups()[gid];
      std::vector<const Expr*> args;
      for (uint32_t in : group.inputs) args.push_back(mapped(graph.node(in)));
      r = b.MakeCall(MakeGroupFunction(group, graph, options, b), args);
      r->set_checked_type(e->checked_type());
      if (stats != nullptr) ++stats->partitioned;
    }
    if (r != e) changed[e] = r;
  }
  return mapped(expr);
}

absl::StatusOr<const Expr*> Partition(const Pattern& pattern, const Expr* expr, Arena* arena,
                                      const PartitionOptions& options, PartitionStats* stats) {
  CARVE_ASSIGN_OR_RETURN(auto compiled, CompilePattern(pattern));
  return Partition(compiled, expr, arena, options, stats);
}

absl::StatusOr<const Expr*> PartitionComposites(const std::vector<CompositeEntry>& table,
                                                const Expr* expr, Arena* arena) {
  for (const CompositeEntry& entry : table) {
    PartitionOptions options;
    options.attrs.push_back({"Composite", AttrValue::Str(entry.name)});
    options.check = entry.check;
    auto result = Partition(entry.pattern, expr, arena, options);
    if (!result.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("composite '{}': {}", entry.name, std::string(result.status().message())));
    }
    expr = *result;
  }
  return expr;
}

}  // namespace carve
