// IndexedGraph's tables: the index of every node, the root's parameters,
// the op slots, the input and output CSR arrays and what may be freed. The
// builds are in graph_build.cc and graph_derive.cc, the post-dominator tree
// in graph_postdom.cc.
#include "patterns/graph.h"

#include <algorithm>

namespace carve {

uint32_t IndexedGraph::IndexOf(const Expr* e) const {
  if (!has_index_) BuildIndex();
  const uint32_t* i = index_.Find(e);
  return i == nullptr ? kNone : *i;
}

void IndexedGraph::BuildIndex() const {
  index_ = AddressMap<uint32_t>(nodes_.size());
  for (uint32_t i = 0; i < nodes_.size(); ++i) index_.TryEmplace(nodes_[i], i);
  has_index_ = true;
}

// The root function's parameters (as numbered by a build): read from its
// child slots, or looked up when a slot was not numbered there.
void IndexedGraph::SetRootParams(std::span<const uint32_t> slot_ids) {
  root_params_.clear();
  const auto* fn = DynCast<Function>(nodes_.back());
  if (fn == nullptr || slot_ids.size() != fn->params().size()) return;
  for (size_t k = 0; k < slot_ids.size(); ++k) {
    uint32_t id = slot_ids[k] < nodes_.size() ? slot_ids[k] : IndexOf(fn->params()[k]);
    root_params_.push_back(id);
  }
}

// The rebuilder makes ifs over looked-up children (RebuildNode).
bool IndexedGraph::RebuildsByEdges() const { return InputsAreChildren(/*ifs_too=*/false); }

bool IndexedGraph::InputsAreChildren(bool ifs_too) const {
  for (uint32_t i = 0; i < kinds_.size(); ++i) {
    ExprKind kind = kinds_[i];
    if (kind == ExprKind::kLet) return false;
    // GraphRebuilder::Rebuild rebuilds these by lookup, not by edges.
    bool by_lookup = kind == ExprKind::kIf || kind == ExprKind::kMatch ||
                     kind == ExprKind::kRefCreate || kind == ExprKind::kRefRead ||
                     kind == ExprKind::kRefWrite;
    if (by_lookup && !ifs_too) return false;
    if (kind == ExprKind::kFunction && i != root() && !inputs(i).empty()) return false;
  }
  return true;
}

uint16_t IndexedGraph::OpSlot(const OpInfo* op) {
  if (op == nullptr) return 0;
  if (op == last_op_) return last_slot_;
  auto it = std::find(ops_.begin(), ops_.end(), op);
  // At most one slot per registered op: far fewer than 2^16.
  if (it == ops_.end()) it = ops_.insert(ops_.end(), op);
  last_op_ = op;
  last_slot_ = static_cast<uint16_t>(it - ops_.begin());
  return last_slot_;
}

void IndexedGraph::ReleaseAllButInputs() {
  std::vector<const Expr*>().swap(nodes_);
  index_ = AddressMap<uint32_t>();
  has_index_ = false;
  ReleaseDerivedTables();
}

void IndexedGraph::ReleaseDerivedTables() {
  // Outputs BuildOutputs would not make again in the same order stay.
  if (outputs_in_node_order_) {
    has_outputs_ = false;
    std::vector<uint32_t>().swap(output_begin_);
    std::vector<uint32_t>().swap(output_ids_);
  }
  has_postdom_ = false;
  for (auto* v : {&ipdom_, &depth_, &tree_begin_, &tree_ids_, &tin_, &tout_}) {
    std::vector<uint32_t>().swap(*v);
  }
}

// Outputs from the inputs CSR, consumers in node order: the order in which
// a build emits edges, but for a let's variable (BuildEdges), whose graph
// keeps its outputs (outputs_in_node_order_).
// No fill cursors besides output_begin_ itself: counts are summed into the
// entry after each producer's, so that output_begin_[p + 1] serves as p's
// cursor and ends at p's end, which is where p + 1's list begins.
void IndexedGraph::BuildOutputs() const {
  has_outputs_ = true;
  size_t n = size();
  output_begin_.assign(n + 1, 0);
  for (uint32_t producer : input_ids_) {
    if (producer + 2 <= n) ++output_begin_[producer + 2];
  }
  for (size_t i = 1; i < n; ++i) output_begin_[i + 1] += output_begin_[i];
  output_ids_.resize(input_ids_.size());
  for (uint32_t c = 0; c < n; ++c) {
    for (uint32_t p = input_begin_[c]; p < input_begin_[c + 1]; ++p) {
      output_ids_[output_begin_[input_ids_[p] + 1]++] = c;
    }
  }
}

void IndexedGraph::BuildEdges(const std::vector<std::pair<uint32_t, uint32_t>>& edges) {
  size_t n = nodes_.size();
  input_begin_.assign(n + 1, 0);
  output_begin_.assign(n + 1, 0);
  for (const auto& [consumer, producer] : edges) {
    ++input_begin_[consumer + 1];
    ++output_begin_[producer + 1];
  }
  for (size_t i = 0; i < n; ++i) {
    input_begin_[i + 1] += input_begin_[i];
    output_begin_[i + 1] += output_begin_[i];
  }
  input_ids_.resize(edges.size());
  output_ids_.resize(edges.size());
  has_outputs_ = true;
  // Edges come by consumer but a let variable's, emitted with its let.
  outputs_in_node_order_ = std::is_sorted(
      edges.begin(), edges.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint32_t> in_fill(input_begin_.begin(), input_begin_.end() - 1);
  std::vector<uint32_t> out_fill(output_begin_.begin(), output_begin_.end() - 1);
  // Filling in emission order keeps TVM's orders: a node's inputs as its
  // Annotator adds them, a node's outputs by consumer visit (a let-bound
  // variable's value edge is emitted with its let, as in TVM).
  for (const auto& [consumer, producer] : edges) {
    input_ids_[in_fill[consumer]++] = producer;
    output_ids_[out_fill[producer]++] = consumer;
  }
}

}  // namespace carve
