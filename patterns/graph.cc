#include "patterns/graph.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "ir/adt.h"
#include "ir/recent_cache.h"

namespace carve {
namespace {

// A child slot of a DFS frame: the child, whether it is a dataflow input of
// the parent, and its index once known.
struct Slot {
  const Expr* expr;
  bool is_input;
  uint32_t index;
};

// A node's children one at a time: how many, the k-th, and whether it is
// a dataflow input of `e`.
size_t NumChildren(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kCall:
      return 1 + Cast<Call>(e)->args().size();
    case ExprKind::kTuple:
      return Cast<Tuple>(e)->fields().size();
    case ExprKind::kTupleGetItem:
    case ExprKind::kRefCreate:
    case ExprKind::kRefRead:
      return 1;
    case ExprKind::kRefWrite:
      return 2;
    case ExprKind::kMatch:  // the scrutinee, then each clause's right-hand side
      return 1 + Cast<Match>(e)->clauses().size();
    case ExprKind::kIf:
    case ExprKind::kLet:
      return 3;
    case ExprKind::kFunction:
      return Cast<Function>(e)->params().size() + 1;
    default:
      return 0;
  }
}

size_t NumParams(const Expr* e) {
  const auto* fn = DynCast<Function>(e);
  return fn == nullptr ? 0 : fn->params().size();
}

const Expr* ChildAt(const Expr* e, size_t k) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      const auto* c = Cast<Call>(e);
      return k == 0 ? c->callee() : c->args()[k - 1];
    }
    case ExprKind::kTuple:
      return Cast<Tuple>(e)->fields()[k];
    case ExprKind::kTupleGetItem:
      return Cast<TupleGetItem>(e)->tuple();
    case ExprKind::kRefCreate:
      return Cast<RefCreate>(e)->value();
    case ExprKind::kRefRead:
      return Cast<RefRead>(e)->ref();
    case ExprKind::kRefWrite: {
      const auto* w = Cast<RefWrite>(e);
      return k == 0 ? w->ref() : w->value();
    }
    case ExprKind::kMatch: {
      const auto* m = Cast<Match>(e);
      return k == 0 ? m->data() : m->clauses()[k - 1].rhs;
    }
    case ExprKind::kIf: {
      const auto* i = Cast<If>(e);
      return k == 0 ? i->cond() : k == 1 ? i->then_branch() : i->else_branch();
    }
    case ExprKind::kFunction: {
      const auto* f = Cast<Function>(e);
      return k < f->params().size() ? f->params()[k] : f->body();
    }
    case ExprKind::kLet: {
      const auto* l = Cast<Let>(e);
      return k == 0 ? l->value() : k == 1 ? l->var() : l->body();
    }
    default:
      return nullptr;
  }
}

bool IsInputChild(const Expr* e, size_t k) {
  switch (e->kind()) {
    case ExprKind::kFunction:
      return k == Cast<Function>(e)->params().size();
    case ExprKind::kLet:
      return k == 2;
    default:
      return true;
  }
}

// Appends the children of `e` in TVM's visit order (its IndexedGraph's).
void PushSlots(const Expr* e, std::vector<Slot>& slots) {
  for (size_t k = 0, n = NumChildren(e); k < n; ++k) {
    slots.push_back({ChildAt(e, k), IsInputChild(e, k), IndexedGraph::kNone});
  }
}

// The indices the root function's parameter slots received (kNone when the
// function is opaque and has no slots).
void CollectParamSlots(const Expr* root, const std::vector<Slot>& slots, uint32_t begin,
                       std::vector<uint32_t>& out) {
  const auto* fn = DynCast<Function>(root);
  if (fn == nullptr) return;
  for (size_t k = 0; k < fn->params().size(); ++k) {
    out.push_back(begin + k < slots.size() ? slots[begin + k].index : IndexedGraph::kNone);
  }
}

}  // namespace

bool IsCompositeFunction(const Expr* e) {
  const auto* fn = DynCast<Function>(e);
  return fn != nullptr && fn->HasAttr("PartitionedFromPattern");
}

IndexedGraph::IndexedGraph(const Expr* root, const IndexedGraphOptions& options) {
  Build(root, options);
}

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

