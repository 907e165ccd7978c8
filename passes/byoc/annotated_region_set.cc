#include "passes/byoc/annotated_region_set.h"

#include <algorithm>
#include <cassert>
#include <span>
#include <utility>

#include "fmt/format.h"
#include "ir/post_order.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {

// Nothing in a region-free body can open, join or close a region, report a
// malformed annotation or bind a variable, and no node outside it that reads
// a node of it is affected by when it is visited; a function is outside
// every region, joins none as a callee or operand, and no analysis takes it
// for a dependency. So the walk treats such a function as an atom: neither it
// nor its body is visited or numbered (a third of the nodes of a ResNet-like
// graph), a node of the body shared with the graph around being numbered
// where the graph meets it. The look is bounded: a larger body is numbered
// as before. (The Composite attribute is not read: one pointer less to
// follow per composite.)
bool AnnotatedRegionSet::HasRegionFreeBody(const Function* fn) {
  constexpr int kMaxNodes = kMaxRegionFreeBody;
  const Expr* stack[kMaxNodes];
  int top = 0;
  int seen = 0;
  if (!fn->body()->is_atom()) stack[top++] = fn->body();
  while (top > 0) {
    const Expr* e = stack[--top];
    if (++seen > kMaxNodes) return false;
    switch (e->kind()) {
      case ExprKind::kCall: {
        const Expr* callee = Cast<Call>(e)->callee();
        if (!callee->is_atom() || callee == CompilerBeginOp() || callee == CompilerEndOp()) {
          return false;
        }
        break;
      }
      case ExprKind::kTuple:
      case ExprKind::kTupleGetItem:
        break;
      default:
        return false;
    }
    bool fits = true;
    carve::ForEachChild(e, [&](const Expr* c) {
      if (c->is_atom()) return;
      if (top == kMaxNodes) {
        fits = false;
      } else {
        stack[top++] = c;
      }
    });
    if (!fits) return false;
  }
  return true;
}

// Visits the expression in TVM's order (MixedModeVisitor): calls, tuples and
// projections after their operands; let and if nodes before theirs. One
// depth-first walk (ir/post_order.h) that numbers each node when it first
// meets it; the set's address map is the walk's visited set (one look-up
// per edge).
class AnnotatedRegionSet::Builder {
 public:
  explicit Builder(AnnotatedRegionSet& set) : set_(set) {}

  absl::Status Run(const Function* root) {
    absl::Status walked = WalkPostOrder(
        Pending{root, kNoSlot}, [&](Pending p) { return Enter(p); },
        [&](Pending, auto push) {
          for (const Pending& c : children_) push(c);
        },
        [&](Pending) -> absl::Status {
          CARVE_RETURN_IF_ERROR(error_);
          NodeIndex i = open_.back();
          open_.pop_back();
          return PostVisit(i, KidsOf(i));
        });
    CARVE_RETURN_IF_ERROR(error_);
    CARVE_RETURN_IF_ERROR(walked);
    set_.kid_begin_.push_back(static_cast<uint32_t>(set_.kids_.size()));
    return absl::OkStatus();
  }

 private:
  // A child to visit and where its index goes in the set's kids_.
  struct Pending {
    const Expr* node;
    uint32_t slot;
  };
  static constexpr uint32_t kNoSlot = ~0u;  // the root's

  // Numbers a node met for the first time and opens it (then the walk asks
  // for children_); false for a node met before.
  bool Enter(Pending p) {
    auto [index, inserted] =
        set_.index_.TryEmplace(p.node, static_cast<NodeIndex>(set_.node_.size()));
    if (p.slot != kNoSlot) set_.kids_[p.slot] = *index;
    if (!inserted || !error_.ok()) return false;
    error_ = Open(p.node);
    return error_.ok();
  }

  // Atoms, and function literals with a region-free body (see
  // HasRegionFreeBody): neither is numbered nor visited, as neither joins
  // nor opens a region.
  static bool IsAtom(const Expr* e) {
    if (e->is_atom()) return true;
    return e->kind() == ExprKind::kFunction && HasRegionFreeBody(Cast<Function>(e));
  }

