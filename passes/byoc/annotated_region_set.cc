#include "passes/byoc/annotated_region_set.h"

#include <algorithm>
#include <cassert>
#include <span>
#include <utility>

#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {

// The graph a Creator walks, given as the nodes themselves: a node is its
// address, and the set's address map is the walk's visited set.
class AnnotatedRegionSet::NodeSource {
 public:
  using Handle = const Expr*;
  explicit NodeSource(AnnotatedRegionSet& set) : set_(set) {}

  // Atoms, and function literals with a region-free body (see
  // HasRegionFreeBody): neither is numbered nor visited.
  static bool IsAtom(Handle h) {
    if (h->is_atom()) return true;
    return h->kind() == ExprKind::kFunction && HasRegionFreeBody(Cast<Function>(h));
  }
  static const Expr* Node(Handle h) { return h; }
  static ExprKind Kind(Handle h) { return h->kind(); }
  // The index of `h`, numbered `next` when met for the first time.
  std::pair<NodeIndex, bool> Number(Handle h, NodeIndex next) {
    auto [index, inserted] = set_.index_.TryEmplace(h, next);
    return {*index, inserted};
  }
  // The index of `h` if met before, else kNoNode.
  NodeIndex Lookup(Handle h) const { return set_.IndexOf(h); }
  template <typename F>
  void ForEachChild(Handle h, F&& f) const {
    // Bottom-up builders (the parser, mutators) allocate a node's operands
    // just before it, so the nodes the walk opens next mostly lie just below
    // this one: start loading them (a chain of pointers otherwise waits for
    // one cache miss after the other).
    for (int line = 1; line <= 8; ++line) {
      __builtin_prefetch(reinterpret_cast<const char*>(h) - 64 * line);
    }
    // The walk reads every child's kind next: start all their loads now.
    carve::ForEachChild(h, [&](const Expr* c) {
      __builtin_prefetch(c);
      f(c);
    });
  }
  // kBeginFlag or kEndFlag for an annotation call, else 0.
  uint8_t AnnotationFlags(Handle h) const {
    if (h->kind() != ExprKind::kCall) return 0;
    const Expr* callee = Cast<Call>(h)->callee();
    if (callee == CompilerBeginOp()) return kBeginFlag;
    return callee == CompilerEndOp() ? kEndFlag : 0;
  }
  static bool IsEnd(Handle h) { return IsCompilerEnd(h); }
  static bool IsComposite(Handle h) { return Cast<Function>(h)->HasAttr(attr::kComposite); }
  // The target of annotation `h`, as an index into the set's targets_.
  // Calls made by one builder share their attributes: one look at the
  // attributes per distinct object.
  uint32_t TargetOf(Handle h) {
    const Call* call = Cast<Call>(h);
    if (!has_last_ || call->attrs() != last_attrs_) {
      last_attrs_ = call->attrs();
      last_target_ = set_.TargetIndex(AnnotationTarget(call));
      has_last_ = true;
    }
    return last_target_;
  }
  // Called once the walk is over.
  void Finish() {}

 private:
  AnnotatedRegionSet& set_;
  const Attrs* last_attrs_ = nullptr;
  uint32_t last_target_ = 0;
  bool has_last_ = false;
};

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

// The graph a rewrite over a kGraphWalks set's numbering produced (see
// Rewrite in the header), read from that set's arrays: the walk reads no
// node but lets (the nodes it makes were just written by the rewrite, or read by the
// source's walk, and PartitionGraph reads them next anyway). A node of the result is the
// index of the source node it comes from, with kNewBit when it is that
// node's rebuilt version (a node kept as it is and its rebuilt version can
// both be in the result, below a composite function and outside it).
class AnnotatedRegionSet::RewriteSource {
 public:
  using Handle = uint32_t;
  static constexpr Handle kNewBit = Rewrite::kNewBit;
  static constexpr Handle kAtom = Rewrite::kAtom;

  RewriteSource(AnnotatedRegionSet& set, const AnnotatedRegionSet& source, const Rewrite& rewrite)
      : set_(set), source_(source), rewrite_(rewrite), number_(2 * source.num_nodes(), kNoNode) {}

