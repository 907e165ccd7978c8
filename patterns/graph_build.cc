// IndexedGraph's construction from an expression: one iterative DFS that
// numbers the nodes in post-DFS order (TVM's IndexedGraph<Expr> order) and
// records their input edges.
//
// The usual build (MarkedBuilder) tells visited nodes by their scratch mark
// (1 visited, 2 met again), so that only the edges to shared nodes need a
// map, filled afterwards from the marks; the marks are cleared at the end.
// Frames find their children through the expression, and children leave one
// 4-byte value each on a stack until their parent is numbered: on a deep
// chain (a long network) the stacks hold every pending sibling, so they are
// kept small. When a node carries a mark someone else left, the build starts
// again with MapBuilder, which consults a map of every node instead.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "ir/recent_cache.h"
#include "patterns/graph.h"
#include "patterns/graph_children.h"

namespace carve {

using graph_internal::ChildAt;
using graph_internal::IsInputChild;
using graph_internal::LetVarsInProgress;
using graph_internal::NumChildren;
using graph_internal::NumParams;

class IndexedGraph::MarkedBuilder {
 public:
  MarkedBuilder(IndexedGraph& g, const IndexedGraphOptions& options);
  // Numbers the graph of `root` into g; false when a node carried a stale
  // mark (g is then to be built again).
  bool Run(const Expr* root);

 private:
  struct Frame {
    const Expr* expr;
    uint32_t next;          // next child to visit; kNone for opaque composites
    uint32_t values_begin;  // this frame's children's values (one per child visited)
  };
  // A child's value: its index; kNone when it is no node (a recursive
  // reference); for a node numbered before its consumer was reached,
  // kLaterBit | k, resolved once the map of shared nodes is built from
  // later_[k].
  static constexpr uint32_t kLaterBit = 1u << 31;
  // A let-bound variable's edge to its value is emitted with the let (TVM's
  // output order), so lets are kept aside with their position and merged
  // in by BuildEdges.
  struct LetEdge {
    size_t position;  // input edges emitted before it
    uint32_t var, value;
  };

  void Open(const Expr* e);
  void VisitChild(const Expr* parent, uint32_t k);
  uint32_t Known(const Expr* kid);
  void MarkShared(const Expr* kid);
  void NumberTop();
  bool ResolveShared();
  void MergeLetEdges();

  IndexedGraph& g_;
  const IndexedGraphOptions& options_;
  std::vector<Frame> stack_;
  std::vector<uint32_t> values_;
  LetVarsInProgress let_vars_;
  std::vector<LetEdge> let_edges_;
  std::vector<const Expr*> later_;
  std::vector<uint32_t> root_param_slots_;
  size_t shared_ = 0;  // nodes met again (scratch mark 2)
  // Most nodes met again are ops (one per call) and, in a large main, its
  // parameters (each weight once more in the body, usually in parameter
  // order): both are found without the map of shared nodes, ops in a table
  // of their own, parameters by a finger into the parameter list (their ids
  // are the root frame's first values). Other fan-outs are mostly
  // short-range (a residual connection is met again a few nodes after it
  // was numbered): a small direct-mapped table of recently numbered nodes
  // answers those.
  absl::flat_hash_map<const Expr*, uint32_t> op_ids_;
  std::span<const Var* const> root_params_;
  size_t finger_ = 0;
  RecentCache<uint32_t, 4096> recent_;
};

bool IsCompositeFunction(const Expr* e) {
  const auto* fn = DynCast<Function>(e);
  return fn != nullptr && fn->HasAttr("PartitionedFromPattern");
}

IndexedGraph::IndexedGraph(const Expr* root, const IndexedGraphOptions& options) {
  Build(root, options);
}

void IndexedGraph::Build(const Expr* root, const IndexedGraphOptions& options) {
  if (MarkedBuilder(*this, options).Run(root)) return;
  // A node was marked by someone else (a traversal that did not clear its
  // marks) and taken for visited: number again without marks.
  nodes_.clear();
  kinds_.clear();
  op_slots_.clear();
  BuildWithMap(root, options);
}

IndexedGraph::MarkedBuilder::MarkedBuilder(IndexedGraph& g, const IndexedGraphOptions& options)
    : g_(g), options_(options) {
  size_t size_hint = options.size_hint;
  g_.nodes_.reserve(size_hint);
  g_.kinds_.reserve(size_hint);
  g_.op_slots_.reserve(size_hint);
  // Inputs go straight into the CSR (a node's are known when it is
  // numbered), as values until resolved.
  g_.input_begin_.clear();
  g_.input_ids_.clear();
  g_.input_begin_.reserve(size_hint + 1);
  g_.input_ids_.reserve(size_hint * 2);
  g_.input_begin_.push_back(0);
}

bool IndexedGraph::MarkedBuilder::Run(const Expr* root) {
  Open(root);
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.next != kNone && f.next < NumChildren(f.expr)) {
      VisitChild(f.expr, f.next++);
    } else {
      NumberTop();
    }
  }
  if (!ResolveShared()) return false;
  g_.SetRootParams(root_param_slots_);
  // Outputs are computed on first use, in the memory this build's
  // temporaries leave, unless lets need their edges in emission order.
  if (!let_edges_.empty()) MergeLetEdges();
  return true;
}

