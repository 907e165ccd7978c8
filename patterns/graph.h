// The dataflow graph of an expression, as TVM's IndexedGraph<Expr> sees it
// (src/relay/ir/indexed_graph.{h,cc}): every sub-expression (ops, vars and
// constants included) is a node numbered in post-DFS order; inputs/outputs
// are dataflow edges; the post-dominator tree answers "does every path from
// b to the result pass through a?".
//
// Edges follow TVM: a call's inputs are its callee and args; a tuple's its
// fields; a projection's its tuple; an if's cond and branches; a function's
// its body (parameters are nodes, not inputs); a let's its body, and the
// let-bound variable's input is the bound value. Occurrences of a let-bound
// variable inside its own value (recursive functions) are not nodes of the
// value, so the graph stays acyclic.
//
// Build (graph_build.cc) is one iterative DFS that tells visited nodes by
// their scratch mark (Expr::scratch_mark, cleared before it returns) and
// looks up only edges to nodes met before, in a map of those; Derive
// (graph_derive.cc) numbers a partition's result from the previous graph. The address map of every node (ir/address_map.h,
// laid out in address order, so that walks stay cache-friendly on
// million-node graphs) is filled on the first IndexOf: partitioning walks edges. The
// post-dominator tree is computed on first use (TVM's LCA construction,
// consumers first) with an Euler tour, so PostDominates is O(1). Not
// thread-safe (lazy members), and building writes the nodes' scratch marks:
// two threads must not build graphs over shared nodes at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ir/expr.h"
#include "ir/address_map.h"

namespace carve {

// True for the function literals partitioning creates (a PartitionedFromPattern
// attribute): the grouper never matches inside them. As TVM's PatternGrouper,
// a function with only a Composite attribute (written by hand) is matched
// inside like any other.
bool IsCompositeFunction(const Expr* e);

struct IndexedGraphOptions {
  // The expected node count (e.g. the previous graph's), to size tables once.
  size_t size_hint = 0;
  // Composite functions are leaves: their parameters and bodies are not
  // nodes. Grouping never looks inside them (and the rest of the graph keeps
  // its relative order), so partition and rewrite passes use this to keep
  // their graphs from growing as composites accumulate.
  bool opaque_composites = false;
};

class IndexedGraph {
 public:
  static constexpr uint32_t kNone = ~0u;

  explicit IndexedGraph(const Expr* root, const IndexedGraphOptions& options = {});

  // A node of an old graph that a partition replaced by a call of a fresh
  // composite function, whose args are the current versions of
  // replaced_inputs[inputs_begin ...] (as many as the call has args).
  struct Replacement {
    uint32_t node;
    uint32_t inputs_begin;
  };
  // A rebuild of an opaque-composites graph `old` (partition.cc): node i
  // became `current[i]`; `replaced` (by ascending node) lists the nodes
  // that became composite calls (a list, not an array over every node: a
  // partition holds it while it rebuilds, its peak). Returns the graph a
  // fresh IndexedGraph(current[old.root()], {.opaque_composites = true})
  // would build, node for node, computed from `old`'s edges instead of a
  // walk over the expressions; nullptr when `old` holds lets or functions
  // other than the root and opaque composites (a fresh build handles
  // those). `old` is consumed (freed as it goes).
  static std::unique_ptr<IndexedGraph> Derive(std::unique_ptr<IndexedGraph> old,
                                              std::span<const Expr* const> current,
                                              std::span<const Replacement> replaced,
                                              std::span<const uint32_t> replaced_inputs);
  IndexedGraph(const IndexedGraph&) = delete;
  IndexedGraph& operator=(const IndexedGraph&) = delete;

