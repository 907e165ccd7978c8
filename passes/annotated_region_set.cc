#include "passes/annotated_region_set.h"

#include <span>
#include <utility>

#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/annotation.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {

// Visits the expression in TVM's order (MixedModeVisitor): calls, tuples and
// projections after their operands; let and if nodes before theirs.
class AnnotatedRegionSet::Creator {
 public:
  explicit Creator(AnnotatedRegionSet& set) : set_(set) {}

  absl::Status Run(const Expr* root) {
    struct Frame {
      const Expr* e;
      bool expanded;
    };
    std::vector<Frame> stack = {{root, false}};
    std::vector<const Expr*> kids;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (!top.expanded) {
        if (Visited(top.e)) {
          stack.pop_back();
          continue;
        }
        top.expanded = true;
        const Expr* e = top.e;
        CARVE_RETURN_IF_ERROR(PreVisit(e));
        kids.clear();
        ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
        // Atoms (ops, variables, constants) neither join nor open regions:
        // they are not visited at all.
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
          if (!(*it)->is_atom() && !Visited(*it)) stack.push_back({*it, false});
        }
        continue;
      }
      const Expr* e = top.e;
      stack.pop_back();
      uint8_t& visited = set_.nodes_[e].visited;
      if (visited) continue;
      visited = 1;
      CARVE_RETURN_IF_ERROR(PostVisit(e));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status PreVisit(const Expr* e) {
    switch (e->kind()) {
      case ExprKind::kLet: {
        auto* let = Cast<Let>(e);
        const Expr* args[] = {let->var(), let->value(), let->body()};
        return AddToArgRegion(e, args);
      }
      case ExprKind::kIf: {
        auto* i = Cast<If>(e);
        const Expr* args[] = {i->cond(), i->then_branch(), i->else_branch()};
        return AddToArgRegion(e, args);
      }
      case ExprKind::kFunction:
        scopes_.push_back(Cast<Function>(e));
        return absl::OkStatus();
      default:
        return absl::OkStatus();
    }
  }

  absl::Status PostVisit(const Expr* e) {
    switch (e->kind()) {
      case ExprKind::kCall:
        return VisitCall(Cast<Call>(e));
      case ExprKind::kTuple:
        return AddToArgRegion(e, Cast<Tuple>(e)->fields());
      case ExprKind::kTupleGetItem: {
        const Expr* tuple = Cast<TupleGetItem>(e)->tuple();
        return AddToArgRegion(e, std::span<const Expr* const>(&tuple, 1));
      }
      case ExprKind::kLet:
        set_.lets_.Record(Cast<Let>(e));
        return absl::OkStatus();
      case ExprKind::kFunction:
        scopes_.pop_back();
        return absl::OkStatus();
      default:
        return absl::OkStatus();
    }
  }

  absl::Status VisitCall(const Call* call) {
    if (!IsCompilerAnnotation(call)) {
      return AddToArgRegion(call, call->args());
    }
    if (call->args().size() != 1) {
      return SpanError(call->span(), "an annotation must have exactly one argument",
                       absl::StatusCode::kFailedPrecondition);
    }
    std::string_view target = AnnotationTarget(call);
    if (target == kDefaultTarget || (IsCompilerEnd(call) && Isa<Tuple>(call->args()[0]))) {
      set_.needs_partition_prep_ = true;
    }
    if (IsCompilerBegin(call)) {
      RegionId id = set_.MakeRegion(target, scopes_.empty() ? nullptr : scopes_.back());
      set_.AddNode(id, call);
      set_.Append(set_.regions_[id].ins, call);
      ++set_.regions_[id].num_ins;
      RegionId producer = set_.GetRegion(call->args()[0]);
      if (producer != kNoRegion) {
        set_.Append(set_.regions_[producer].consumers, call);
        ++set_.regions_[producer].num_consumers;
      }
      return absl::OkStatus();
    }
    RegionId id = set_.GetRegion(call->args()[0]);
    if (id == kNoRegion) {
      return SpanError(call->span(),
                       fmt::format("compiler_end for '{}' closes no region: its input is not "
                                   "inside a compiler_begin",
                                   target),
                       absl::StatusCode::kFailedPrecondition);
    }
    if (set_.Target(id) != target) {
      return SpanError(call->span(),
                       fmt::format("compiler_end for '{}' closes a region of target '{}'", target,
                                   set_.Target(id)),
                       absl::StatusCode::kFailedPrecondition);
    }
    set_.AddNode(id, call);
    set_.Append(set_.regions_[id].outs, call);
    return absl::OkStatus();
  }