void IndexedGraph::MarkedBuilder::Open(const Expr* e) {
  e->set_scratch_mark(1);
  bool opaque = options_.opaque_composites && IsCompositeFunction(e);
  stack_.push_back({e, opaque ? kNone : 0, static_cast<uint32_t>(values_.size())});
}

// Leaves the child's value, or opens its frame when it is new.
void IndexedGraph::MarkedBuilder::VisitChild(const Expr* parent, uint32_t k) {
  if (stack_.size() == 1 && Isa<Function>(parent) && k == NumParams(parent)) {
    // The root's parameters are numbered: its body follows.
    root_params_ = Cast<Function>(parent)->params();
  }
  let_vars_.Visiting(DynCast<Let>(parent), k);
  const Expr* kid = ChildAt(parent, k);
  if (let_vars_.IsRecursiveReference(kid)) {
    values_.push_back(kNone);  // no node, no edge
  } else if (kid->scratch_mark() == 0) {
    Open(kid);
  } else if (uint32_t id = Known(kid); id != kNone) {
    values_.push_back(id);
  } else {
    MarkShared(kid);
  }
}

// The id of a node numbered before, when found without the shared map.
uint32_t IndexedGraph::MarkedBuilder::Known(const Expr* kid) {
  if (kid->kind() == ExprKind::kOp) {
    auto it = op_ids_.find(kid);
    return it != op_ids_.end() ? it->second : kNone;
  }
  if (const uint32_t* id = recent_.Find(kid)) return *id;
  if (kid->kind() != ExprKind::kVar) return kNone;
  for (size_t k = finger_; k < finger_ + 2 && k < root_params_.size(); ++k) {
    if (root_params_[k] == kid && values_[k] < kLaterBit) {
      finger_ = k + 1;
      return values_[k];
    }
  }
  return kNone;
}

// Numbered before (the graph is acyclic): mark it shared and look it up
// once the walk is over.
void IndexedGraph::MarkedBuilder::MarkShared(const Expr* kid) {
  if (kid->scratch_mark() == 1) {
    kid->set_scratch_mark(2);
    ++shared_;
  }
  values_.push_back(kLaterBit | static_cast<uint32_t>(later_.size()));
  later_.push_back(kid);
}