  static uint8_t AnnotationFlags(const Expr* e) {
    if (e->kind() != ExprKind::kCall) return 0;
    const Expr* callee = Cast<Call>(e)->callee();
    if (callee == CompilerBeginOp()) return kBeginFlag;
    return callee == CompilerEndOp() ? kEndFlag : 0;
  }

  // The indices of node i's children, once all are visited.
  std::span<const NodeIndex> KidsOf(NodeIndex i) const {
    // (The last node opened has no successor in kid_begin_ yet.)
    uint32_t begin = set_.kid_begin_[i];
    uint32_t end = i + 1 < set_.kid_begin_.size() ? set_.kid_begin_[i + 1]
                                                  : static_cast<uint32_t>(set_.kids_.size());
    return {set_.kids_.data() + begin, end - begin};
  }

  // Numbers `e` (already in the address map), records its children's slots
  // and the children to visit, and pre-visits it.
  absl::Status Open(const Expr* e) {
    NodeIndex i = static_cast<NodeIndex>(set_.node_.size());
    set_.node_.push_back(e);
    set_.kind_.push_back(e->kind());
    set_.flags_.push_back(AnnotationFlags(e));
    set_.node_region_.push_back(kNoRegion);
    std::vector<const Expr*>& kids = kids_scratch_;
    kids.clear();
    ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
    auto base = static_cast<uint32_t>(set_.kids_.size());
    set_.kid_begin_.push_back(base);
    set_.kids_.resize(base + kids.size(), kNoNode);
    open_.push_back(i);
    CARVE_RETURN_IF_ERROR(PreVisit(i, kids));
    // The walk's next step: the children to visit.
    children_.clear();
    for (size_t k = 0; k < kids.size(); ++k) {
      if (!IsAtom(kids[k])) children_.push_back({kids[k], base + static_cast<uint32_t>(k)});
    }
    return absl::OkStatus();
  }

  // `kids`: the node's children, in ForEachChild's order (for a let: var,
  // value, body; for an if: condition, then, else).
  absl::Status PreVisit(NodeIndex i, std::span<const Expr* const> kids) {
    switch (set_.kind_[i]) {
      case ExprKind::kLet:
      case ExprKind::kIf:
        return AddToArgRegion(i, ArgsOfUnvisited(kids));
      case ExprKind::kFunction: {
        const Function* fn = Cast<Function>(set_.node_[i]);
        if (fn->HasAttr(attr::kComposite)) set_.flags_[i] |= kCompositeFlag;
        scopes_.push_back(fn);
        return absl::OkStatus();
      }
      default:
        return absl::OkStatus();
    }
  }

  absl::Status PostVisit(NodeIndex i, std::span<const NodeIndex> kids) {
    switch (set_.kind_[i]) {
      case ExprKind::kCall:
        return VisitCall(i, kids.subspan(1));
      case ExprKind::kTuple:
      case ExprKind::kTupleGetItem:
      case ExprKind::kRefCreate:
      case ExprKind::kRefRead:
      case ExprKind::kRefWrite:
        return AddToArgRegion(i, ArgsOf(kids));
      case ExprKind::kLet:
        set_.lets_.Record(Cast<Let>(set_.node_[i]));
        return absl::OkStatus();
      case ExprKind::kFunction:
        scopes_.pop_back();
        return absl::OkStatus();
      default:
        return absl::OkStatus();
    }
  }