void IndexedGraph::Build(const Expr* root, const IndexedGraphOptions& options) {
  // One DFS numbers the nodes, telling visited nodes by their scratch mark
  // (1 visited, 2 met again), so that only the edges to shared nodes need a
  // map, filled afterwards from the marks; the marks are cleared at the end.
  // Frames find their children through the expression, and children leave
  // one 4-byte value each on a stack until their parent is numbered: on a
  // deep chain (a long network) the stacks hold every pending sibling, so
  // they are kept small.
  size_t size_hint = options.size_hint;
  struct Frame {
    const Expr* expr;
    uint32_t next;          // next child to visit; kNone for opaque composites
    uint32_t values_begin;  // this frame's children's values (one per child visited)
  };
  // A child's value: its index; kNone when it is no node (a recursive
  // reference); for a node numbered before its consumer was reached,
  // kLaterBit | k, resolved once the map of shared nodes is built from
  // later[k].
  constexpr uint32_t kLaterBit = 1u << 31;
  std::vector<Frame> stack;
  std::vector<uint32_t> values;
  std::vector<const Var*> let_vars_in_progress;
  // Inputs go straight into the CSR (a node's are known when it is
  // numbered), as values until resolved. A let-bound variable's edge to its
  // value is emitted with the let (TVM's output order), so lets are kept
  // aside with their position and merged in by BuildEdges.
  struct LetEdge {
    size_t position;  // input edges emitted before it
    uint32_t var, value;
  };
  std::vector<LetEdge> let_edges;
  std::vector<const Expr*> later;
  std::vector<uint32_t> root_param_slots;
  size_t shared = 0;  // nodes met again (scratch mark 2)
  nodes_.reserve(size_hint);
  kinds_.reserve(size_hint);
  op_slots_.reserve(size_hint);
  input_begin_.clear();
  input_ids_.clear();
  input_begin_.reserve(size_hint + 1);
  input_ids_.reserve(size_hint * 2);
  input_begin_.push_back(0);

  auto open = [&](const Expr* e) {
    e->set_scratch_mark(1);
    bool opaque = options.opaque_composites && IsCompositeFunction(e);
    stack.push_back({e, opaque ? kNone : 0, static_cast<uint32_t>(values.size())});
  };
  // Most nodes met again are ops (one per call) and, in a large main, its
  // parameters (each weight once more in the body, usually in parameter
  // order): both are found without the map of shared nodes, ops in a
  // table of their own, parameters by a finger into the parameter list
  // (their ids are the root frame's first values).
  // Other fan-outs are mostly short-range (a residual connection is met
  // again a few nodes after it was numbered): a small direct-mapped table
  // of recently numbered nodes answers those.
  absl::flat_hash_map<const Expr*, uint32_t> op_ids;
  std::span<const Var* const> root_params;
  size_t finger = 0;
  RecentCache<uint32_t, 4096> recent;
  auto known = [&](const Expr* kid) -> uint32_t {
    if (kid->kind() == ExprKind::kOp) {
      auto it = op_ids.find(kid);
      return it != op_ids.end() ? it->second : kNone;
    }
    if (const uint32_t* id = recent.Find(kid)) return *id;
    if (kid->kind() != ExprKind::kVar) return kNone;
    for (size_t k = finger; k < finger + 2 && k < root_params.size(); ++k) {
      if (root_params[k] == kid && values[k] < kLaterBit) {
        finger = k + 1;
        return values[k];
      }
    }
    return kNone;
  };
  open(root);
  while (!stack.empty()) {
    Frame& f = stack.back();
    const auto* let = DynCast<Let>(f.expr);
    if (f.next != kNone && f.next < NumChildren(f.expr)) {
      uint32_t rel = f.next++;
      if (stack.size() == 1 && Isa<Function>(f.expr) && rel == NumParams(f.expr)) {
        // The root's parameters are numbered: its body follows.
        root_params = Cast<Function>(f.expr)->params();
      }
      if (let != nullptr && rel == 0) let_vars_in_progress.push_back(let->var());
      if (let != nullptr && rel == 1) let_vars_in_progress.pop_back();
      const Expr* kid = ChildAt(f.expr, rel);
      if (const auto* v = DynCast<Var>(kid);
          v != nullptr && std::find(let_vars_in_progress.begin(), let_vars_in_progress.end(), v) !=
                              let_vars_in_progress.end()) {
        values.push_back(kNone);  // a recursive reference: no node, no edge
        continue;
      }
      if (kid->scratch_mark() == 0) {
        open(kid);
      } else if (uint32_t id = known(kid); id != kNone) {
        values.push_back(id);
      } else {
        // Numbered before (the graph is acyclic): mark it shared.
        if (kid->scratch_mark() == 1) {
          kid->set_scratch_mark(2);
          ++shared;
        }
        values.push_back(kLaterBit | static_cast<uint32_t>(later.size()));
        later.push_back(kid);
      }
      continue;
    }
    // All children done: number the node and record its input edges.
    uint32_t id = static_cast<uint32_t>(nodes_.size());
    if (f.expr->kind() == ExprKind::kOp) op_ids.emplace(f.expr, id);
    recent.Put(f.expr, id);
    nodes_.push_back(f.expr);
    kinds_.push_back(f.expr->kind());
    op_slots_.push_back(f.expr->kind() == ExprKind::kCall ? OpSlot(Cast<Call>(f.expr)->op()) : 0);
    const uint32_t* kids = values.data() + f.values_begin;
    uint32_t count = static_cast<uint32_t>(values.size()) - f.values_begin;
    for (uint32_t k = 0; k < count; ++k) {
      if (kids[k] != kNone && IsInputChild(f.expr, k)) input_ids_.push_back(kids[k]);
    }
    input_begin_.push_back(static_cast<uint32_t>(input_ids_.size()));
    if (let != nullptr && kids[0] != kNone && kids[1] != kNone) {
      let_edges.push_back({input_ids_.size(), kids[1], kids[0]});  // the var's input: the value
    }
    if (stack.size() == 1 && Isa<Function>(f.expr)) {
      root_param_slots.assign(kids, kids + std::min<size_t>(count, NumParams(f.expr)));
    }
    values.resize(f.values_begin);
    stack.pop_back();
    values.push_back(id);
  }
  // Only the shared nodes need a lookup (usually ops and a few fan-outs):
  // a small map of them, instead of one of every node (IndexOf fills that
  // on first use).
  AddressMap<uint32_t> shared_index(shared);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->scratch_mark() == 2) shared_index.TryEmplace(nodes_[i], i);
    nodes_[i]->set_scratch_mark(0);
  }
  auto resolve = [&](uint32_t& v) {
    if (v != kNone && (v & kLaterBit) != 0) {
      const uint32_t* found = shared_index.Find(later[v & ~kLaterBit]);
      v = found == nullptr ? kNone : *found;
    }
    return v != kNone;
  };
  bool stale = nodes_.size() >= kLaterBit;
  for (uint32_t& producer : input_ids_) {
    if (!resolve(producer)) stale = true;
  }
  for (LetEdge& e : let_edges) {
    if (!resolve(e.var) || !resolve(e.value)) stale = true;
  }
  for (uint32_t& p : root_param_slots) {
    if (!resolve(p)) stale = true;
  }
  if (stale) {
    // A node was marked by someone else (a traversal that did not clear
    // its marks) and taken for visited: number again without marks.
    nodes_.clear();
    kinds_.clear();
    op_slots_.clear();
    BuildWithMap(root, options);
    return;
  }
  SetRootParams(root_param_slots);
  // Outputs are computed on first use, in the memory this build's
  // temporaries leave.
  if (let_edges.empty()) return;
  // Every edge in emission order, for BuildEdges.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(input_ids_.size() + let_edges.size());
  size_t next_let = 0;
  for (uint32_t c = 0; c < nodes_.size(); ++c) {
    for (uint32_t p = input_begin_[c]; p < input_begin_[c + 1]; ++p) {
      for (; next_let < let_edges.size() && let_edges[next_let].position == p; ++next_let) {
        edges.emplace_back(let_edges[next_let].var, let_edges[next_let].value);
      }
      edges.emplace_back(c, input_ids_[p]);
    }
  }
  for (; next_let < let_edges.size(); ++next_let) {
    edges.emplace_back(let_edges[next_let].var, let_edges[next_let].value);
  }
  BuildEdges(edges);
}