// All children of the top frame done: number its node and record its input
// edges.
void IndexedGraph::MarkedBuilder::NumberTop() {
  const Frame& f = stack_.back();
  const Expr* e = f.expr;
  uint32_t id = static_cast<uint32_t>(g_.nodes_.size());
  if (e->kind() == ExprKind::kOp) op_ids_.emplace(e, id);
  recent_.Put(e, id);
  g_.nodes_.push_back(e);
  g_.kinds_.push_back(e->kind());
  g_.op_slots_.push_back(e->kind() == ExprKind::kCall ? g_.OpSlot(Cast<Call>(e)->op()) : 0);
  const uint32_t* kids = values_.data() + f.values_begin;
  uint32_t count = static_cast<uint32_t>(values_.size()) - f.values_begin;
  for (uint32_t k = 0; k < count; ++k) {
    if (kids[k] != kNone && IsInputChild(e, k)) g_.input_ids_.push_back(kids[k]);
  }
  g_.input_begin_.push_back(static_cast<uint32_t>(g_.input_ids_.size()));
  if (Isa<Let>(e) && kids[0] != kNone && kids[1] != kNone) {
    let_edges_.push_back({g_.input_ids_.size(), kids[1], kids[0]});  // the var's input: the value
  }
  if (stack_.size() == 1 && Isa<Function>(e)) {
    root_param_slots_.assign(kids, kids + std::min<size_t>(count, NumParams(e)));
  }
  values_.resize(f.values_begin);
  stack_.pop_back();
  values_.push_back(id);
}

// Clears the marks and resolves the values left for shared nodes; false
// when one stays unresolved (a stale mark) or ids ran into kLaterBit.
bool IndexedGraph::MarkedBuilder::ResolveShared() {
  // Only the shared nodes need a lookup (usually ops and a few fan-outs): a
  // small map of them, instead of one of every node (IndexOf fills that on
  // first use).
  AddressMap<uint32_t> shared_index(shared_);
  for (uint32_t i = 0; i < g_.nodes_.size(); ++i) {
    if (g_.nodes_[i]->scratch_mark() == 2) shared_index.TryEmplace(g_.nodes_[i], i);
    g_.nodes_[i]->set_scratch_mark(0);
  }
  auto resolve = [&](uint32_t& v) {
    if (v != kNone && (v & kLaterBit) != 0) {
      const uint32_t* found = shared_index.Find(later_[v & ~kLaterBit]);
      v = found == nullptr ? kNone : *found;
    }
    return v != kNone;
  };
  bool stale = g_.nodes_.size() >= kLaterBit;
  for (uint32_t& producer : g_.input_ids_) {
    if (!resolve(producer)) stale = true;
  }
  for (LetEdge& e : let_edges_) {
    if (!resolve(e.var) || !resolve(e.value)) stale = true;
  }
  for (uint32_t& p : root_param_slots_) {
    if (!resolve(p)) stale = true;
  }
  return !stale;
}

// Every edge in emission order (the let edges at their positions), for
// BuildEdges.
void IndexedGraph::MarkedBuilder::MergeLetEdges() {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(g_.input_ids_.size() + let_edges_.size());
  size_t next_let = 0;
  for (uint32_t c = 0; c < g_.nodes_.size(); ++c) {
    for (uint32_t p = g_.input_begin_[c]; p < g_.input_begin_[c + 1]; ++p) {
      for (; next_let < let_edges_.size() && let_edges_[next_let].position == p; ++next_let) {
        edges.emplace_back(let_edges_[next_let].var, let_edges_[next_let].value);
      }
      edges.emplace_back(c, g_.input_ids_[p]);
    }
  }
  for (; next_let < let_edges_.size(); ++next_let) {
    edges.emplace_back(let_edges_[next_let].var, let_edges_[next_let].value);
  }
  g_.BuildEdges(edges);
}

// The same numbering with the index map consulted for every child (no
// scratch marks): the fallback when a node carries a stale mark.
class IndexedGraph::MapBuilder {
 public:
  MapBuilder(IndexedGraph& g, const IndexedGraphOptions& options);
  void Run(const Expr* root);

 private:
  // A child slot of a frame: the child, whether it is a dataflow input of
  // the parent, and its index once known.
  struct Slot {
    const Expr* expr;
    bool is_input;
    uint32_t index;
  };
  struct Frame {
    const Expr* expr;
    uint32_t slots_begin;
    uint32_t next;         // next slot to visit (absolute index)
    uint32_t parent_slot;  // where to write this node's index, or kNone
  };

  void Open(const Expr* e, uint32_t parent_slot);
  void VisitSlot(Frame& f);
  void NumberTop();
  void CollectParamSlots(const Frame& root);