  // TVM's AddToArgRegion: `e` joins the regions of its non-end arguments,
  // which merge into the first one's.
  absl::Status AddToArgRegion(const Expr* e, std::span<const Expr* const> args) {
    RegionId region = kNoRegion;
    for (const Expr* arg : args) {
      if (IsCompilerEnd(arg)) continue;
      region = set_.GetRegion(arg);
      if (region != kNoRegion) break;
    }
    for (const Expr* arg : args) {
      if (IsCompilerEnd(arg)) continue;
      RegionId arg_region = set_.GetRegion(arg);
      if ((region == kNoRegion) != (arg_region == kNoRegion)) {
        return SpanError(e->span(),
                         "inconsistent annotations: some inputs of this node are inside an "
                         "annotated region and some are not",
                         absl::StatusCode::kFailedPrecondition);
      }
      if (region != kNoRegion && arg_region != region) set_.MergeRegions(arg_region, region);
    }
    if (region != kNoRegion) {
      RegionId existing = set_.GetRegion(e);
      if (existing != kNoRegion) {
        set_.MergeRegions(existing, region);
      } else {
        set_.AddNode(region, e);
      }
    }
    return absl::OkStatus();
  }

  bool Visited(const Expr* e) const {
    const NodeEntry* entry = set_.nodes_.Find(e);
    return entry != nullptr && entry->visited;
  }

  AnnotatedRegionSet& set_;
  std::vector<const Function*> scopes_;
};

absl::StatusOr<AnnotatedRegionSet> AnnotatedRegionSet::Create(const Expr* root,
                                                               std::string func_name) {
  AnnotatedRegionSet set;
  set.func_name_ = std::move(func_name);
  set.root_ = root;
  Creator creator(set);
  CARVE_RETURN_IF_ERROR(creator.Run(root));
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

AnnotatedRegionSet::RegionId AnnotatedRegionSet::GetRegion(const Expr* e) const {
  const NodeEntry* entry = nodes_.Find(e);
  return entry == nullptr || entry->region == kNoRegion ? kNoRegion : Find(entry->region);
}

std::vector<AnnotatedRegionSet::RegionId> AnnotatedRegionSet::RegionIds() const {
  std::vector<RegionId> ids;
  for (RegionId id = 0; id < static_cast<RegionId>(regions_.size()); ++id) {
    if (parent_[id] == id) ids.push_back(id);
  }
  return ids;
}

AnnotatedRegionSet::RegionId AnnotatedRegionSet::MakeRegion(std::string_view target,
                                                            const Function* scope) {
  RegionId id = static_cast<RegionId>(regions_.size());
  regions_.push_back(Region{});
  regions_.back().target = target;
  regions_.back().scope = scope;
  parent_.push_back(id);
  ++live_regions_;
  return id;
}

void AnnotatedRegionSet::AddNode(RegionId id, const Expr* e) {
  nodes_[e].region = id;
  Append(regions_[id].nodes, e);
  ++regions_[id].num_nodes;
}

void AnnotatedRegionSet::Append(List& list, const Expr* e) {
  int32_t index = static_cast<int32_t>(items_.size());
  items_.push_back(e);
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
    ForEachItem(d.ins, [&](const Expr* begin) {
      if (nodes_.Find(begin)->removed) return;
      const Expr* arg = Cast<Call>(begin)->args()[0];
      const NodeEntry* producer = nodes_.Find(arg);
      if (producer == nullptr || producer->region == kNoRegion) return;
      if (Find(producer->region) != src) return;
      nodes_[begin].removed = 1;
      nodes_[arg].removed = 1;
    });
    Splice(d.consumers, s.consumers, next_);
    d.num_consumers += s.num_consumers;
  } else {
    List kept;
    size_t num_kept = 0;
    ForEachItem(s.consumers, [&](const Expr* begin) {
      RegionId owner = Find(nodes_.Find(begin)->region);
      if (owner == src || owner == dst) {
        nodes_[begin].removed = 1;
        nodes_[Cast<Call>(begin)->args()[0]].removed = 1;
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
  d.num_nodes += s.num_nodes;
  parent_[src] = dst;
  --live_regions_;
}

std::vector<const Call*> AnnotatedRegionSet::Ins(RegionId id) const {
  std::vector<const Call*> out;
  ForEachItem(regions_[Find(id)].ins, [&](const Expr* e) {
    if (!nodes_.Find(e)->removed) out.push_back(Cast<Call>(e));
  });
  return out;
}

std::vector<const Call*> AnnotatedRegionSet::Outs(RegionId id) const {
  std::vector<const Call*> out;
  ForEachItem(regions_[Find(id)].outs, [&](const Expr* e) {
    if (!nodes_.Find(e)->removed) out.push_back(Cast<Call>(e));
  });
  return out;
}

std::vector<const Expr*> AnnotatedRegionSet::Nodes(RegionId id) const {
  std::vector<const Expr*> out;
  ForEachItem(regions_[Find(id)].nodes, [&](const Expr* e) { out.push_back(e); });
  return out;
}

}  // namespace carve
