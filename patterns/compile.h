// Frozen patterns. CompilePattern validates a pattern and flattens it into a
// dense array in pattern post-order (TVM's pattern IndexedGraph order), so
// that the matcher keeps its memo in a vector indexed by node id and never
// hashes a pattern node while matching. PatternSet freezes several compiled
// patterns and indexes them by the op (or node kind) their root can match,
// so that a pass over a graph rejects most candidate roots with one lookup.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "patterns/pattern.h"

namespace carve {

// The expressions a pattern (its root, or any node of it) can possibly
// match: early rejection.
class RootFilter {
 public:
  // A filter that admits everything.
  static RootFilter Any();
  bool Admits(const Expr* e) const;
  // Same, from a node's kind and (for op calls) its op.
  bool Admits(ExprKind kind, const OpInfo* call_op) const;
  bool admits_everything() const;
  // Calls of these ops are admitted (besides the kinds in the mask).
  std::span<const OpInfo* const> ops() const { return ops_; }
  // Adds everything `other` admits.
  void Union(const RootFilter& other);
  void AddKind(ExprKind kind) { kinds_ |= 1u << static_cast<unsigned>(kind); }
  void AddOp(const OpInfo* op);
  bool HasKind(ExprKind kind) const { return kinds_ & (1u << static_cast<unsigned>(kind)); }

 private:
  static constexpr size_t kMaxOps = 64;
  uint32_t kinds_ = 0;  // bit per ExprKind; kCall = any call
  std::vector<const OpInfo*> ops_;
};

// One node of a compiled pattern.
struct CompiledNode {
  const PatternNode* node = nullptr;
  PatternKind kind = PatternKind::kWildcard;
  uint32_t children_begin = 0;  // into CompiledPattern's child table
  uint32_t num_children = 0;
  uint32_t alternatives_begin = 0;  // re-associated alternatives (calls only)
  uint32_t num_alternatives = 0;
};

class CompiledPattern {
 public:
  // The source pattern.
  const Pattern& pattern() const { return pattern_; }
  uint32_t root() const { return root_; }
  // Node count, including generated alternatives.
  size_t size() const { return nodes_.size(); }
  // Ids [0, num_source_nodes()) are the source pattern's nodes in post-order;
  // generated alternatives come after.
  size_t num_source_nodes() const { return num_source_; }
  const CompiledNode& node(uint32_t id) const { return nodes_[id]; }
  // Child ids, in PatternNode::children() order; a recursive reference has
  // one child, its target.
  std::span<const uint32_t> children(uint32_t id) const {
    return {child_ids_.data() + nodes_[id].children_begin, nodes_[id].num_children};
  }
  std::span<const uint32_t> alternatives(uint32_t id) const {
    return {child_ids_.data() + nodes_[id].alternatives_begin, nodes_[id].num_alternatives};
  }
  // The id of a source node, or nullopt when it is not part of the pattern.
  std::optional<uint32_t> IdOf(const PatternNode* node) const;
  // Capture names and their CapturePattern ids, in post-order.
  std::span<const std::pair<std::string, uint32_t>> captures() const { return captures_; }
  std::optional<uint32_t> CaptureId(std::string_view name) const;
  const RootFilter& root_filter() const { return filters_[root_]; }
  // The expressions node `id` can possibly match.
  const RootFilter& filter(uint32_t id) const { return filters_[id]; }
  bool has_dominator() const { return has_dominator_; }
  // True when matching reads inferred types (type/dtype/shape constraints,
  // or dtype/shape/rank in a where clause).
  bool needs_types() const { return needs_types_; }

 private:
  friend class PatternCompiler;
  Pattern pattern_;
  std::vector<Pattern> generated_;  // keeps generated alternatives alive
  std::vector<CompiledNode> nodes_;
  std::vector<uint32_t> child_ids_;
  size_t num_source_ = 0;
  uint32_t root_ = 0;
  absl::flat_hash_map<const PatternNode*, uint32_t> ids_;
  std::vector<std::pair<std::string, uint32_t>> captures_;
  std::vector<RootFilter> filters_;  // by id
  bool has_dominator_ = false;
  bool needs_types_ = false;
};

// Validates and freezes `pattern`. Errors: construction errors (unknown op),
// a recursive reference whose root was released, one capture name used for
// two different sub-patterns, a `where` clause naming a capture not bound
// inside the pattern it applies to.
//
// TVM's matcher re-associates multiply/divide when a call pattern's op does
// not match: `divide(multiply(a, b), c)` also matches `a * (b / c)` and
// `b * (a / c)`, and `multiply(a, divide(b, c))` matches `(a * b) / c`
// (test_fuse_batchnorm_commutation: a batch norm folded by hand comes in
// either form). The compiled pattern holds these forms as extra call nodes
// (CompiledNode's alternatives), generated here once per pattern, so the
// matcher tries them as it tries any node and knows no op names.
absl::StatusOr<std::shared_ptr<const CompiledPattern>> CompilePattern(const Pattern& pattern);

// Named compiled patterns in priority order, indexed by root.
class PatternSet {
 public:
  struct Entry {
    std::string name;
    std::shared_ptr<const CompiledPattern> pattern;
  };

  // Compiles every pattern; the first error names its pattern.
  static absl::StatusOr<PatternSet> Build(
      const std::vector<std::pair<std::string, Pattern>>& patterns);

  size_t size() const { return entries_.size(); }
  const Entry& entry(size_t i) const { return entries_[i]; }
  // Index of the entry named `name`, or nullopt.
  std::optional<size_t> Find(std::string_view name) const;
  // Appends to `out` the indices of the entries whose root can match `e`,
  // in priority order.
  void Candidates(const Expr* e, std::vector<uint32_t>* out) const;

 private:
  std::vector<Entry> entries_;
  absl::flat_hash_map<const OpInfo*, std::vector<uint32_t>> by_op_;
  std::vector<uint32_t> by_kind_[static_cast<int>(ExprKind::kFunction) + 1];
};

}  // namespace carve