  absl::Status VisitCall(NodeIndex i, std::span<const NodeIndex> args) {
    uint8_t annotation = set_.flags_[i] & (kBeginFlag | kEndFlag);
    if (annotation == 0) return AddToArgRegion(i, ArgsOf(args));
    const Call* call = Cast<Call>(set_.node_[i]);
    if (args.size() != 1) {
      return SpanError(call->span(), "an annotation must have exactly one argument",
                       absl::StatusCode::kFailedPrecondition);
    }
    NodeIndex arg = args[0];
    uint32_t target = set_.TargetIndex(AnnotationTarget(call));
    bool begin = annotation == kBeginFlag;
    if (set_.targets_[target] == kDefaultTarget ||
        (!begin && arg != kNoNode && set_.kind_[arg] == ExprKind::kTuple)) {
      set_.needs_partition_prep_ = true;
    }
    if (begin) {
      RegionId id = set_.MakeRegion(target, scopes_.empty() ? nullptr : scopes_.back());
      set_.AddNode(id, i);
      set_.Append(set_.regions_[id].ins, i);
      ++set_.regions_[id].num_ins;
      RegionId producer = set_.RegionOfIndex(arg);
      if (producer != kNoRegion) {
        set_.Append(set_.regions_[producer].consumers, i);
        ++set_.regions_[producer].num_consumers;
      }
      return absl::OkStatus();
    }
    RegionId id = set_.RegionOfIndex(arg);
    if (id == kNoRegion) {
      return SpanError(call->span(),
                       fmt::format("compiler_end for '{}' closes no region: its input is not "
                                   "inside a compiler_begin",
                                   set_.targets_[target]),
                       absl::StatusCode::kFailedPrecondition);
    }
    if (set_.regions_[id].target != target) {
      return SpanError(call->span(),
                       fmt::format("compiler_end for '{}' closes a region of target '{}'",
                                   set_.targets_[target], set_.Target(id)),
                       absl::StatusCode::kFailedPrecondition);
    }
    set_.AddNode(id, i);
    set_.Append(set_.regions_[id].outs, i);
    ++set_.regions_[id].live_outs;
    return absl::OkStatus();
  }

  // What AddToArgRegion needs of an argument.
  struct Arg {
    bool is_end;
    RegionId region;
  };

  // Arguments given as node indices (visited, or kNoNode for atoms).
  std::span<const Arg> ArgsOf(std::span<const NodeIndex> kids) {
    args_.clear();
    for (NodeIndex k : kids) {
      if (k == kNoNode) {
        args_.push_back({false, kNoRegion});
      } else {
        args_.push_back({set_.IsEnd(k), set_.RegionAt(k)});
      }
    }
    return args_;
  }

  // Arguments of a let or if, pre-visited before its operands: those met
  // before are looked up, the others are outside every region yet.
  std::span<const Arg> ArgsOfUnvisited(std::span<const Expr* const> kids) {
    args_.clear();
    for (const Expr* x : kids) {
      if (IsAtom(x)) {
        args_.push_back({false, kNoRegion});
      } else {
        args_.push_back({IsCompilerEnd(x), set_.RegionOfIndex(set_.IndexOf(x))});
      }
    }
    return args_;
  }

  // TVM's AddToArgRegion: node i joins the regions of its non-end
  // arguments, which merge into the first one's.
  absl::Status AddToArgRegion(NodeIndex i, std::span<const Arg> args) {
    RegionId region = kNoRegion;
    for (const Arg& arg : args) {
      if (arg.is_end) continue;
      region = arg.region;
      if (region != kNoRegion) break;
    }
    for (const Arg& arg : args) {
      if (arg.is_end) continue;
      // Earlier merges of this loop may have renamed the argument's region.
      RegionId arg_region = arg.region == kNoRegion ? kNoRegion : set_.Find(arg.region);
      if ((region == kNoRegion) != (arg_region == kNoRegion)) {
        return SpanError(set_.node_[i]->span(),
                         "inconsistent annotations: some inputs of this node are inside an "
                         "annotated region and some are not",
                         absl::StatusCode::kFailedPrecondition);
      }
      if (region != kNoRegion && arg_region != region) set_.MergeRegions(arg_region, region);
    }
    if (region != kNoRegion) {
      RegionId existing = set_.RegionAt(i);
      if (existing != kNoRegion) {
        set_.MergeRegions(existing, region);
      } else {
        set_.AddNode(region, i);
      }
    }
    return absl::OkStatus();
  }