  // From the kinds: the node array may be taken (TakeNodes).
  size_t size() const { return kinds_.size(); }
  // The root expression (the last node).
  uint32_t root() const { return static_cast<uint32_t>(kinds_.size() - 1); }
  const Expr* node(uint32_t i) const { return nodes_[i]; }
  // The kind of node i, and for op calls their op (else nullptr), kept in
  // dense arrays so that scans over all nodes do not touch the nodes.
  ExprKind kind(uint32_t i) const { return kinds_[i]; }
  const OpInfo* call_op(uint32_t i) const { return ops_[op_slots_[i]]; }
  std::span<const Expr* const> nodes() const { return nodes_; }
  // The index of `e`, or kNone when `e` is not in the graph.
  uint32_t IndexOf(const Expr* e) const;
  // When the root is a function whose parameters are nodes: their indices,
  // in order; otherwise empty.
  std::span<const uint32_t> root_params() const { return root_params_; }
  std::span<const uint32_t> inputs(uint32_t i) const {
    return {input_ids_.data() + input_begin_[i], input_begin_[i + 1] - input_begin_[i]};
  }
  // Input k of node `i` when it has `count` inputs (its children then
  // correspond one to one to its inputs), else kNone; kNone for i == kNone.
  uint32_t InputIndex(uint32_t i, size_t k, size_t count) const {
    if (i == kNone) return kNone;
    auto in = inputs(i);
    return in.size() == count ? in[k] : kNone;
  }
  std::span<const uint32_t> outputs(uint32_t i) const {
    if (!has_outputs_) BuildOutputs();
    return {output_ids_.data() + output_begin_[i], output_begin_[i + 1] - output_begin_[i]};
  }
  // True when a rebuild can follow graph edges alone (no lookups by
  // expression): no lets, ifs, matches or references, and no functions with
  // inputs but the root.
  bool RebuildsByEdges() const;
  // Moves the node array out, for a rebuild that keeps each node's current
  // version in it (GraphRebuilder's taking constructor): one array of the
  // graph's size instead of two while it allocates the new nodes, its
  // caller's peak. Until RestoreNodes, node(), nodes() and IndexOf must not
  // be called (RebuildsByEdges graphs rebuild without them).
  std::vector<const Expr*> TakeNodes() {
    std::vector<const Expr*> nodes;
    nodes.swap(nodes_);  // leaves nodes_ empty (a moved-from vector need not be)
    return nodes;
  }
  void RestoreNodes(std::vector<const Expr*> nodes) { nodes_ = std::move(nodes); }
  // Frees the tables computed from the inputs (outputs, post-dominators),
  // computed again on first use: a partition that has found its groups
  // reads only nodes and inputs while it rebuilds (its peak memory). The
  // outputs of a graph with a let stay: their order (a let variable's edge
  // comes with its let, as in TVM) is not the node order they would be
  // computed again in.
  void ReleaseDerivedTables();

  // The immediate post-dominator of `i`, or kNone (the root, and nodes whose
  // consumers do not reconverge).
  uint32_t PostDominator(uint32_t i) const;
  // True when `a` strictly post-dominates `b`: b != a and every dataflow path
  // from b to the result passes through a (TVM's `a->Dominates(b)`).
  bool PostDominates(uint32_t a, uint32_t b) const;
  // The nodes whose immediate post-dominator is `i`.
  std::span<const uint32_t> PostDominated(uint32_t i) const;

 private:
  // The steps of Build, BuildWithMap and Derive, as classes that hold the
  // walk's state (graph_build.cc, graph_derive.cc).
  class MarkedBuilder;
  class MapBuilder;
  class Deriver;

  IndexedGraph() = default;
  void Build(const Expr* root, const IndexedGraphOptions& options);
  void BuildWithMap(const Expr* root, const IndexedGraphOptions& options);
  void BuildEdges(const std::vector<std::pair<uint32_t, uint32_t>>& edges);
  void BuildOutputs() const;
  void BuildIndex() const;
  // The slot of `op` in ops_ (added when new).
  uint16_t OpSlot(const OpInfo* op);
  void ReleaseAllButInputs();
  // Whether every node's children (but the root function's parameters) are
  // its inputs, in order: no let (its variable, not the let, reads its
  // value) and no function with inputs but the root (its parameters are no
  // inputs); with `ifs_too` false, no if, match or reference either (their
  // children are inputs, but the rebuilder looks them up).
  bool InputsAreChildren(bool ifs_too) const;
  void SetRootParams(std::span<const uint32_t> slot_ids);
  void ComputePostDominators() const;
  void ComputeImmediatePostDominators() const;
  void BuildPostDominatorChildren() const;
  void NumberEulerTour() const;
  uint32_t Lca(uint32_t a, uint32_t b) const;

  std::vector<const Expr*> nodes_;
  std::vector<ExprKind> kinds_;
  // Call ops as slots into ops_ (slot 0: not an op call): 2 bytes a node
  // instead of a pointer, for the few distinct ops a graph calls.
  std::vector<uint16_t> op_slots_;
  std::vector<const OpInfo*> ops_ = {nullptr};
  const OpInfo* last_op_ = nullptr;  // OpSlot's last answer (calls repeat ops)
  uint16_t last_slot_ = 0;
  // Built on the first IndexOf when the construction did not need it
  // (Derive): partitioning mostly walks edges, and filling a map of every
  // node is most of a derived graph's cost.
  mutable AddressMap<uint32_t> index_;
  mutable bool has_index_ = false;
  // When the root is a function: its parameters' ids, in order (children
  // but not inputs), so that Derive needs no lookups.
  std::vector<uint32_t> root_params_;
  std::vector<uint32_t> input_begin_, input_ids_;
  // From the inputs (lazy after ReleaseDerivedTables).
  mutable bool has_outputs_ = false;
  mutable std::vector<uint32_t> output_begin_, output_ids_;
  // Whether each node's outputs are in node order (BuildOutputs' order), so
  // that they may be freed and computed again.
  bool outputs_in_node_order_ = true;

  // Post-dominator tree (lazy).
  mutable bool has_postdom_ = false;
  mutable std::vector<uint32_t> ipdom_, depth_;
  mutable std::vector<uint32_t> tree_begin_, tree_ids_;  // children, CSR
  mutable std::vector<uint32_t> tin_, tout_;
};

}  // namespace carve