// The same numbering with the index map consulted for every child (no
// scratch marks): the fallback when a node carries a stale mark.
void IndexedGraph::BuildWithMap(const Expr* root, const IndexedGraphOptions& options) {
  size_t size_hint = options.size_hint;
  struct Frame {
    const Expr* expr;
    uint32_t slots_begin;
    uint32_t next;         // next slot to visit (absolute index)
    uint32_t parent_slot;  // where to write this node's index, or kNone
  };
  std::vector<Frame> stack;
  std::vector<Slot> slots;
  std::vector<const Var*> let_vars_in_progress;
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // (consumer, producer)
  std::vector<uint32_t> root_param_slots;
  index_ = AddressMap<uint32_t>(size_hint);
  has_index_ = true;
  nodes_.reserve(size_hint);
  kinds_.reserve(size_hint);
  op_slots_.reserve(size_hint);
  edges.reserve(size_hint * 2);

  auto open = [&](const Expr* e, uint32_t parent_slot) {
    uint32_t begin = static_cast<uint32_t>(slots.size());
    if (!options.opaque_composites || !IsCompositeFunction(e)) PushSlots(e, slots);
    stack.push_back({e, begin, begin, parent_slot});
  };
  open(root, kNone);
  while (!stack.empty()) {
    Frame& f = stack.back();
    const auto* let = DynCast<Let>(f.expr);
    if (f.next < slots.size()) {
      uint32_t s = f.next++;
      uint32_t rel = s - f.slots_begin;
      if (let != nullptr && rel == 0) let_vars_in_progress.push_back(let->var());
      if (let != nullptr && rel == 1) let_vars_in_progress.pop_back();
      const Expr* kid = slots[s].expr;
      if (const auto* v = DynCast<Var>(kid);
          v != nullptr && std::find(let_vars_in_progress.begin(), let_vars_in_progress.end(), v) !=
                              let_vars_in_progress.end()) {
        continue;  // a recursive reference: no node, no edge
      }
      if (const uint32_t* known = index_.Find(kid)) {
        slots[s].index = *known;
      } else {
        open(kid, s);
      }
      continue;
    }
    // All children done: number the node and record its input edges.
    uint32_t id = *index_.TryEmplace(f.expr, static_cast<uint32_t>(nodes_.size())).first;
    if (id == nodes_.size()) {
      nodes_.push_back(f.expr);
      kinds_.push_back(f.expr->kind());
      op_slots_.push_back(f.expr->kind() == ExprKind::kCall ? OpSlot(Cast<Call>(f.expr)->op()) : 0);
      for (uint32_t s = f.slots_begin; s < slots.size(); ++s) {
        if (slots[s].is_input && slots[s].index != kNone) edges.emplace_back(id, slots[s].index);
      }
      if (let != nullptr) {
        uint32_t value = slots[f.slots_begin].index;
        uint32_t var = slots[f.slots_begin + 1].index;
        if (value != kNone && var != kNone) edges.emplace_back(var, value);
      }
    }
    uint32_t parent_slot = f.parent_slot;
    if (parent_slot == kNone) CollectParamSlots(f.expr, slots, f.slots_begin, root_param_slots);
    slots.resize(f.slots_begin);
    stack.pop_back();
    if (parent_slot != kNone) slots[parent_slot].index = id;
  }
  SetRootParams(root_param_slots);
  BuildEdges(edges);
}

