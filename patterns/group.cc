#include "patterns/group.h"

#include <algorithm>
#include <iterator>

#include "fmt/format.h"
#include "ir/visit.h"
#include "patterns/describe.h"
#include "support/cancellation.h"

namespace carve {
namespace {

constexpr uint32_t kNone = IndexedGraph::kNone;

// MatchExtractor's naming: one entry per body node, post-order. The kind
// and a call's op are passed in (a graph has them in dense arrays, so that
// naming a group does not read its nodes again).
void AppendLabel(const Expr* e, ExprKind kind, const OpInfo* op, std::string& label) {
  switch (kind) {
    case ExprKind::kCall: {
      if (op == nullptr) {
        label += "Call_";
      } else {
        label.append(op->name.data(), op->name.size());
        label += '_';
      }
      return;
    }
    case ExprKind::kTuple:
      label += "Tuple_";
      return;
    case ExprKind::kTupleGetItem:
      fmt::format_to(std::back_inserter(label), "TupleGetItem{}_", Cast<TupleGetItem>(e)->index());
      return;
    case ExprKind::kFunction:
      label += "Function";
      return;
    case ExprKind::kLet:
      label += "Let_";
      return;
    case ExprKind::kIf:
      label += "If_";
      return;
    default:
      return;
  }
}

void AppendLabel(const Expr* e, std::string& label) {
  AppendLabel(e, e->kind(), e->kind() == ExprKind::kCall ? Cast<Call>(e)->op() : nullptr, label);
}

// How many graph edges a match can span below its root: the pattern's
// height (a call's args and callee, a tuple's fields, ... are one edge
// down). Unbounded (kNone) for recursive and dominator patterns.
uint32_t PatternHeight(const CompiledPattern& p, uint32_t id, std::vector<uint8_t>& state) {
  if (state[id] == 1 || p.node(id).kind == PatternKind::kDominator) return kNone;
  state[id] = 1;
  uint32_t height = 0;
  auto below = [&](uint32_t child, uint32_t step) {
    uint32_t h = PatternHeight(p, child, state);
    height = (h == kNone || height == kNone) ? kNone : std::max(height, h + step);
  };
  bool wrapper = p.node(id).kind != PatternKind::kCall && p.node(id).kind != PatternKind::kTuple &&
                 p.node(id).kind != PatternKind::kTupleGetItem &&
                 p.node(id).kind != PatternKind::kFunction && p.node(id).kind != PatternKind::kLet &&
                 p.node(id).kind != PatternKind::kIf;
  for (uint32_t child : p.children(id)) below(child, wrapper ? 0 : 1);
  for (uint32_t alt : p.alternatives(id)) below(alt, 0);
  if (!wrapper && height != kNone) height = std::max(height, 1u);  // any-arity args
  state[id] = 0;
  return height;
}

// MayMatchInGraph's look. Each pattern node's filter (the kinds and ops it
// can match, compile.h) rejects a whole alternation of calls of other ops in
// one test. Alternations and the commutative retry still branch without a
// memo, so the look is bounded by a number of steps: out of steps, it
// answers "may match". That keeps the answer a necessary condition, since
// it is built from ands and ors of the parts: a part answered "true" early
// can only make it "true".
class MayMatchLook {
 public:
  MayMatchLook(const CompiledPattern& p, const IndexedGraph& g) : p_(p), g_(g) {}

  bool At(uint32_t id, uint32_t node) {
    if (--steps_left_ < 0) return true;
    if (!p_.filter(id).Admits(g_.kind(node), g_.call_op(node))) return false;
    auto kids = p_.children(id);
    switch (p_.node(id).kind) {
      case PatternKind::kAlt:
        return At(kids[0], node) || At(kids[1], node);
      // Wrappers whose inner pattern must match the same node.
      case PatternKind::kAttr:
      case PatternKind::kType:
      case PatternKind::kDType:
      case PatternKind::kShape:
      case PatternKind::kCapture:
      case PatternKind::kRecursive:
      case PatternKind::kWhere:
        return At(kids[0], node);
      case PatternKind::kCall:
        return AtCall(id, node);
      default:  // the filter said all that is cheap to tell
        return true;
    }
  }

 private:
  // Far more than SimplifyExpr's largest rule (SimplifyBinomial) needs to
  // reject an add; each step reads a few dense arrays.
  static constexpr int kMaxSteps = 256;