  AnnotatedRegionSet& set_;
  std::vector<const Function*> scopes_;
  std::vector<NodeIndex> open_;  // the nodes entered and not left, in order
  std::vector<const Expr*> kids_scratch_;
  std::vector<Pending> children_;  // of the node opened last, to visit
  absl::Status error_;             // from opening a node
  std::vector<Arg> args_;
};

absl::StatusOr<AnnotatedRegionSet> AnnotatedRegionSet::Create(const Function* fn) {
  AnnotatedRegionSet set;
  set.root_ = fn;
  CARVE_RETURN_IF_ERROR(Builder(set).Run(fn));
  return set;
}

absl::StatusOr<const AnnotatedRegionSet*> AnnotatedRegionSet::Get(AnalysisManager& analyses,
                                                                  const Module& mod,
                                                                  const Function* fn) {
  if (const AnnotatedRegionSet* cached = analyses.GetCached<AnnotatedRegionSet>(mod, fn)) {
    return cached;
  }
  CARVE_ASSIGN_OR_RETURN(AnnotatedRegionSet set, Create(fn));
  return &analyses.Put(mod, fn, std::move(set));
}

AnnotatedRegionSet::RegionId AnnotatedRegionSet::Find(RegionId id) const {
  RegionId root = id;
  while (parent_[root] != root) root = parent_[root];
  while (parent_[id] != root) {  // path compression
    RegionId next = parent_[id];
    parent_[id] = root;
    id = next;
  }
  return root;
}

AnnotatedRegionSet::NodeIndex AnnotatedRegionSet::IndexOf(const Expr* e) const {
  if (e->is_atom()) return kNoNode;
  const NodeIndex* i = index_.Find(e);
  return i == nullptr ? kNoNode : *i;
}

AnnotatedRegionSet::RegionId AnnotatedRegionSet::GetRegion(const Expr* e) const {
  return RegionOfIndex(IndexOf(e));
}

std::vector<AnnotatedRegionSet::RegionId> AnnotatedRegionSet::RegionIds() const {
  std::vector<RegionId> ids;
  for (RegionId id = 0; id < static_cast<RegionId>(regions_.size()); ++id) {
    if (parent_[id] == id) ids.push_back(id);
  }
  return ids;
}

AnnotatedRegionSet::RegionId AnnotatedRegionSet::MakeRegion(uint32_t target,
                                                            const Function* scope) {
  RegionId id = static_cast<RegionId>(regions_.size());
  regions_.push_back(Region{});
  regions_.back().target = target;
  regions_.back().scope = ScopeIndex(scope);
  parent_.push_back(id);
  ++live_regions_;
  return id;
}

uint32_t AnnotatedRegionSet::ScopeIndex(const Function* scope) {
  // Regions are made scope after scope: look at the last one first.
  if (scopes_.back() == scope) return static_cast<uint32_t>(scopes_.size() - 1);
  for (uint32_t s = 0; s < scopes_.size(); ++s) {
    if (scopes_[s] == scope) return s;
  }
  scopes_.push_back(scope);
  return static_cast<uint32_t>(scopes_.size() - 1);
}

uint32_t AnnotatedRegionSet::TargetIndex(std::string_view target) {
  for (uint32_t t = 0; t < targets_.size(); ++t) {
    if (targets_[t] == target) return t;
  }
  targets_.push_back(target);
  return static_cast<uint32_t>(targets_.size() - 1);
}

void AnnotatedRegionSet::AddNode(RegionId id, NodeIndex i) { node_region_[i] = id; }

void AnnotatedRegionSet::Append(List& list, NodeIndex i) {
  int32_t index = static_cast<int32_t>(items_.size());
  items_.push_back(i);
  if (list.tail < 0) {
    next_.push_back(index);
  } else {
    next_.push_back(next_[list.tail]);
    next_[list.tail] = index;
  }
  list.tail = index;
}

void AnnotatedRegionSet::Splice(List& into, const List& from, std::vector<int32_t>& next) {
  if (from.tail < 0) return;
  if (into.tail < 0) {
    into = from;
    return;
  }
  // into's last item leads to from's first, from's last to into's first.
  std::swap(next[into.tail], next[from.tail]);
  into.tail = from.tail;
}

