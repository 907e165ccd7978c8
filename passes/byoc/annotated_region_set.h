// AnnotatedRegionSet: the regions delimited by compiler_begin / compiler_end
// annotations in an expression (TVM v0.16 src/relay/analysis/
// annotated_region_set.{h,cc}; tvm-reference 3.3).
//
// Construction follows TVM's visit exactly, so region ids match TVM's (and so
// do PartitionGraph's function names, `..._main_<id>`):
//   - each compiler_begin opens a new region (ids count up in visit order);
//   - a call, tuple or projection joins the regions of its arguments that are
//     not compiler_end calls, merging them into the first one's region (the
//     merged ids disappear, so ids have gaps); its non-end arguments must be
//     all inside regions or all outside;
//   - let and if nodes do the same with (var, value, body) / (cond, then,
//     else) before their operands are visited, so in practice they stay
//     outside regions;
//   - a compiler_end joins its argument's region as an output.
// Merging appends the source's inputs and outputs after the destination's and
// drops the inputs (and the outputs feeding them) that became internal.
//
// Unlike TVM (a linear scan over regions per query), lookups are O(1)
// amortized (a node map plus union-find over region ids), merges are O(1)
// list splices, and malformed annotations are errors, not crashes.
//
// Construction numbers the nodes it visits densely in DFS pre-order: every
// non-atom node but the function literals with a region-free body (see
// HasRegionFreeBody) and the nodes only their bodies hold, as nothing in
// them belongs to a region. It keeps their children's numbers, kinds and
// regions in arrays indexed by that number: analyses over the same graph
// (MergeCompilerRegions) walk these arrays instead of the nodes, and look a
// node up by address only to enter the numbering.
//
// The set is an analysis of one function: passes get it through the pass
// manager's cache (Get below), so passes in one pipeline that read the
// regions of the same function build them once.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ir/address_map.h"
#include "ir/expr.h"
#include "passes/analysis_manager.h"
#include "passes/byoc/dataflow_deps.h"

namespace carve {

class AnnotatedRegionSet {
 public:
  // A region id; kNoRegion for nodes outside every region.
  using RegionId = int;
  static constexpr RegionId kNoRegion = -1;

  // Builds the regions of `fn`. FailedPrecondition for malformed
  // annotations: a compiler_end whose input is outside every region or in a
  // region of another target, a node whose arguments are partly inside
  // regions and partly outside, a begin or end with other than one argument.
  static absl::StatusOr<AnnotatedRegionSet> Create(const Function* fn);

  // The set of `fn` (a function of `mod`) from the pass manager's analysis
  // cache, built and cached on a miss. Valid until the running pass ends
  // (or later, when it preserves the analysis).
  static absl::StatusOr<const AnnotatedRegionSet*> Get(AnalysisManager& analyses,
                                                       const Module& mod, const Function* fn);

  // The expression the set was built from, and the lets in it (recorded
  // during construction, so that analyses over the same root need no walk).
  const Expr* root() const { return root_; }
  const LetBindings& lets() const { return lets_; }
  // Whether some annotation is of the `default` target or some compiler_end
  // reads a tuple: exactly when PartitionGraph's preparation steps
  // (FlattenNestedTuples, RemoveDefaultAnnotations) would change the
  // expression. When false they are the identity, so PartitionGraph reuses
  // this set instead of preparing and building it again.
  bool needs_partition_prep() const { return needs_partition_prep_; }

  // The region holding `e`, or kNoRegion.
  RegionId GetRegion(const Expr* e) const;
  // The current id of region `id` (the region it was merged into, if any).
  RegionId Resolve(RegionId id) const { return Find(id); }
  // The live region ids, ascending.
  std::vector<RegionId> RegionIds() const;
  size_t size() const { return live_regions_; }
  // One more than the largest id ever made (ids are dense from 0, with gaps
  // for merged regions): the size of arrays indexed by region id.
  size_t NumRegionIds() const { return regions_.size(); }

  std::string_view Target(RegionId id) const { return targets_[regions_[id].target]; }
  // The function literal (or the root function) whose body holds the region.
  const Function* Scope(RegionId id) const { return scopes_[regions_[id].scope]; }
  // The region's compiler_begin calls (its inputs), in TVM's order.
  std::vector<const Call*> Ins(RegionId id) const;
  // Calls f(begin) for each of Ins(id), without building the list.
  template <typename F>
  void ForEachIn(RegionId id, F&& f) const {
    ForEachInIndex(id, [&](NodeIndex i) { f(static_cast<const Call*>(node_[i])); });
  }
  // The region's compiler_end calls (its outputs), in TVM's order.
  std::vector<const Call*> Outs(RegionId id) const;
  // Every node of the region (annotations included), in no particular order.
  // The first call after construction or a merge groups all nodes by
  // region (one pass over the numbering).
  std::vector<const Expr*> Nodes(RegionId id) const;

  // Whether the region has a compiler_end (Outs(id) is not empty).
  bool HasOuts(RegionId id) const;

  // Merges region `src` into `dst` (TVM's MergeRegions); `dst` keeps its id.
  void MergeRegions(RegionId src, RegionId dst);

