#include "patterns/partition.h"

#include <memory>

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

// Partitions in an existing graph (so that a table of patterns reuses one
// graph while nothing changes).
const Expr* PartitionInGraph(const std::shared_ptr<const CompiledPattern>& pattern,
                             const IndexedGraph& graph, Arena* arena,
                             const PartitionOptions& options, PartitionStats* stats) {
  const Expr* root = graph.node(graph.root());
  if (pattern->node(pattern->root()).kind == PatternKind::kFunction) return root;
  PatternGrouper grouper(pattern, graph);
  grouper.Run();
  if (stats != nullptr) stats->groups = static_cast<int>(grouper.groups().size());
  if (grouper.groups().empty()) return root;

  // Post-order rewrite: rebuild nodes whose children changed, replace
  // accepted group roots by calls of their functions.
  IRBuilder b(arena);
  GraphRebuilder rebuilder(graph, b);
  for (uint32_t i = 0; i < graph.size(); ++i) {
    rebuilder.Rebuild(i);
    uint32_t gid = grouper.GroupOf(i);
    if (gid == IndexedGraph::kNone || grouper.groups()[gid].root != i) continue;
    const Expr* pre = graph.node(i);
    if (options.check && !options.check(pre)) continue;
    const Group& group = grouper.groups()[gid];
    std::vector<const Expr*> args;
    args.reserve(group.inputs.size());
    for (uint32_t in : group.inputs) args.push_back(rebuilder.At(in));
    const Expr* call = b.MakeCall(MakeGroupFunction(group, graph, options, b), args);
    call->set_checked_type(pre->checked_type());
    rebuilder.Set(i, call);
    if (stats != nullptr) ++stats->partitioned;
  }
  return rebuilder.At(graph.root());
}

// False when the pattern can only match calls of ops absent from the graph
// (their op nodes are graph nodes, so this is one lookup per op).
bool MayMatch(const CompiledPattern& pattern, const IndexedGraph& graph) {
  const RootFilter& f = pattern.root_filter();
  for (int k = 0; k <= static_cast<int>(ExprKind::kFunction); ++k) {
    if (f.HasKind(static_cast<ExprKind>(k))) return true;
  }
  for (const OpInfo* op : f.ops()) {
    if (graph.IndexOf(GetOp(op)) != IndexedGraph::kNone) return true;
  }
  return false;
}

}  // namespace

const Expr* Partition(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* expr,
                      Arena* arena, const PartitionOptions& options, PartitionStats* stats) {
  if (pattern->node(pattern->root()).kind == PatternKind::kFunction) return expr;
  IndexedGraph graph(expr);
  return PartitionInGraph(pattern, graph, arena, options, stats);
}

absl::StatusOr<const Expr*> Partition(const Pattern& pattern, const Expr* expr, Arena* arena,
                                      const PartitionOptions& options, PartitionStats* stats) {
  CARVE_ASSIGN_OR_RETURN(auto compiled, CompilePattern(pattern));
  return Partition(compiled, expr, arena, options, stats);
}

absl::StatusOr<const Expr*> PartitionComposites(const std::vector<CompositeEntry>& table,
                                                const Expr* expr, Arena* arena) {
  // One graph serves every entry until an entry changes the expression;
  // entries whose root ops are absent cost one lookup per op.
  std::unique_ptr<IndexedGraph> graph;
  size_t size_hint = 0;
  for (const CompositeEntry& entry : table) {
    auto compiled = CompilePattern(entry.pattern);
    if (!compiled.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "composite '{}': {}", entry.name, std::string(compiled.status().message())));
    }
    if ((*compiled)->node((*compiled)->root()).kind == PatternKind::kFunction) continue;
    if (graph == nullptr) graph = std::make_unique<IndexedGraph>(expr, size_hint);
    if (!MayMatch(**compiled, *graph)) continue;
    PartitionOptions options;
    options.attrs.push_back({"Composite", AttrValue::Str(entry.name)});
    options.check = entry.check;
    const Expr* out = PartitionInGraph(*compiled, *graph, arena, options, nullptr);
    if (out != expr) {
      size_hint = graph->size() + graph->size() / 8;
      graph.reset();
      expr = out;
    }
  }
  return expr;
}

}  // namespace carve
