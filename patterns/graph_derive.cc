// IndexedGraph::Derive: the graph of a partition's result, numbered from the
// previous graph's edges instead of a walk over the new expressions (see
// graph.h). The walk visits the new expression's children in the order a
// fresh build would, so the numbering is the same node for node.
#include "patterns/graph.h"

namespace carve {

class IndexedGraph::Deriver {
 public:
  Deriver(const IndexedGraph& old, std::span<const Expr* const> current,
          std::span<const Replacement> replaced, std::span<const uint32_t> replaced_inputs,
          std::vector<uint32_t> params);
  std::unique_ptr<IndexedGraph> Run();

 private:
  // An 8-byte frame: a long chain's walk holds most of the graph.
  struct Frame {
    uint32_t u;
    uint32_t next;
  };
  // One word per old node (new_id_): its new id once numbered; before that
  // kNone, or kReplacedBit | r for replaced[r] (no array of replacements by
  // node).
  static constexpr uint32_t kReplacedBit = 1u << 31;
  // A child that is a replaced node's fresh composite function.
  static constexpr uint32_t kFresh = kNone - 1;

  uint32_t ReplacementOf(uint32_t u) const {
    uint32_t state = new_id_[u];
    return state == kNone ? kNone : state & ~kReplacedBit;
  }
  size_t NumChildren(uint32_t u, uint32_t r) const;
  std::pair<uint32_t, bool> Child(uint32_t u, uint32_t r, size_t k) const;
  uint32_t Add(const Expr* e, ExprKind kind, uint16_t op_slot);
  void VisitChild(Frame& f, uint32_t r);
  void NumberTop(uint32_t r);

  const IndexedGraph& old_;
  std::span<const Expr* const> current_;
  std::span<const Replacement> replaced_;
  std::span<const uint32_t> replaced_inputs_;
  std::vector<uint32_t> params_;  // the root function's, kept by Derive
  uint32_t root_;
  std::unique_ptr<IndexedGraph> g_;
  std::vector<uint32_t> new_id_;
  std::vector<uint32_t> fresh_id_;  // by replacement: its function's new id
  std::vector<Frame> stack_;
};

// The root function's parameters (children but not inputs) when the derived
// graph can keep them; false when a fresh build must handle the root.
static bool KeptRootParams(const IndexedGraph& old, std::span<const Expr* const> current,
                           bool root_replaced, std::span<const uint32_t> old_params,
                           std::vector<uint32_t>& params) {
  uint32_t root = old.root();
  if (old.kind(root) != ExprKind::kFunction || root_replaced) return true;
  // The root's current version: a rebuild may have taken the old nodes (it
  // keeps the root's parameter count).
  if (old_params.size() != Cast<Function>(current[root])->params().size()) return false;
  for (uint32_t id : old_params) {
    if (id == IndexedGraph::kNone) return false;
    params.push_back(id);
  }
  return old.inputs(root).size() == 1;
}

std::unique_ptr<IndexedGraph> IndexedGraph::Derive(std::unique_ptr<IndexedGraph> consumed,
                                                   std::span<const Expr* const> current,
                                                   std::span<const Replacement> replaced,
                                                   std::span<const uint32_t> replaced_inputs) {
  const IndexedGraph& old = *consumed;
  if (old.size() >= (size_t{1} << 31)) return nullptr;  // ids must leave the marker bit free
  if (!old.InputsAreChildren(/*ifs_too=*/true)) return nullptr;
  std::vector<uint32_t> params;
  bool root_replaced = !replaced.empty() && replaced.back().node == old.root();
  if (!KeptRootParams(old, current, root_replaced, old.root_params_, params)) return nullptr;
  // Only the old kinds, ops and inputs are read from here on: the rest is
  // freed first, so that the new graph's arrays can take its memory.
  consumed->ReleaseAllButInputs();
  return Deriver(old, current, replaced, replaced_inputs, std::move(params)).Run();
}

IndexedGraph::Deriver::Deriver(const IndexedGraph& old, std::span<const Expr* const> current,
                               std::span<const Replacement> replaced,
                               std::span<const uint32_t> replaced_inputs,
                               std::vector<uint32_t> params)
    : old_(old),
      current_(current),
      replaced_(replaced),
      replaced_inputs_(replaced_inputs),
      params_(std::move(params)),
      root_(old.root()),
      g_(new IndexedGraph()),
      new_id_(old.size(), kNone),
      fresh_id_(replaced.size()) {
  size_t n = old.size();
  g_->nodes_.reserve(n);
  g_->kinds_.reserve(n);
  g_->op_slots_.reserve(n);
  g_->ops_ = old.ops_;  // the same slots
  // Inputs go straight into the CSR: a node's are known when it is numbered.
  g_->input_begin_.reserve(n + 1);
  g_->input_ids_.reserve(old.input_ids_.size());
  g_->input_begin_.push_back(0);
  for (uint32_t r = 0; r < replaced.size(); ++r) new_id_[replaced[r].node] = kReplacedBit | r;
  // Room for the deepest walk reserved (untouched beyond the depth
  // reached): growth copies would leave their old arrays behind at this
  // pass's peak.
  stack_.reserve(n);
}

std::unique_ptr<IndexedGraph> IndexedGraph::Deriver::Run() {
  stack_.push_back({root_, 0});
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    uint32_t r = ReplacementOf(f.u);
    if (f.next < NumChildren(f.u, r)) {
      VisitChild(f, r);
    } else {
      NumberTop(r);
    }
  }
  g_->input_begin_.push_back(static_cast<uint32_t>(g_->input_ids_.size()));
  for (uint32_t p : params_) g_->root_params_.push_back(new_id_[p]);
  // Outputs are computed on first use (the grouper's first overlap check),
  // after the old graph and these tables are freed.
  return std::move(g_);
}