  // The dense numbering (see the top comment). Node 0 is the root; atoms
  // (variables, constants, ops) and function literals with a region-free
  // body (see the top comment) are not numbered.
  using NodeIndex = uint32_t;
  static constexpr NodeIndex kNoNode = ~0u;
  size_t num_nodes() const { return node_.size(); }
  const Expr* node(NodeIndex i) const { return node_[i]; }
  // The index of `e`, or kNoNode (atoms, nodes outside the root).
  NodeIndex IndexOf(const Expr* e) const;
  // Whether the body of function literal `fn` is region-free: like a
  // composite's (what MergeComposite makes), at most kMaxRegionFreeBody
  // calls of operators, tuples and projections, none an annotation (so no
  // let, if or function either). Create treats such a function as an atom.
  static constexpr int kMaxRegionFreeBody = 32;
  static bool HasRegionFreeBody(const Function* fn);
  ExprKind kind(NodeIndex i) const { return kind_[i]; }
  // One entry per child of ForEachChild(node(i)), in order; kNoNode for atoms
  // and unnumbered functions.
  std::span<const NodeIndex> children(NodeIndex i) const {
    return {kids_.data() + kid_begin_[i], kid_begin_[i + 1] - kid_begin_[i]};
  }
  // The argument of annotation call i (its second child).
  NodeIndex AnnotationArg(NodeIndex i) const {
    return kids_[kid_begin_[i] + 1];
  }
  bool IsBegin(NodeIndex i) const { return flags_[i] & kBeginFlag; }
  bool IsEnd(NodeIndex i) const { return flags_[i] & kEndFlag; }
  // A function literal with a Composite attribute.
  bool IsComposite(NodeIndex i) const { return flags_[i] & kCompositeFlag; }
  // Whether a merge dropped annotation i from its region's inputs or
  // outputs (the edge became internal).
  bool Removed(NodeIndex i) const { return flags_[i] & kRemovedFlag; }
  // The region holding node i, or kNoRegion.
  RegionId RegionAt(NodeIndex i) const {
    return node_region_[i] == kNoRegion ? kNoRegion : Find(node_region_[i]);
  }
  // The region holding `n` (a node index, or kNoNode for an atom).
  RegionId RegionOfIndex(NodeIndex n) const { return n == kNoNode ? kNoRegion : RegionAt(n); }
  // Calls f(begin index) for each of Ins(id).
  template <typename F>
  void ForEachInIndex(RegionId id, F&& f) const {
    ForEachItem(regions_[Find(id)].ins, [&](NodeIndex i) {
      if (!Removed(i)) f(i);
    });
  }

 private:
  // A circular singly linked list in the shared item pool, known by its
  // last item (the first is the one after it); splicing is O(1).
  struct List {
    int32_t tail = -1;
  };
  struct Region {         // 32 bytes (a region per compiler_begin is made)
    uint32_t scope = 0;   // index into scopes_
    uint32_t target = 0;  // index into targets_
    List ins, outs;
    // compiler_begin calls whose argument lies in this region (anywhere in
    // the graph); merging consults them to find inputs that became internal.
    List consumers;
    // Lengths of `ins` and `consumers`, counting entries marked removed.
    uint32_t num_ins = 0;
    uint32_t num_consumers = 0;
    // Entries of `outs` not marked removed.
    uint32_t live_outs = 0;
  };
  class Builder;

  RegionId Find(RegionId id) const;
  RegionId MakeRegion(uint32_t target, const Function* scope);
  uint32_t ScopeIndex(const Function* scope);
  void GroupNodes() const;
  uint32_t TargetIndex(std::string_view target);
  void AddNode(RegionId id, NodeIndex i);
  void Append(List& list, NodeIndex i);
  static void Splice(List& into, const List& from, std::vector<int32_t>& next);
  template <typename F>
  void ForEachItem(const List& list, F&& f) const {
    if (list.tail < 0) return;
    for (int32_t i = next_[list.tail];; i = next_[i]) {
      f(items_[i]);
      if (i == list.tail) return;
    }
  }
  // Marks a compiler_begin and the compiler_end it reads as dropped from
  // the lists (TVM removes them).
  void RemoveEdge(NodeIndex begin);

  enum : uint8_t {
    kBeginFlag = 1,
    kEndFlag = 2,
    kCompositeFlag = 4,
    kRemovedFlag = 8,  // a merge dropped it from the inputs or outputs
  };
  const Expr* root_ = nullptr;
  LetBindings lets_;
  bool needs_partition_prep_ = false;
  std::vector<Region> regions_;
  mutable std::vector<RegionId> parent_;  // union-find; a root is a live region
  size_t live_regions_ = 0;
  // By node index: the node, its kind, flags and region as assigned
  // (resolve it with Find); its children are kids_[kid_begin_[i] ..
  // kid_begin_[i + 1]).
  std::vector<const Expr*> node_;
  std::vector<ExprKind> kind_;
  std::vector<uint8_t> flags_;
  std::vector<RegionId> node_region_;
  std::vector<std::string_view> targets_;  // the distinct targets
  // The distinct scopes (nullptr first: outside every function), few.
  std::vector<const Function*> scopes_ = {nullptr};
  // Made by the first Nodes() call: the indices of region r's nodes are
  // members_[members_begin_[r] .. members_begin_[r + 1]).
  mutable std::vector<uint32_t> members_begin_;
  mutable std::vector<NodeIndex> members_;
  std::vector<uint32_t> kid_begin_;
  std::vector<NodeIndex> kids_;
  // Node -> index, filled during construction (also the walk's visited set).
  AddressMap<NodeIndex> index_;
  // The lists' items (node indices) and links.
  std::vector<NodeIndex> items_;
  std::vector<int32_t> next_;
};

}  // namespace carve
