#include "passes/annotated_region_set.h"

#include <algorithm>
#include <cassert>
#include <span>
#include <utility>

#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/annotation.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {

// Visits the expression in TVM's order (MixedModeVisitor): calls, tuples and
// projections after their operands; let and if nodes before theirs. One
// depth-first walk that numbers each node when it first meets it.
class AnnotatedRegionSet::Creator {
 public:
  Creator(AnnotatedRegionSet& set, bool keep_children) : set_(set), keep_children_(keep_children) {}

  absl::Status Run(const Expr* root) {
    set_.index_.TryEmplace(root, 0);
    CARVE_RETURN_IF_ERROR(Open(root));
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      if (top.next < slots_.size()) {
        uint32_t s = top.next++;
        NodeIndex& kid = slot_ids_[s];
        const Expr* c = slots_[s];
        // Atoms (ops, variables, constants) neither join nor open regions:
        // they are not visited at all.
        if (c->is_atom()) continue;
        // The index map is the visited set: one look-up per edge, and no
        // write to the nodes.
        auto [index, inserted] =
            set_.index_.TryEmplace(c, static_cast<NodeIndex>(set_.node_.size()));
        kid = *index;
        if (!inserted) continue;  // met before (the graph is acyclic)
        CARVE_RETURN_IF_ERROR(Open(c));
        continue;
      }
      NodeIndex i = top.node;
      uint32_t target = top.target;
      uint32_t slots_begin = top.slots_begin;
      std::span<const NodeIndex> kids(slot_ids_.data() + slots_begin,
                                      slot_ids_.size() - slots_begin);
      if (keep_children_) std::copy(kids.begin(), kids.end(), &set_.kids_[set_.kid_begin_[i]]);
      stack_.pop_back();
      CARVE_RETURN_IF_ERROR(PostVisit(i, kids, target));
      slots_.resize(slots_begin);
      slot_ids_.resize(slots_begin);
    }
    if (keep_children_) set_.kid_begin_.push_back(static_cast<uint32_t>(set_.kids_.size()));
    return absl::OkStatus();
  }

 private:
  struct Frame {
    NodeIndex node;
    uint32_t slots_begin;
    uint32_t next;    // next slot to visit (absolute index)
    uint32_t target;  // of an annotation: index into targets_
  };

  // Numbers `e` (already in the index map), records its children's slots
  // and what its post-visit needs to know of it (it runs after the whole
  // subtree, when `e` has left the caches), and pre-visits it.
  absl::Status Open(const Expr* e) {
    NodeIndex i = static_cast<NodeIndex>(set_.node_.size());
    // Bottom-up builders (the parser, mutators) allocate a node's operands
    // just before it, so the nodes the walk opens next mostly lie just below
    // this one: start loading them (a chain of pointers otherwise waits for
    // one cache miss after the other).
    for (int line = 1; line <= 8; ++line) {
      __builtin_prefetch(reinterpret_cast<const char*>(e) - 64 * line);
    }
    set_.node_.push_back(e);
    set_.kind_.push_back(e->kind());
    set_.flags_.push_back(AnnotationFlags(e));
    set_.node_region_.push_back(kNoRegion);
    uint32_t begin = static_cast<uint32_t>(slots_.size());
    // The walk reads every child's kind next: start all their loads now.
    ForEachChild(e, [&](const Expr* c) {
      __builtin_prefetch(c);
      slots_.push_back(c);
    });
    slot_ids_.resize(slots_.size(), kNoNode);
    if (keep_children_) {
      set_.kid_begin_.push_back(static_cast<uint32_t>(set_.kids_.size()));
      set_.kids_.resize(set_.kids_.size() + (slots_.size() - begin));
    } else {
      set_.annotation_arg_.push_back(kNoNode);
    }
    uint32_t target = set_.flags_[i] != 0 ? TargetOf(Cast<Call>(e)) : 0;
    stack_.push_back({i, begin, begin, target});
    return PreVisit(i);
  }

  // The target of an annotation call, as an index into targets_. Calls
  // made by one builder share their attributes: one look at the attributes
  // per distinct object.
  uint32_t TargetOf(const Call* call) {
    if (!has_last_ || call->attrs() != last_attrs_) {
      last_attrs_ = call->attrs();
      last_target_ = set_.TargetIndex(AnnotationTarget(call));
      has_last_ = true;
    }
    return last_target_;
  }

  // kBeginFlag or kEndFlag for an annotation call, else 0.
  uint8_t AnnotationFlags(const Expr* e) const {
    if (e->kind() != ExprKind::kCall) return 0;
    const OpInfo* op = Cast<Call>(e)->op();
    if (op == nullptr) return 0;
    if (op == begin_op_) return kBeginFlag;
    return op == end_op_ ? kEndFlag : 0;
  }

  absl::Status PreVisit(NodeIndex i) {
    const Expr* e = set_.node_[i];
    switch (e->kind()) {
      case ExprKind::kLet: {
        auto* let = Cast<Let>(e);
        const Expr* args[] = {let->var(), let->value(), let->body()};
        return AddToArgRegion(i, ArgsOf(args));
      }
      case ExprKind::kIf: {
        auto* c = Cast<If>(e);
        const Expr* args[] = {c->cond(), c->then_branch(), c->else_branch()};
        return AddToArgRegion(i, ArgsOf(args));
      }
      case ExprKind::kFunction: {
        auto* fn = Cast<Function>(e);
        if (fn->HasAttr(attr::kComposite)) set_.flags_[i] |= kCompositeFlag;
        scopes_.push_back(fn);
        return absl::OkStatus();
      }
      default:
        return absl::OkStatus();
    }
  }

  absl::Status PostVisit(NodeIndex i, std::span<const NodeIndex> kids, uint32_t target) {
    switch (set_.kind_[i]) {
      case ExprKind::kCall:
        return VisitCall(i, kids.subspan(1), target);
      case ExprKind::kTuple:
      case ExprKind::kTupleGetItem:
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

  // A call (node i) whose target was read when it was opened, if an
  // annotation.
  absl::Status VisitCall(NodeIndex i, std::span<const NodeIndex> args, uint32_t target) {
    uint8_t annotation = set_.flags_[i] & (kBeginFlag | kEndFlag);
    if (annotation == 0) return AddToArgRegion(i, ArgsOf(args));
    const Call* call = Cast<Call>(set_.node_[i]);
    if (args.size() != 1) {
      return SpanError(call->span(), "an annotation must have exactly one argument",
                       absl::StatusCode::kFailedPrecondition);
    }
    NodeIndex arg = args[0];
    if (!keep_children_) set_.annotation_arg_[i] = arg;
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
  std::span<const Arg> ArgsOf(std::span<const Expr* const> exprs) {
    args_.clear();
    for (const Expr* x : exprs) args_.push_back({IsCompilerEnd(x), set_.GetRegion(x)});
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
  // The annotation ops, compared with every call's op.
  const OpInfo* begin_op_ = FindOp("annotation.compiler_begin");
  const OpInfo* end_op_ = FindOp("annotation.compiler_end");
  std::vector<const Function*> scopes_;
  const Attrs* last_attrs_ = nullptr;
  uint32_t last_target_ = 0;
  bool has_last_ = false;
  std::vector<Frame> stack_;
  bool keep_children_;
  // The children of the frames on the stack, and their indices once known.
  std::vector<const Expr*> slots_;
  std::vector<NodeIndex> slot_ids_;
  std::vector<Arg> args_;
};

absl::StatusOr<AnnotatedRegionSet> AnnotatedRegionSet::Create(const Expr* root,
                                                              std::string func_name, Use use) {
  AnnotatedRegionSet set;
  set.func_name_ = std::move(func_name);
  bool keep_children = use == Use::kGraphWalks;
  set.keep_children_ = keep_children;
  set.keep_node_lists_ = !keep_children;
  set.root_ = root;
  absl::Status status;
  {
    Creator creator(set, keep_children);
    status = creator.Run(root);
  }
  CARVE_RETURN_IF_ERROR(status);
  return set;
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
  regions_.back().scope = scope;
  parent_.push_back(id);
  ++live_regions_;
  return id;
}

uint32_t AnnotatedRegionSet::TargetIndex(std::string_view target) {
  for (uint32_t t = 0; t < targets_.size(); ++t) {
    if (targets_[t] == target) return t;
  }
  targets_.push_back(target);
  return static_cast<uint32_t>(targets_.size() - 1);
}

void AnnotatedRegionSet::AddNode(RegionId id, NodeIndex i) {
  node_region_[i] = id;
  if (keep_node_lists_) Append(regions_[id].nodes, i);
  ++regions_[id].num_nodes;
}

void AnnotatedRegionSet::Append(List& list, NodeIndex i) {
  int32_t index = static_cast<int32_t>(items_.size());
  items_.push_back(i);
  next_.push_back(-1);
  if (list.tail < 0) {
    list.head = index;
  } else {
    next_[list.tail] = index;
  }
  list.tail = index;
}

void AnnotatedRegionSet::Splice(List& into, const List& from, std::vector<int32_t>& next) {
  if (from.head < 0) return;
  if (into.tail < 0) {
    into = from;
    return;
  }
  next[into.tail] = from.head;
  into.tail = from.tail;
}

void AnnotatedRegionSet::MergeRegions(RegionId src, RegionId dst) {
  src = Find(src);
  dst = Find(dst);
  if (src == dst) return;
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
  Splice(d.nodes, s.nodes, next_);
  Splice(d.ins, s.ins, next_);
  Splice(d.outs, s.outs, next_);
  d.num_ins += s.num_ins;
  d.live_outs += s.live_outs;
  d.num_nodes += s.num_nodes;
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
  assert(keep_node_lists_);
  std::vector<const Expr*> out;
  ForEachItem(regions_[Find(id)].nodes, [&](NodeIndex i) { out.push_back(node_[i]); });
  return out;
}

}  // namespace carve