  static bool IsAtom(Handle h) { return h == kAtom; }
  const Expr* Node(Handle h) const {
    NodeIndex i = h & ~kNewBit;
    return (h & kNewBit) ? rewrite_.out[i] : source_.node(i);
  }
  ExprKind Kind(Handle h) const { return source_.kind(h & ~kNewBit); }
  std::pair<NodeIndex, bool> Number(Handle h, NodeIndex next) {
    NodeIndex& n = number_[Slot(h)];
    if (n != kNoNode) return {n, false};
    n = next;
    return {n, true};
  }
  NodeIndex Lookup(Handle h) const { return h == kAtom ? kNoNode : number_[Slot(h)]; }
  template <typename F>
  void ForEachChild(Handle h, F&& f) const {
    NodeIndex i = h & ~kNewBit;
    bool rebuilt = h & kNewBit;
    for (NodeIndex k : source_.children(i)) {
      if (k == kNoNode) {
        f(kAtom);
      } else if (!rebuilt || rewrite_.out[k] == nullptr) {
        f(k);  // the child as it was
      } else {
        f(rewrite_.handle[k]);
      }
    }
  }
  uint8_t AnnotationFlags(Handle h) const {
    NodeIndex i = h & ~kNewBit;
    return source_.IsBegin(i) ? kBeginFlag : source_.IsEnd(i) ? kEndFlag : 0;
  }
  bool IsEnd(Handle h) const { return h != kAtom && source_.IsEnd(h & ~kNewBit); }
  bool IsComposite(Handle h) const { return source_.IsComposite(h & ~kNewBit); }
  // The target of annotation `h`: the source knows it without reading the
  // node (the region the annotation was first placed in has its target).
  uint32_t TargetOf(Handle h) {
    NodeIndex i = h & ~kNewBit;
    uint32_t t = source_.flags_[i] >> kTargetShift;
    t = t != 0 ? t - 1 : source_.regions_[source_.node_region_[i]].target;
    if (t >= target_index_.size()) target_index_.resize(t + 1, kNoTarget);
    if (target_index_[t] == kNoTarget) target_index_[t] = set_.TargetIndex(source_.targets_[t]);
    return target_index_[t];
  }
  // The address map is filled when first asked (see IndexOf).
  void Finish() { set_.index_pending_ = true; }

 private:
  size_t Slot(Handle h) const { return (h & ~kNewBit) + ((h & kNewBit) ? source_.num_nodes() : 0); }

  AnnotatedRegionSet& set_;
  const AnnotatedRegionSet& source_;
  const Rewrite& rewrite_;
  // By source index (then rebuilt versions after them): the number given.
  std::vector<NodeIndex> number_;
  // By source target index: the set's.
  static constexpr uint32_t kNoTarget = ~0u;
  std::vector<uint32_t> target_index_;
};

// Visits the expression in TVM's order (MixedModeVisitor): calls, tuples and
// projections after their operands; let and if nodes before theirs. One
// depth-first walk that numbers each node when it first meets it.
template <typename Source>
class AnnotatedRegionSet::Creator {
 public:
  using Handle = typename Source::Handle;
  Creator(AnnotatedRegionSet& set, Source& source, bool keep_children)
      : set_(set), source_(source), keep_children_(keep_children) {}