void AnnotatedRegionSet::MergeRegions(RegionId src, RegionId dst) {
  src = Find(src);
  dst = Find(dst);
  if (src == dst) return;
  members_begin_.clear();  // Nodes() groups again
  Region& s = regions_[src];
  Region& d = regions_[dst];
  // Inputs of the merged region reading from `src` became internal: TVM
  // drops them and the outputs of `src` they read. Inputs elsewhere that
  // read from `src` stay consumers of the merged region.
  if (s.num_consumers > d.num_ins) {
    // A producer with many readers merging into a small region (a region
    // grown along a chain that every branch reads): rescanning its
    // consumers at every merge was quadratic, so look from the other side
    // and keep the consumer list, whose dropped entries stay marked removed.
    ForEachItem(d.ins, [&](NodeIndex begin) {
      if (Removed(begin)) return;
      if (RegionOfIndex(AnnotationArg(begin)) == src) RemoveEdge(begin);
    });
    Splice(d.consumers, s.consumers, next_);
    d.num_consumers += s.num_consumers;
  } else {
    List kept;
    size_t num_kept = 0;
    ForEachItem(s.consumers, [&](NodeIndex begin) {
      RegionId owner = Find(node_region_[begin]);
      if (owner == src || owner == dst) {
        RemoveEdge(begin);
      } else {
        Append(kept, begin);
        ++num_kept;
      }
    });
    Splice(d.consumers, kept, next_);
    d.num_consumers += num_kept;
  }
  Splice(d.ins, s.ins, next_);
  Splice(d.outs, s.outs, next_);
  d.num_ins += s.num_ins;
  d.live_outs += s.live_outs;
  parent_[src] = dst;
  --live_regions_;
}

void AnnotatedRegionSet::RemoveEdge(NodeIndex begin) {
  flags_[begin] |= kRemovedFlag;
  NodeIndex end = AnnotationArg(begin);
  if (end == kNoNode || Removed(end)) return;
  flags_[end] |= kRemovedFlag;
  --regions_[Find(node_region_[end])].live_outs;
}

std::vector<const Call*> AnnotatedRegionSet::Ins(RegionId id) const {
  std::vector<const Call*> out;
  ForEachIn(id, [&](const Call* begin) { out.push_back(begin); });
  return out;
}

std::vector<const Call*> AnnotatedRegionSet::Outs(RegionId id) const {
  std::vector<const Call*> out;
  ForEachItem(regions_[Find(id)].outs, [&](NodeIndex i) {
    if (!Removed(i)) out.push_back(Cast<Call>(node_[i]));
  });
  return out;
}

bool AnnotatedRegionSet::HasOuts(RegionId id) const { return regions_[Find(id)].live_outs > 0; }

std::vector<const Expr*> AnnotatedRegionSet::Nodes(RegionId id) const {
  if (members_begin_.empty()) GroupNodes();
  RegionId r = Find(id);
  std::vector<const Expr*> out;
  for (uint32_t k = members_begin_[r]; k < members_begin_[r + 1]; ++k) {
    out.push_back(node_[members_[k]]);
  }
  return out;
}

// A counting sort of the nodes by region: a list per region kept up to date
// through the merges cost 8 bytes and an append per node, for the few
// callers that ask.
void AnnotatedRegionSet::GroupNodes() const {
  members_begin_.assign(regions_.size() + 1, 0);
  for (NodeIndex i = 0; i < node_.size(); ++i) {
    RegionId r = RegionAt(i);
    if (r != kNoRegion) ++members_begin_[r + 1];
  }
  for (size_t r = 0; r < regions_.size(); ++r) members_begin_[r + 1] += members_begin_[r];
  members_.resize(members_begin_.back());
  std::vector<uint32_t> next(members_begin_.begin(), members_begin_.end() - 1);
  for (NodeIndex i = 0; i < node_.size(); ++i) {
    RegionId r = RegionAt(i);
    if (r != kNoRegion) members_[next[r]++] = i;
  }
}

}  // namespace carve