  IndexedGraph& g_;
  const IndexedGraphOptions& options_;
  std::vector<Frame> stack_;
  std::vector<Slot> slots_;
  LetVarsInProgress let_vars_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // (consumer, producer)
  std::vector<uint32_t> root_param_slots_;
};

void IndexedGraph::BuildWithMap(const Expr* root, const IndexedGraphOptions& options) {
  MapBuilder(*this, options).Run(root);
}

IndexedGraph::MapBuilder::MapBuilder(IndexedGraph& g, const IndexedGraphOptions& options)
    : g_(g), options_(options) {
  size_t size_hint = options.size_hint;
  g_.index_ = AddressMap<uint32_t>(size_hint);
  g_.has_index_ = true;
  g_.nodes_.reserve(size_hint);
  g_.kinds_.reserve(size_hint);
  g_.op_slots_.reserve(size_hint);
  edges_.reserve(size_hint * 2);
}

void IndexedGraph::MapBuilder::Run(const Expr* root) {
  Open(root, kNone);
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.next < slots_.size()) {
      VisitSlot(f);
    } else {
      NumberTop();
    }
  }
  g_.SetRootParams(root_param_slots_);
  g_.BuildEdges(edges_);
}

// Pushes the frame of `e` with its children's slots, in TVM's visit order.
void IndexedGraph::MapBuilder::Open(const Expr* e, uint32_t parent_slot) {
  uint32_t begin = static_cast<uint32_t>(slots_.size());
  if (!options_.opaque_composites || !IsCompositeFunction(e)) {
    for (size_t k = 0, n = NumChildren(e); k < n; ++k) {
      slots_.push_back({ChildAt(e, k), IsInputChild(e, k), kNone});
    }
  }
  stack_.push_back({e, begin, begin, parent_slot});
}

// Fills the frame's next slot with a known index, or opens the child.
void IndexedGraph::MapBuilder::VisitSlot(Frame& f) {
  uint32_t s = f.next++;
  let_vars_.Visiting(DynCast<Let>(f.expr), s - f.slots_begin);
  const Expr* kid = slots_[s].expr;
  if (let_vars_.IsRecursiveReference(kid)) return;  // no node, no edge
  if (const uint32_t* known = g_.index_.Find(kid)) {
    slots_[s].index = *known;
  } else {
    Open(kid, s);
  }
}

// All children of the top frame done: number its node (unless a shared
// node was numbered meanwhile) and record its input edges.
void IndexedGraph::MapBuilder::NumberTop() {
  const Frame f = stack_.back();
  uint32_t id = *g_.index_.TryEmplace(f.expr, static_cast<uint32_t>(g_.nodes_.size())).first;
  if (id == g_.nodes_.size()) {
    g_.nodes_.push_back(f.expr);
    g_.kinds_.push_back(f.expr->kind());
    g_.op_slots_.push_back(
        f.expr->kind() == ExprKind::kCall ? g_.OpSlot(Cast<Call>(f.expr)->op()) : 0);
    for (uint32_t s = f.slots_begin; s < slots_.size(); ++s) {
      if (slots_[s].is_input && slots_[s].index != kNone) edges_.emplace_back(id, slots_[s].index);
    }
    if (Isa<Let>(f.expr)) {
      uint32_t value = slots_[f.slots_begin].index;
      uint32_t var = slots_[f.slots_begin + 1].index;
      if (value != kNone && var != kNone) edges_.emplace_back(var, value);
    }
  }
  if (f.parent_slot == kNone) CollectParamSlots(f);
  slots_.resize(f.slots_begin);
  stack_.pop_back();
  if (f.parent_slot != kNone) slots_[f.parent_slot].index = id;
}

// The indices the root function's parameter slots received (kNone when the
// function is opaque and has no slots).
void IndexedGraph::MapBuilder::CollectParamSlots(const Frame& root) {
  const auto* fn = DynCast<Function>(root.expr);
  if (fn == nullptr) return;
  for (size_t k = 0; k < fn->params().size(); ++k) {
    size_t s = root.slots_begin + k;
    root_param_slots_.push_back(s < slots_.size() ? slots_[s].index : kNone);
  }
}

}  // namespace carve
