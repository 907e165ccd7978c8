// Grouping: which matches of a pattern in a graph become partitions or
// rewrites, with TVM v0.16's rules (PatternGrouper, tvm-reference.md 2.4):
//  - candidate roots are visited consumers first (reverse post-DFS order),
//    so a larger match rooted later claims nodes before a smaller one inside
//    it; only roots MayMatchInGraph admits are tried;
//  - nodes already in a group, and the bodies of functions carrying
//    PartitionedFromPattern or Composite, are never candidate roots;
//  - a match's inputs are, in pattern post-order, the expressions bound to
//    leaf patterns and the args/fields of any-arity call/tuple patterns,
//    de-duplicated, except ops, functions, nodes matched by a dominator's
//    parent/path or inside a matched function pattern ("fuzzy"), and
//    constants matched by `const` or an `is_expr` of a constant (embedded);
//  - a match is rejected when an interior node (not an op, function or
//    constant) is already in another group, or is used outside the group
//    by a node the group's root does not post-dominate (when it does, the
//    interior computation is duplicated);
//  - every match consumes a FunctionVar_<g> number, rejected or not.
// Cost: one IndexedGraph, one match attempt per admitted candidate root,
// work proportional to the group for each match; no rescans.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "patterns/compile.h"
#include "patterns/describe.h"
#include "patterns/graph.h"
#include "patterns/matcher.h"

namespace carve {

// False when the graph's dense arrays (kinds, call ops, inputs) already show
// that pattern node `id` cannot match graph node `node`: a node its filter
// (compile.h) does not admit, such as a call of another op (and no
// re-associated alternative applies), through alternations,
// attribute/type/capture/where wrappers, the callee and args of fixed-arity
// calls (swapped for commutative ops, as the matcher retries). True whenever
// it cannot tell: a necessary condition only, read without touching the
// expressions, so that a grouper skips most failing candidates without the
// cache misses of a match attempt.
bool MayMatchInGraph(const CompiledPattern& pattern, uint32_t id, const IndexedGraph& graph,
                     uint32_t node);

// One accepted match. The spans point into the grouper's storage and stay
// valid as long as the grouper.
struct Group {
  uint32_t root = 0;                  // graph index of the root
  int number = 0;                     // the <g> of FunctionVar_<g>_<k>
  std::span<const uint32_t> inputs;   // graph indices, parameter order
  std::span<const uint32_t> nodes;    // graph indices of the body, post-order (root last)
  std::string_view label;             // PartitionedFromPattern, e.g. "nn.conv2d_nn.relu_"
                                      // (groups with the same label share its text)
  std::span<const Binding> bindings;  // the match's bindings (pattern id, expr), if kept
};

// Why a match was not turned into a group (for explanations).
// Why a match did not become a group. Kept as data and rendered on demand
// (Reason()): a pass over a large graph may reject many candidates and only
// explanations read the text.
struct GroupRejection {
  enum class Kind : uint8_t {
    kOverlap,  // `node` already belongs to another group
    kEscapes,  // `node` is also used by `user`, outside the group
  };
  uint32_t root = 0;
  Kind kind = Kind::kOverlap;
  const Expr* node = nullptr;
  const Expr* user = nullptr;  // kEscapes
  // `namer` (describe.h) names the nodes, as in explanations.
  std::string Reason(const NodeNamer& namer = {}) const;
};

class PatternGrouper {
 public:
  PatternGrouper(std::shared_ptr<const CompiledPattern> pattern, const IndexedGraph& graph);

