// Rebuilding expressions after a grouper pass (partition.cc, rewrite.cc),
// over ir/rebuild.h's RebuildWithChildren. Rebuilt nodes keep the original's
// span and checked type (partitioning and rewriting re-link nodes without
// changing what they compute), so later `check` callbacks and type
// constraints still see typed nodes without a whole-graph re-inference.
#pragma once

#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "ir/expr.h"
#include "patterns/graph.h"

namespace carve {

// `e` with every child c replaced by map(c); `e` itself when no child
// changes. Function params and let variables that map to a non-Var keep
// their original.
const Expr* RebuildNode(const Expr* e, absl::FunctionRef<const Expr*(const Expr*)> map,
                        IRBuilder& builder);

// Rebuilds a graph bottom-up by node index: call Rebuild(i) (or Set(i, e))
// for i = 0, 1, ... in order. Children are found through the graph's edges,
// so the common case (calls, tuples, projections, ifs) does no hashing; a
// node none of whose children changed is kept as is.
class GraphRebuilder {
 public:
  GraphRebuilder(const IndexedGraph& graph, IRBuilder& builder);
  // Over `nodes`, the graph's own node array (IndexedGraph::TakeNodes, on a
  // graph that RebuildsByEdges): no copy of it. Until node i is rebuilt or
  // set, At(i) is its original, which Rebuild(i) and Set(i, e) read (so
  // each is called once per node); Mapped must not be called.
  GraphRebuilder(const IndexedGraph& graph, IRBuilder& builder, std::vector<const Expr*> nodes);

  // Node i rebuilt over its children's current versions; also records it.
  const Expr* Rebuild(uint32_t i);
  // Replaces node i (after Rebuild(i), or instead of it; with taken nodes,
  // instead of it only).
  void Set(uint32_t i, const Expr* e);
  // The current version of node i.
  const Expr* At(uint32_t i) const { return out_[i]; }
  // Node i of the graph; with taken nodes, until node i is processed.
  const Expr* Original(uint32_t i) const { return taken_ ? out_[i] : graph_.node(i); }
  // The current version of any expression (itself when not in the graph).
  const Expr* Mapped(const Expr* e) const;
  // Every node's current version, by index (leaves the rebuilder empty).
  std::vector<const Expr*> Release() && { return std::move(out_); }
  // True when some node was replaced so far.
  bool changed_any() const { return changed_any_; }

 private:
  bool ChildrenChanged(uint32_t i, const Expr* e) const;
  const Expr* RebuildRootFunction(const Function* fn, uint32_t body);

  const IndexedGraph& graph_;
  IRBuilder& builder_;
  std::vector<const Expr*> out_;
  bool taken_ = false;  // out_ is the graph's node array
  std::vector<uint8_t> changed_;
  std::vector<const Expr*> scratch_;  // children of the node being rebuilt
  bool changed_any_ = false;
};

}  // namespace carve