std::unique_ptr<IndexedGraph> IndexedGraph::Derive(std::unique_ptr<IndexedGraph> consumed,
                                                   std::span<const Expr* const> current,
                                                   std::span<const Replacement> replaced,
                                                   std::span<const uint32_t> replaced_inputs) {
  const IndexedGraph& old = *consumed;
  size_t n = old.size();
  uint32_t root = old.root();
  if (n >= (size_t{1} << 31)) return nullptr;  // ids must leave the walk's marker bit free
  if (!old.InputsAreChildren(/*ifs_too=*/true)) return nullptr;

  // The root function's parameters are children but not inputs.
  std::vector<uint32_t> params;
  bool root_replaced = !replaced.empty() && replaced.back().node == root;
  if (old.kind(root) == ExprKind::kFunction && !root_replaced) {
    // The root's current version: a rebuild may have taken the old nodes
    // (it keeps the root's parameter count).
    if (old.root_params_.size() != Cast<Function>(current[root])->params().size()) {
      return nullptr;
    }
    for (uint32_t id : old.root_params_) {
      if (id == kNone) return nullptr;
      params.push_back(id);
    }
    if (old.inputs(root).size() != 1) return nullptr;
  }
  // Only the old kinds, ops and inputs are read from here on: the rest is
  // freed first, so that the new graph's arrays can take its memory.
  consumed->ReleaseAllButInputs();
  std::unique_ptr<IndexedGraph> g(new IndexedGraph());
  g->nodes_.reserve(n);
  g->kinds_.reserve(n);
  g->op_slots_.reserve(n);
  g->ops_ = old.ops_;  // the same slots
  // Inputs go straight into the CSR: a node's are known when it is numbered.
  g->input_begin_.reserve(n + 1);
  g->input_ids_.reserve(old.input_ids_.size());
  g->input_begin_.push_back(0);
  // One word per old node: its new id once numbered; before that kNone, or
  // kReplacedBit | r for replaced[r] (no array of replacements by node).
  constexpr uint32_t kReplacedBit = 1u << 31;
  std::vector<uint32_t> new_id(n, kNone);
  for (uint32_t r = 0; r < replaced.size(); ++r) new_id[replaced[r].node] = kReplacedBit | r;
  std::vector<uint32_t> fresh_id(replaced.size());  // by replacement: its function's new id
  constexpr uint32_t kFresh = kNone - 1;            // a replaced node's composite function

  // A node's children in the new expression's visit order, as (old id or
  // kFresh, is_input): a replaced node's callee then its args, the root
  // function's parameters then its body, otherwise the old inputs (which
  // are exactly the children of calls, tuples, projections and ifs).
  // `r` is the node's replacement, or kNone.
  auto num_children = [&](uint32_t u, uint32_t r) -> size_t {
    if (r != kNone) {
      uint32_t end = r + 1 < replaced.size() ? replaced[r + 1].inputs_begin
                                             : static_cast<uint32_t>(replaced_inputs.size());
      return 1 + end - replaced[r].inputs_begin;
    }
    if (u == root && !params.empty()) return params.size() + 1;
    return old.inputs(u).size();
  };
  auto child = [&](uint32_t u, uint32_t r, size_t k) -> std::pair<uint32_t, bool> {
    if (r != kNone) {
      return {k == 0 ? kFresh : replaced_inputs[replaced[r].inputs_begin + k - 1], true};
    }
    if (u == root && !params.empty()) {
      return k < params.size() ? std::pair{params[k], false} : std::pair{old.inputs(u)[0], true};
    }
    return {old.inputs(u)[k], true};
  };
  // Numbers a node; its inputs are pushed next, before the next add.
  auto add = [&](const Expr* e, ExprKind kind, uint16_t op_slot) {
    uint32_t id = static_cast<uint32_t>(g->nodes_.size());
    if (id > 0) g->input_begin_.push_back(static_cast<uint32_t>(g->input_ids_.size()));
    g->nodes_.push_back(e);
    g->kinds_.push_back(kind);
    g->op_slots_.push_back(op_slot);
    return id;
  };

  // 8 bytes a frame, room for the deepest walk reserved (untouched beyond
  // the depth reached): a long chain's walk holds most of the graph, and
  // growth copies would leave their old arrays behind at this pass's peak.
  struct Frame {
    uint32_t u;
    uint32_t next;
  };
  auto replacement = [&](uint32_t u) {
    uint32_t state = new_id[u];
    return state == kNone ? kNone : state & ~kReplacedBit;
  };
  std::vector<Frame> stack;
  stack.reserve(n);
  stack.push_back({root, 0});
  while (!stack.empty()) {
    Frame& f = stack.back();
    uint32_t u = f.u;
    uint32_t r = replacement(u);
    if (f.next < num_children(u, r)) {
      auto [c, is_input] = child(u, r, f.next++);
      if (c == kFresh) {
        const Expr* fn = Cast<Call>(current[u])->callee();
        fresh_id[r] = add(fn, ExprKind::kFunction, 0);
      } else if ((new_id[c] & kReplacedBit) != 0) {  // not numbered yet
        stack.push_back({c, 0});
      }
      continue;
    }
    uint32_t id = add(current[u], r != kNone ? ExprKind::kCall : old.kind(u),
                      r != kNone ? g->OpSlot(Cast<Call>(current[u])->op()) : old.op_slots_[u]);
    size_t count = num_children(u, r);
    new_id[u] = id;
    for (size_t k = 0; k < count; ++k) {
      auto [c, is_input] = child(u, r, k);
      if (is_input) g->input_ids_.push_back(c == kFresh ? fresh_id[r] : new_id[c]);
    }
    stack.pop_back();
  }
  g->input_begin_.push_back(static_cast<uint32_t>(g->input_ids_.size()));
  for (uint32_t p : params) g->root_params_.push_back(new_id[p]);
  // Outputs are computed on first use (the grouper's first overlap check),
  // after the old graph and these tables are freed.
  return g;
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

uint32_t IndexedGraph::Lca(uint32_t a, uint32_t b) const {
  while (a != b) {
    if (a == kNone || b == kNone) return kNone;
    if (depth_[a] < depth_[b]) {
      b = ipdom_[b];
    } else if (depth_[a] > depth_[b]) {
      a = ipdom_[a];
    } else {
      a = ipdom_[a];
      b = ipdom_[b];
    }
  }
  return a;
}

void IndexedGraph::ComputePostDominators() const {
  size_t n = size();
  ipdom_.assign(n, kNone);
  depth_.assign(n, 1);
  // Consumers have larger indices, so one reverse sweep sees them first.
  for (size_t k = n; k-- > 0;) {
    uint32_t i = static_cast<uint32_t>(k);
    auto outs = outputs(i);
    if (i == root() || outs.empty()) continue;
    uint32_t p = outs[0];
    for (size_t j = 1; j < outs.size() && p != kNone; ++j) p = Lca(p, outs[j]);
    ipdom_[i] = p;
    depth_[i] = p == kNone ? 1 : depth_[p] + 1;
  }
  // Children lists (CSR) and an Euler tour for O(1) ancestor queries.
  tree_begin_.assign(n + 1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (ipdom_[i] != kNone) ++tree_begin_[ipdom_[i] + 1];
  }
  for (size_t i = 0; i < n; ++i) tree_begin_[i + 1] += tree_begin_[i];
  tree_ids_.resize(tree_begin_[n]);
  std::vector<uint32_t> fill(tree_begin_.begin(), tree_begin_.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    if (ipdom_[i] != kNone) tree_ids_[fill[ipdom_[i]]++] = i;
  }
  tin_.assign(n, 0);
  tout_.assign(n, 0);
  uint32_t clock = 0;
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, next child offset)
  for (size_t k = n; k-- > 0;) {
    if (ipdom_[k] != kNone) continue;
    stack.emplace_back(static_cast<uint32_t>(k), tree_begin_[k]);
    tin_[k] = clock++;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < tree_begin_[node + 1]) {
        uint32_t child = tree_ids_[next++];
        tin_[child] = clock++;
        stack.emplace_back(child, tree_begin_[child]);
      } else {
        tout_[node] = clock++;
        stack.pop_back();
      }
    }
  }
  has_postdom_ = true;
}

uint32_t IndexedGraph::PostDominator(uint32_t i) const {
  if (!has_postdom_) ComputePostDominators();
  return ipdom_[i];
}

bool IndexedGraph::PostDominates(uint32_t a, uint32_t b) const {
  if (!has_postdom_) ComputePostDominators();
  return a != b && tin_[a] < tin_[b] && tout_[b] < tout_[a];
}

std::span<const uint32_t> IndexedGraph::PostDominated(uint32_t i) const {
  if (!has_postdom_) ComputePostDominators();
  return {tree_ids_.data() + tree_begin_[i], tree_begin_[i + 1] - tree_begin_[i]};
}

}  // namespace carve