  absl::Status Run(Handle root) {
    source_.Number(root, 0);
    CARVE_RETURN_IF_ERROR(Open(root));
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      if (pending_.size() > top.pending_begin) {
        Pending next = pending_.back();
        pending_.pop_back();
        // The numbering is the visited set: one look-up per edge.
        auto [index, inserted] =
            source_.Number(next.handle, static_cast<NodeIndex>(set_.node_.size()));
        KidIds()[next.slot] = index;
        if (!inserted) continue;  // met before (the graph is acyclic)
        CARVE_RETURN_IF_ERROR(Open(next.handle));
        continue;
      }
      NodeIndex i = top.node;
      uint32_t target = top.target;
      uint32_t ids_begin = top.ids_begin;
      stack_.pop_back();
      std::span<const NodeIndex> kids = KidsOf(i, ids_begin);
      CARVE_RETURN_IF_ERROR(PostVisit(i, kids, target));
      if (!keep_children_) ids_.resize(ids_begin);
    }
    if (keep_children_) set_.kid_begin_.push_back(static_cast<uint32_t>(set_.kids_.size()));
    source_.Finish();
    return absl::OkStatus();
  }

 private:
  // A node being visited. Its children's indices go to the set's kids_ (when
  // kept) or to ids_ from ids_begin; its children still to visit are
  // pending_ from pending_begin. The stack is as deep as the graph's longest
  // path (a chain of 100k ops is 300k nodes deep once annotated), so a level
  // costs this frame only, not a copy of every child.
  struct Frame {
    NodeIndex node;
    uint32_t target;  // of an annotation: index into targets_
    uint32_t ids_begin;
    uint32_t pending_begin;
  };
  // A child to visit and where its index goes (in KidIds()).
  struct Pending {
    Handle handle;
    uint32_t slot;
  };
  NodeIndex* KidIds() { return keep_children_ ? set_.kids_.data() : ids_.data(); }
  // The indices of node i's children, once all are visited.
  std::span<const NodeIndex> KidsOf(NodeIndex i, uint32_t ids_begin) const {
    if (!keep_children_) return {ids_.data() + ids_begin, ids_.size() - ids_begin};
    // (The last node opened has no successor in kid_begin_ yet.)
    uint32_t begin = set_.kid_begin_[i];
    uint32_t end = i + 1 < set_.kid_begin_.size() ? set_.kid_begin_[i + 1]
                                                  : static_cast<uint32_t>(set_.kids_.size());
    return {set_.kids_.data() + begin, end - begin};
  }

  // Numbers `h` (already numbered by the source), records where its
  // children's indices go, the children to visit (atoms are not: they
  // neither join nor open regions) and what its post-visit needs to know of
  // it (it runs after the whole subtree, when the node has left the caches),
  // and pre-visits it.
  absl::Status Open(Handle h) {
    NodeIndex i = static_cast<NodeIndex>(set_.node_.size());
    const Expr* e = source_.Node(h);
    set_.node_.push_back(e);
    set_.kind_.push_back(source_.Kind(h));
    set_.flags_.push_back(source_.AnnotationFlags(h));
    set_.node_region_.push_back(kNoRegion);
    handles_.clear();
    source_.ForEachChild(h, [&](Handle c) { handles_.push_back(c); });
    uint32_t base;
    if (keep_children_) {
      base = static_cast<uint32_t>(set_.kids_.size());
      set_.kid_begin_.push_back(base);
      set_.kids_.resize(base + handles_.size(), kNoNode);
    } else {
      set_.annotation_arg_.push_back(kNoNode);
      base = static_cast<uint32_t>(ids_.size());
      ids_.resize(base + handles_.size(), kNoNode);
    }
    auto pending_begin = static_cast<uint32_t>(pending_.size());
    for (size_t k = handles_.size(); k-- > 0;) {  // the first child on top
      if (!source_.IsAtom(handles_[k])) {
        pending_.push_back({handles_[k], base + static_cast<uint32_t>(k)});
      }
    }
    uint32_t target = set_.flags_[i] != 0 ? source_.TargetOf(h) : 0;
    stack_.push_back({i, target, keep_children_ ? 0 : base, pending_begin});
    return PreVisit(i, h, handles_);
  }

  // `kids`: the node's children, in ForEachChild's order (for a let: var,
  // value, body; for an if: condition, then, else).
  absl::Status PreVisit(NodeIndex i, Handle h, std::span<const Handle> kids) {
    switch (set_.kind_[i]) {
      case ExprKind::kLet:
      case ExprKind::kIf:
        return AddToArgRegion(i, ArgsOfUnvisited(kids));
      case ExprKind::kFunction: {
        if (source_.IsComposite(h)) set_.flags_[i] |= kCompositeFlag;
        scopes_.push_back(Cast<Function>(set_.node_[i]));
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
    if (target < kMaxFlagTarget) set_.flags_[i] |= (target + 1) << kTargetShift;
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
  std::span<const Arg> ArgsOfUnvisited(std::span<const Handle> kids) {
    args_.clear();
    for (Handle x : kids) {
      if (source_.IsAtom(x)) {
        args_.push_back({false, kNoRegion});
      } else {
        args_.push_back({source_.IsEnd(x), set_.RegionOfIndex(source_.Lookup(x))});
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
  Source& source_;
  std::vector<const Function*> scopes_;
  std::vector<Frame> stack_;
  bool keep_children_;
  std::vector<Pending> pending_;
  // Without kept children: the indices of the children of the frames on the
  // stack, as they become known.
  std::vector<NodeIndex> ids_;
  std::vector<Handle> handles_;  // the children of the node being opened
  std::vector<Arg> args_;
};

absl::StatusOr<AnnotatedRegionSet> AnnotatedRegionSet::Create(const Expr* root,
                                                              std::string func_name, Use use,
                                                              const RegionSetSizeHint* size_hint) {
  AnnotatedRegionSet set;
  set.func_name_ = std::move(func_name);
  bool keep_children = use == Use::kGraphWalks;
  set.keep_children_ = keep_children;
  set.root_ = root;
  if (size_hint != nullptr) set.Reserve(*size_hint);
  absl::Status status;
  {
    NodeSource source(set);
    Creator<NodeSource> creator(set, source, keep_children);
    status = creator.Run(root);
  }
  CARVE_RETURN_IF_ERROR(status);
  return set;
}

absl::StatusOr<AnnotatedRegionSet> AnnotatedRegionSet::CreateForRewrite(AnnotatedRegionSet source,
                                                                        const Rewrite& rewrite) {
  assert(source.keep_children_);
  size_t num_region_ids = source.NumRegionIds();
  source.ReleaseForRewrite();
  AnnotatedRegionSet set;
  set.func_name_ = source.func_name_;
  set.keep_children_ = false;
  NodeIndex root = 0;
  RewriteSource::Handle root_handle = rewrite.out[root] == nullptr ? root : rewrite.handle[root];
  absl::Status status;
  {
    RewriteSource view(set, source, rewrite);
    set.root_ = view.Node(root_handle);
    // At most as many nodes as the source (less the dropped annotations).
    set.node_.reserve(source.num_nodes());
    set.kind_.reserve(source.num_nodes());
    set.flags_.reserve(source.num_nodes());
    set.node_region_.reserve(source.num_nodes());
    set.annotation_arg_.reserve(source.num_nodes());
    // Regions: at most the source's; list items: at most an input, an
    // output and a consumer entry per region.
    set.regions_.reserve(num_region_ids);
    set.parent_.reserve(num_region_ids);
    set.items_.reserve(3 * num_region_ids);
    set.next_.reserve(3 * num_region_ids);
    Creator<RewriteSource> creator(set, view, /*keep_children=*/false);
    status = creator.Run(root_handle);
  }
  CARVE_RETURN_IF_ERROR(status);
  return set;
}

void AnnotatedRegionSet::Reserve(const RegionSetSizeHint& size_hint) {
  node_.reserve(size_hint.nodes);
  kind_.reserve(size_hint.nodes);
  flags_.reserve(size_hint.nodes);
  node_region_.reserve(size_hint.nodes);
  if (keep_children_) {
    kid_begin_.reserve(size_hint.nodes + 1);
    kids_.reserve(size_hint.children);
  } else {
    annotation_arg_.reserve(size_hint.nodes);
  }
  // A region per begin; list items: its input and consumer entries, and an
  // output entry per end.
  regions_.reserve(size_hint.begins);
  parent_.reserve(size_hint.begins);
  items_.reserve(2 * size_hint.begins + size_hint.ends);
  next_.reserve(2 * size_hint.begins + size_hint.ends);
  index_.Reserve(size_hint.nodes);
}

// Frees what RewriteSource does not read (the regions' lists, the
// union-find, the address map: a third of the set), so that the set derived
// next reuses that memory instead of touching new pages. The regions
// themselves go too when every annotation's flags hold its target.
void AnnotatedRegionSet::ReleaseForRewrite() {
  std::vector<NodeIndex>().swap(items_);
  std::vector<int32_t>().swap(next_);
  std::vector<RegionId>().swap(parent_);
  std::vector<uint32_t>().swap(members_begin_);
  std::vector<NodeIndex>().swap(members_);
  index_ = AddressMap<NodeIndex>();
  if (targets_.size() <= kMaxFlagTarget) std::vector<Region>().swap(regions_);
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
  if (index_pending_) FillIndex();
  const NodeIndex* i = index_.Find(e);
  return i == nullptr ? kNoNode : *i;
}

void AnnotatedRegionSet::FillIndex() const {
  index_pending_ = false;
  index_.Reserve(node_.size());
  for (NodeIndex i = 0; i < node_.size(); ++i) index_.TryEmplace(node_[i], i);
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

void RegionSetSizeHintHandoff::Keep(const Arena* arena, const Function* fn,
                                    RegionSetSizeHint size_hint) {
  if (arena_ != arena) {
    hints_.clear();
    arena_ = arena;
  }
  if (hints_.size() >= kMaxKept && !hints_.contains(fn)) return;
  hints_[fn] = size_hint;
}

std::optional<RegionSetSizeHint> RegionSetSizeHintHandoff::Take(const Arena* arena,
                                                                const Function* fn) {
  if (arena_ != arena) return std::nullopt;
  auto it = hints_.find(fn);
  if (it == hints_.end()) return std::nullopt;
  RegionSetSizeHint size_hint = it->second;
  hints_.erase(it);
  return size_hint;
}

void RegionSetHandoff::Keep(std::shared_ptr<Arena> arena, AnnotatedRegionSet set) {
  if (arena_ != arena) {
    sets_.clear();
    arena_ = std::move(arena);
  }
  // One set per root (an earlier one of the same root is the same set).
  std::erase_if(sets_, [&](const AnnotatedRegionSet& s) { return s.root() == set.root(); });
  if (sets_.size() >= kMaxKept) sets_.erase(sets_.begin());
  sets_.push_back(std::move(set));
}

std::optional<AnnotatedRegionSet> RegionSetHandoff::Take(const Arena* arena,
                                                         const Function* root) {
  if (arena_.get() != arena) return std::nullopt;
  for (size_t i = 0; i < sets_.size(); ++i) {
    if (sets_[i].root() != root) continue;
    std::optional<AnnotatedRegionSet> set(std::move(sets_[i]));
    sets_.erase(sets_.begin() + i);
    return set;
  }
  return std::nullopt;
}

void RegionSetHandoff::Drop(const Arena* arena) {
  if (arena_.get() != arena) return;
  sets_.clear();
  arena_ = nullptr;
}

}  // namespace carve