  // As Matcher::VisitCall: the callee (an op compared directly, anything
  // else matched as a child), then the args in order or, for a commutative
  // op with two args, swapped; when the callee does not match, a
  // re-associated alternative may.
  bool AtCall(uint32_t id, uint32_t node) {
    if (g_.kind(node) != ExprKind::kCall) return false;
    const auto* pat = Cast<CallPattern>(p_.node(id).node);
    const OpInfo* want = pat->op();
    if (want != nullptr && g_.call_op(node) != want) return AtAlternative(id, node);
    if (pat->any_args()) return true;
    auto kids = p_.children(id);
    auto inputs = g_.inputs(node);
    // A call's inputs are its callee and args, unless a recursive reference
    // left one out: then the matcher decides.
    if (inputs.size() != kids.size()) return true;
    if (want == nullptr && !At(kids[0], inputs[0])) return AtAlternative(id, node);
    auto arg_pats = kids.subspan(1);
    auto args = inputs.subspan(1);
    return AtArgs(arg_pats, args, false) ||
           (want != nullptr && want->commutative() && arg_pats.size() == 2 &&
            AtArgs(arg_pats, args, true));
  }

  bool AtArgs(std::span<const uint32_t> pats, std::span<const uint32_t> args, bool swap) {
    for (size_t k = 0; k < pats.size(); ++k) {
      if (!At(pats[swap ? pats.size() - 1 - k : k], args[k])) return false;
    }
    return true;
  }

  bool AtAlternative(uint32_t id, uint32_t node) {
    for (uint32_t alt : p_.alternatives(id)) {
      if (At(alt, node)) return true;
    }
    return false;
  }