  // Whether groups keep their match's bindings (Group::bindings; on by
  // default). Partitioning reads none: off, a large graph's groups do not
  // store a dozen bindings each.
  void set_keep_bindings(bool keep) { keep_bindings_ = keep; }
  // Computes the groups (once).
  void Run();
  // The groups, made as Group records on first call.
  const std::vector<Group>& groups() const;
  // The same without the records (a large graph's groups are many): how
  // many, and the k-th, made from the pools on each call.
  size_t num_groups() const { return extents_.size(); }
  Group group(size_t k) const;
  const std::vector<GroupRejection>& rejections() const { return rejections_; }
  // The group index a node belongs to, or IndexedGraph::kNone.
  uint32_t GroupOf(uint32_t node) const { return group_of_[node]; }
  // Frees the table behind GroupOf (not to be called after): groups are in
  // descending root order, which is all a caller that walks the graph
  // forward needs, and a large graph's table is 4 bytes a node.
  void ReleaseGroupOf() { std::vector<uint32_t>().swap(group_of_); }

 private:
  // A group: where its parts live in the pools. Group records (twice the
  // size) are made only when asked for, at their final count.
  struct Extent {
    uint32_t root;
    int number;
    uint32_t inputs_begin, nodes_begin, nodes_end, bindings_begin, bindings_end;
    uint32_t label_begin, label_end;
  };

  void MarkPrePartitioned(uint32_t function);
  void TryRoot(uint32_t root);
  void MarkFuzzyNodes();
  void SelectInputs();
  void Extract(uint32_t root);
  bool Validate(uint32_t root, uint32_t nodes_begin);
  bool EmbedsConstant(ExprKind kind, uint32_t pattern_id) const;
  // The nodes within the pattern's height of `root` (capped), so that
  // bindings the matcher gave no index (Binding::index) find theirs without
  // the graph's index map; collected on the candidate's first such lookup.
  void CollectNear(uint32_t root);
  uint32_t IndexNear(const Expr* e);
  uint32_t IndexOfBinding(const Binding& b);

  std::shared_ptr<const CompiledPattern> pattern_;
  const IndexedGraph& graph_;
  Matcher matcher_;
  mutable std::vector<Group> groups_;  // lazy (groups())
  std::vector<Extent> extents_;
  std::vector<uint32_t> index_pool_;  // inputs then nodes, per group
  std::vector<Binding> binding_pool_;
  std::string label_pool_;
  std::vector<GroupRejection> rejections_;
  std::vector<uint32_t> group_of_;
  std::vector<uint8_t> pre_partitioned_;
  // Per-node marks for the candidate being built, compared with candidate_
  // so that nothing is cleared between candidates.
  // One word per node: the candidate number above kMarkBits, and which marks
  // it holds for that candidate (one array instead of three: less memory
  // traffic on large graphs).
  // 4 bytes a node: candidates past kMaxCandidate restart the numbering
  // (clearing the marks), which no graph of fewer nodes reaches.
  enum Mark : uint32_t { kFuzzy = 1, kInput = 2, kBody = 4 };
  static constexpr int kMarkBits = 3;
  static constexpr uint32_t kMaxCandidate = (1u << (32 - kMarkBits)) - 1;
  bool Marked(uint32_t i, Mark m) const {
    return (marks_[i] >> kMarkBits) == candidate_ && (marks_[i] & m) != 0;
  }
  void SetMark(uint32_t i, Mark m) {
    uint32_t& w = marks_[i];
    w = (w >> kMarkBits) == candidate_ ? (w | m) : ((candidate_ << kMarkBits) | m);
  }
  std::vector<uint32_t> marks_;
  uint32_t candidate_ = 0;
  // Scratch reused across candidates.
  std::vector<std::vector<Binding>> by_pattern_;
  std::vector<std::pair<uint32_t, bool>> extract_stack_;
  std::vector<uint32_t> kids_;
  std::vector<std::pair<const Expr*, uint32_t>> near_;  // (node, index), breadth-first
  uint32_t candidate_root_ = 0;
  bool near_collected_ = false;
  uint32_t pattern_height_ = 0;  // edges from a match's root to its deepest binding
  int next_number_ = 0;
  bool keep_bindings_ = true;
  bool ran_ = false;
};

}  // namespace carve