// A node's children in the new expression's visit order: a replaced node's
// callee then its args, the root function's parameters then its body,
// otherwise the old inputs (which are exactly the children of calls,
// tuples, projections and ifs). `r` is the node's replacement, or kNone.
size_t IndexedGraph::Deriver::NumChildren(uint32_t u, uint32_t r) const {
  if (r != kNone) {
    uint32_t end = r + 1 < replaced_.size() ? replaced_[r + 1].inputs_begin
                                            : static_cast<uint32_t>(replaced_inputs_.size());
    return 1 + end - replaced_[r].inputs_begin;
  }
  if (u == root_ && !params_.empty()) return params_.size() + 1;
  return old_.inputs(u).size();
}

// Child k as (old id or kFresh, is_input).
std::pair<uint32_t, bool> IndexedGraph::Deriver::Child(uint32_t u, uint32_t r, size_t k) const {
  if (r != kNone) {
    return {k == 0 ? kFresh : replaced_inputs_[replaced_[r].inputs_begin + k - 1], true};
  }
  if (u == root_ && !params_.empty()) {
    return k < params_.size() ? std::pair{params_[k], false} : std::pair{old_.inputs(u)[0], true};
  }
  return {old_.inputs(u)[k], true};
}

// Numbers a node; its inputs are pushed next, before the next Add.
uint32_t IndexedGraph::Deriver::Add(const Expr* e, ExprKind kind, uint16_t op_slot) {
  uint32_t id = static_cast<uint32_t>(g_->nodes_.size());
  if (id > 0) g_->input_begin_.push_back(static_cast<uint32_t>(g_->input_ids_.size()));
  g_->nodes_.push_back(e);
  g_->kinds_.push_back(kind);
  g_->op_slots_.push_back(op_slot);
  return id;
}

// Numbers a fresh composite function at once (it is a leaf), or descends
// into a child not numbered yet.
void IndexedGraph::Deriver::VisitChild(Frame& f, uint32_t r) {
  uint32_t u = f.u;
  auto [c, is_input] = Child(u, r, f.next++);
  if (c == kFresh) {
    const Expr* fn = Cast<Call>(current_[u])->callee();
    fresh_id_[r] = Add(fn, ExprKind::kFunction, 0);
  } else if ((new_id_[c] & kReplacedBit) != 0) {  // not numbered yet
    stack_.push_back({c, 0});
  }
}

void IndexedGraph::Deriver::NumberTop(uint32_t r) {
  uint32_t u = stack_.back().u;
  const Expr* e = current_[u];
  uint32_t id = Add(e, r != kNone ? ExprKind::kCall : old_.kind(u),
                    r != kNone ? g_->OpSlot(Cast<Call>(e)->op()) : old_.op_slots_[u]);
  size_t count = NumChildren(u, r);
  new_id_[u] = id;
  for (size_t k = 0; k < count; ++k) {
    auto [c, is_input] = Child(u, r, k);
    if (is_input) g_->input_ids_.push_back(c == kFresh ? fresh_id_[r] : new_id_[c]);
  }
  stack_.pop_back();
}

}  // namespace carve