  const CompiledPattern& p_;
  const IndexedGraph& g_;
  int steps_left_ = kMaxSteps;
};

}  // namespace

bool MayMatchInGraph(const CompiledPattern& pattern, uint32_t id, const IndexedGraph& graph,
                     uint32_t node) {
  return MayMatchLook(pattern, graph).At(id, node);
}

std::string GroupRejection::Reason(const NodeNamer& namer) const {
  if (kind == Kind::kOverlap) {
    return fmt::format("{} already belongs to another group", DescribeExpr(node, namer));
  }
  return fmt::format("{} inside the match is also used outside it, by {}",
                     DescribeExpr(node, namer), DescribeExpr(user, namer));
}

PatternGrouper::PatternGrouper(std::shared_ptr<const CompiledPattern> pattern,
                               const IndexedGraph& graph)
    : pattern_(std::move(pattern)),
      graph_(graph),
      matcher_(pattern_, &graph),
      group_of_(graph.size(), kNone),
      pre_partitioned_(graph.size(), 0),
      marks_(graph.size(), 0) {
  std::vector<uint8_t> state(pattern_->size(), 0);
  pattern_height_ = PatternHeight(*pattern_, pattern_->root(), state);
}

uint32_t PatternGrouper::IndexOfBinding(const Binding& b) {
  return b.index != kNone ? b.index : IndexNear(b.expr);
}

void PatternGrouper::CollectNear(uint32_t root) {
  // Enough for the usual fused-op patterns; anything further is looked up.
  constexpr size_t kMaxNear = 64;
  near_.clear();
  near_.emplace_back(graph_.node(root), root);
  size_t level_end = 1;
  uint32_t depth = 0;
  for (size_t k = 0; k < near_.size() && near_.size() < kMaxNear; ++k) {
    if (k == level_end) {
      level_end = near_.size();
      ++depth;
    }
    if (depth >= pattern_height_) break;
    for (uint32_t in : graph_.inputs(near_[k].second)) {
      if (near_.size() == kMaxNear) break;
      near_.emplace_back(graph_.node(in), in);
    }
  }
}

uint32_t PatternGrouper::IndexNear(const Expr* e) {
  if (!near_collected_) {
    CollectNear(candidate_root_);
    near_collected_ = true;
  }
  for (const auto& [node, index] : near_) {
    if (node == e) return index;
  }
  return graph_.IndexOf(e);
}

void PatternGrouper::Run() {
  if (ran_) return;
  ran_ = true;
  // On a Ctrl-C the search stops with the groups found so far (still valid
  // groups); the pass manager discards the pass's result.
  CancellationPoll cancel;
  for (size_t k = graph_.size(); k-- > 0;) {
    if (cancel.Requested()) break;
    uint32_t i = static_cast<uint32_t>(k);
    if (group_of_[i] != kNone || pre_partitioned_[i]) continue;
    ExprKind kind = graph_.kind(i);
    if (kind == ExprKind::kFunction && IsCompositeFunction(graph_.node(i))) {
      MarkPrePartitioned(i);
      continue;
    }
    if (MayMatchInGraph(*pattern_, pattern_->root(), graph_, i) &&
        matcher_.Match(graph_.node(i), i)) {
      TryRoot(i);
    }
  }
  // Only the groups are read from here on (while a partition rebuilds the
  // graph, its peak memory).
  std::vector<uint32_t>().swap(marks_);
  std::vector<uint8_t>().swap(pre_partitioned_);
}

Group PatternGrouper::group(size_t k) const {
  const Extent& x = extents_[k];
  Group g;
  g.root = x.root;
  g.number = x.number;
  g.inputs = {index_pool_.data() + x.inputs_begin, index_pool_.data() + x.nodes_begin};
  g.nodes = {index_pool_.data() + x.nodes_begin, index_pool_.data() + x.nodes_end};
  g.bindings = {binding_pool_.data() + x.bindings_begin, binding_pool_.data() + x.bindings_end};
  g.label = std::string_view(label_pool_).substr(x.label_begin, x.label_end - x.label_begin);
  return g;
}

const std::vector<Group>& PatternGrouper::groups() const {
  if (groups_.size() != extents_.size()) {
    groups_.clear();
    groups_.reserve(extents_.size());
    for (size_t k = 0; k < extents_.size(); ++k) groups_.push_back(group(k));
  }
  return groups_;
}

void PatternGrouper::MarkPrePartitioned(uint32_t function) {
  std::vector<uint32_t> stack = {function};
  pre_partitioned_[function] = 1;
  while (!stack.empty()) {
    uint32_t n = stack.back();
    stack.pop_back();
    for (uint32_t in : graph_.inputs(n)) {
      if (!pre_partitioned_[in]) {
        pre_partitioned_[in] = 1;
        stack.push_back(in);
      }
    }
  }
}

void PatternGrouper::TryRoot(uint32_t root) {
  // Bindings by pattern node, in binding order (TVM's node_map). The
  // per-node lists are reused across candidates.
  by_pattern_.resize(pattern_->size());
  for (auto& list : by_pattern_) list.clear();
  for (const Binding& b : matcher_.bindings()) by_pattern_[b.pattern_id].push_back(b);

  if (++candidate_ > kMaxCandidate) {
    std::fill(marks_.begin(), marks_.end(), 0);
    candidate_ = 1;
  }
  Extent x;
  x.inputs_begin = static_cast<uint32_t>(index_pool_.size());
  x.bindings_begin = static_cast<uint32_t>(binding_pool_.size());
  x.label_begin = static_cast<uint32_t>(label_pool_.size());
  // The neighbourhood is collected only if a binding has no index.
  candidate_root_ = root;
  near_collected_ = false;
  MarkFuzzyNodes();
  SelectInputs();
  x.nodes_begin = static_cast<uint32_t>(index_pool_.size());
  int number = next_number_++;  // consumed even when the group is rejected
  Extract(root);
  if (!Validate(root, x.nodes_begin)) {
    index_pool_.resize(x.inputs_begin);
    label_pool_.resize(x.label_begin);
    return;
  }
  x.nodes_end = static_cast<uint32_t>(index_pool_.size());
  x.label_end = static_cast<uint32_t>(label_pool_.size());
  // A graph repeats a few labels many times, usually in a row: a label
  // equal to the previous group's is stored once.
  if (!extents_.empty()) {
    const Extent& prev = extents_.back();
    std::string_view pool = label_pool_;
    if (pool.substr(prev.label_begin, prev.label_end - prev.label_begin) ==
        pool.substr(x.label_begin, x.label_end - x.label_begin)) {
      label_pool_.resize(x.label_begin);
      x.label_begin = prev.label_begin;
      x.label_end = prev.label_end;
    }
  }
  if (keep_bindings_) {
    binding_pool_.insert(binding_pool_.end(), matcher_.bindings().begin(),
                         matcher_.bindings().end());
  }
  x.bindings_end = static_cast<uint32_t>(binding_pool_.size());
  uint32_t gid = static_cast<uint32_t>(extents_.size());
  for (uint32_t k = x.nodes_begin; k < x.nodes_end; ++k) group_of_[index_pool_[k]] = gid;
  x.root = root;
  x.number = number;
  extents_.push_back(x);
}

// Nodes matched by a dominator's parent or path, and every node of a
// function matched by a function pattern, are never inputs.
void PatternGrouper::MarkFuzzyNodes() {
  auto mark = [this](const Expr* e) {
    uint32_t i = IndexNear(e);
    if (i != kNone) SetMark(i, kFuzzy);
  };
  for (uint32_t id = 0; id < pattern_->num_source_nodes(); ++id) {
    PatternKind kind = pattern_->node(id).kind;
    if (kind == PatternKind::kDominator) {
      for (int k = 0; k < 2; ++k) {  // parent, path
        for (const Binding& b : by_pattern_[pattern_->children(id)[k]]) {
          uint32_t i = IndexOfBinding(b);
          if (i != kNone) SetMark(i, kFuzzy);
        }
      }
    } else if (kind == PatternKind::kFunction) {
      for (const Binding& b : by_pattern_[id]) {
        PostOrderVisit(Cast<Function>(b.expr)->body(), mark);
      }
    }
  }
}

bool PatternGrouper::EmbedsConstant(ExprKind kind, uint32_t pattern_id) const {
  if (kind != ExprKind::kConstant) return false;
  const PatternNode* p = pattern_->node(pattern_id).node;
  if (p->kind() == PatternKind::kConstant) return true;
  const auto* ep = DynCast<ExprPattern>(p);
  return ep != nullptr && Isa<Constant>(ep->expr());
}

void PatternGrouper::SelectInputs() {
  const auto& by_pattern = by_pattern_;
  // The kind comes from the graph when the node is in it: an input is often
  // a weight or bias variable that nothing else near the match touches.
  auto add = [&](const Expr* e, uint32_t index, uint32_t pattern_id) {
    uint32_t i = index != kNone ? index : IndexNear(e);
    ExprKind kind = i != kNone ? graph_.kind(i) : e->kind();
    if (kind == ExprKind::kOp || kind == ExprKind::kFunction || EmbedsConstant(kind, pattern_id)) {
      return;
    }
    if (i == kNone || Marked(i, kFuzzy) || Marked(i, kInput)) return;
    SetMark(i, kInput);
    index_pool_.push_back(i);
  };
  for (uint32_t id = 0; id < pattern_->num_source_nodes(); ++id) {
    const PatternNode* p = pattern_->node(id).node;
    const auto* tuple = DynCast<TuplePattern>(p);
    const auto* call = DynCast<CallPattern>(p);
    if (tuple != nullptr && tuple->any_fields()) {
      for (const Binding& m : by_pattern[id]) {
        auto fields = Cast<Tuple>(m.expr)->fields();
        for (size_t k = 0; k < fields.size(); ++k) {
          add(fields[k], graph_.InputIndex(m.index, k, fields.size()), id);
        }
      }
    } else if (call != nullptr && call->any_args()) {
      for (const Binding& m : by_pattern[id]) {
        auto args = Cast<Call>(m.expr)->args();
        for (size_t k = 0; k < args.size(); ++k) {
          add(args[k], graph_.InputIndex(m.index, 1 + k, 1 + args.size()), id);
        }
      }
    } else if (pattern_->children(id).empty()) {
      for (const Binding& m : by_pattern[id]) add(m.expr, m.index, id);
    }
  }
}

// The body: every node reachable from the root without passing through an
// input, in post-order (MatchExtractor's visit order: a call's callee then
// args, a let's variable, value, body), and its label. Walks graph edges, so
// no hashing except at lets.
void PatternGrouper::Extract(uint32_t root) {
  std::vector<std::pair<uint32_t, bool>>& stack = extract_stack_;
  stack.assign(1, {root, false});
  std::vector<uint32_t>& kids = kids_;
  while (!stack.empty()) {
    auto [i, expanded] = stack.back();
    if (Marked(i, kBody)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      kids.clear();
      if (graph_.kind(i) == ExprKind::kLet) {  // the kind from the graph: no node read
        const auto* let = Cast<Let>(graph_.node(i));
        uint32_t var = graph_.IndexOf(let->var());  // the var's input is the value
        if (var != kNone) kids.push_back(var);
      }
      for (uint32_t in : graph_.inputs(i)) kids.push_back(in);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        if (!Marked(*it, kInput)) stack.emplace_back(*it, false);
      }
      continue;
    }
    stack.pop_back();
    SetMark(i, kBody);
    index_pool_.push_back(i);
    if (graph_.kind(i) == ExprKind::kFunction && graph_.inputs(i).empty()) {
      // An opaque composite (IndexedGraphOptions): its body still names the label.
      PostOrderVisit(Cast<Function>(graph_.node(i))->body(),
                     [this](const Expr* e) { AppendLabel(e, label_pool_); });
    }
    AppendLabel(graph_.node(i), graph_.kind(i), graph_.call_op(i), label_pool_);
  }
}

bool PatternGrouper::Validate(uint32_t root, uint32_t nodes_begin) {
  for (size_t k = nodes_begin; k < index_pool_.size(); ++k) {
    uint32_t n = index_pool_[k];
    ExprKind kind = graph_.kind(n);
    if (kind == ExprKind::kOp || kind == ExprKind::kFunction || kind == ExprKind::kConstant) {
      continue;
    }
    const Expr* e = graph_.node(n);
    if (group_of_[n] != kNone) {
      rejections_.push_back({root, GroupRejection::Kind::kOverlap, e, nullptr});
      return false;
    }
    if (n == root) continue;
    for (uint32_t out : graph_.outputs(n)) {
      if (Marked(out, kBody) || graph_.PostDominates(root, out)) continue;
      rejections_.push_back({root, GroupRejection::Kind::kEscapes, e, graph_.node(out)});
      return false;
    }
  }
  return true;
}

}  // namespace carve
