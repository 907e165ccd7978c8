#include "passes/byoc/merge_compiler_regions.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "fmt/format.h"
#include "ir/post_order.h"
#include "ir/rebuild.h"
#include "ir/visit.h"
#include "passes/byoc/annotated_region_set.h"
#include "passes/byoc/annotation.h"
#include "passes/byoc/dataflow_deps.h"
#include "passes/byoc/region_verify.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {
namespace {

using RegionId = AnnotatedRegionSet::RegionId;
constexpr RegionId kNone = AnnotatedRegionSet::kNoRegion;
using RegionList = std::vector<RegionId>;

using NodeIndex = AnnotatedRegionSet::NodeIndex;
constexpr NodeIndex kNoNode = AnnotatedRegionSet::kNoNode;

// TVM's RegionMerger (see the header for the algorithm). The walk runs over
// the set's dense numbering (children, kinds and regions by node index); it
// touches the nodes themselves only for inputs computed outside every region.
class RegionMerger {
 public:
  // `exact`: also test every merge by a walk upstream of the region (see
  // ReachesOtherwise); the fallback when a restriction set missed a path.
  RegionMerger(AnnotatedRegionSet& set, bool exact)
      : exact_(exact),
        set_(set),
        lets_(set.lets()),
        state_(set.num_nodes(), kNew),
        decided_(set.NumRegionIds(), 0),
        pending_(set.NumRegionIds(), 0) {}

  absl::Status Run() {
    order_.reserve(set_.num_nodes());  // one allocation, not a doubling series
    CountPendingEdges();
    absl::Status walked = WalkPostOrder(
        Step{0, kNoNode},  // the root
        [&](Step s) { return Enter(s); }, [&](Step s, auto push) { PushChildren(s, push); },
        [&](Step s) { return Leave(s); });
    if (!error_.ok()) return error_;
    CARVE_RETURN_IF_ERROR(walked);
    return cancelled_ ? absl::CancelledError("interrupted") : absl::OkStatus();
  }

  // The nodes the walk visited (every node outside composite functions),
  // children before parents.
  const std::vector<NodeIndex>& order() const { return order_; }

 private:
  // pending_[p]: the input edges from region p of regions not decided yet.
  // A region without a compiler_end (AnnotateTarget's begin around a let
  // value) is never decided: what reads it reads the let-bound variable,
  // and Upstream walks through it.
  void CountPendingEdges() {
    for (NodeIndex begin = 0; begin < set_.num_nodes(); ++begin) {
      if (!set_.IsBegin(begin) || set_.Removed(begin)) continue;
      RegionId r = set_.RegionAt(begin);
      RegionId p = set_.RegionOfIndex(set_.AnnotationArg(begin));
      if (p != kNone && p != r && set_.HasOuts(r)) ++pending_[p];
    }
  }

  // A step of the walk: a node and, when the walk reached it as the producer
  // of a region input, that compiler_begin. TVM's visit is a post order
  // where reaching a region's first compiler_end first visits the producers
  // of all the region's inputs, then decides the region's merges: here the
  // producers are extra children of that compiler_end, and leaving it
  // decides the region. Producers outside every region are visited too, so
  // everything upstream is decided first.
  struct Step {
    NodeIndex node;
    NodeIndex begin;
  };
  enum : uint8_t { kNew = 0, kActive = 1, kDone = 2 };

  bool Enter(Step s) {
    NodeIndex i = s.node;
    if (state_[i] == kDone) return false;
    if (s.begin != kNoNode) {
      RegionId p = set_.RegionAt(i);
      if (p != kNone && decided_[p]) return false;
      if (state_[i] == kActive) {
        error_ = SpanError(set_.node(s.begin)->span(),
                           "annotated regions depend on each other in a cycle: this input of a "
                           "region is computed from the region's own output",
                           absl::StatusCode::kFailedPrecondition);
      }
    }
    if (state_[i] == kActive) return false;
    state_[i] = kActive;
    return true;
  }

  template <typename Push>
  void PushChildren(Step s, Push&& push) {
    NodeIndex i = s.node;
    if (set_.IsComposite(i)) return;  // no annotations inside composites
    for (NodeIndex kid : set_.children(i)) {
      if (kid != kNoNode && state_[kid] == kNew) push(Step{kid, kNoNode});
    }
    if (!set_.IsEnd(i) || decided_[set_.RegionAt(i)]) return;
    set_.ForEachInIndex(set_.RegionAt(i), [&](NodeIndex begin) {
      NodeIndex producer = set_.AnnotationArg(begin);
      // An atom decides nothing.
      if (producer != kNoNode && state_[producer] != kDone) push(Step{producer, begin});
    });
  }

  absl::Status Leave(Step s) {
    if (!error_.ok()) return error_;
    NodeIndex i = s.node;
    state_[i] = kDone;
    order_.push_back(i);
    if (!set_.IsEnd(i) || decided_[set_.RegionAt(i)]) return absl::OkStatus();
    inputs_.clear();
    set_.ForEachInIndex(set_.RegionAt(i), [&](NodeIndex begin) { inputs_.push_back(begin); });
    Decide(set_.RegionAt(i), inputs_);
    return absl::OkStatus();
  }

  // TVM's VisitExpr_(compiler_end) once the parents are visited: r's
  // restriction set is the union of its parents' sets, plus its parents of
  // another target (and, where carve differs, every region upstream of an
  // input computed outside every region); a parent of r's target merges into
  // r unless the set holds it.
  void Decide(RegionId r, std::span<const NodeIndex> inputs) {
    RegionList& restrict = restrict_scratch_;
    RegionList& parents = parents_scratch_;  // one per input edge from a region
    restrict.clear();
    parents.clear();
    for (NodeIndex begin : inputs) {
      NodeIndex x = set_.AnnotationArg(begin);
      const Expr* input = x != kNoNode ? set_.node(x) : Cast<Call>(set_.node(begin))->args()[0];
      RegionId p = set_.RegionOfIndex(x);
      if (p == r) continue;
      if (p == kNone) {
        Append(restrict, Upstream(input));
        continue;
      }
      parents.push_back(p);
      Append(restrict, decided_[p] ? Restriction(p) : Upstream(input));
      if (!Mergeable(p, r)) restrict.push_back(p);
    }
    Canonicalize(restrict);
    for (RegionId p : parents) Consume(p);
    Canonicalize(parents);
    for (RegionId p : parents) {
      if (!Mergeable(p, r) || std::binary_search(restrict.begin(), restrict.end(), p)) continue;
      if (exact_ && ReachesOtherwise(p, r)) continue;
      pending_[r] += pending_[p];
      set_.MergeRegions(p, r);
      restrict_.erase(p);
    }
    decided_[r] = 1;
    Canonicalize(restrict);
    Prune(restrict, r);
    if (pending_[r] > 0) restrict_[r] = restrict;
  }

  // Regions of one target in one function literal.
  bool Mergeable(RegionId p, RegionId r) const {
    return set_.Target(p) == set_.Target(r) && set_.Scope(p) == set_.Scope(r);
  }

  // The restriction set of decided region `r` (empty once nobody reads it).
  const RegionList& Restriction(RegionId r) const {
    auto it = restrict_.find(r);
    return it == restrict_.end() ? kEmpty : it->second;
  }

  // Marks one input edge from `p` as visited; a region nobody will read from
  // again can leave every restriction set.
  void Consume(RegionId p) {
    if (--pending_[p] == 0) restrict_.erase(p);
  }

  // The decided regions upstream of `e` that an undecided region still
  // reads (memoized). Paths go through nodes outside regions and through
  // regions not decided; a decided region g upstream contributes g and its
  // restriction set. Empty when the walk was cancelled (Run then fails).
  const RegionList& Upstream(const Expr* e) {
    if (IsPlainAtom(e)) return kEmpty;
    absl::Status walked = WalkPostOrder(
        e, [&](const Expr* n) { return !upstream_.Contains(n); },
        [&](const Expr* n, auto push) {
          ForEachDependency(n, lets_, [&](const Expr* d) {
            if (DecidedRegion(d) == kNone && !IsPlainAtom(d)) push(d);
          });
        },
        [&](const Expr* n) { Memoize(n); });
    if (!walked.ok()) {
      cancelled_ = true;
      return kEmpty;
    }
    return *upstream_.Find(e);
  }

  // Records the upstream set of `n`, whose dependencies are all known.
  void Memoize(const Expr* n) {
    RegionList result;
    ForEachDependency(n, lets_, [&](const Expr* d) {
      if (RegionId g = DecidedRegion(d); g != kNone) {
        result.push_back(g);
        Append(result, Restriction(g));
      } else if (const RegionList* up = upstream_.Find(d)) {
        Append(result, *up);
      }
    });
    Canonicalize(result);
    Prune(result, kNone);
    upstream_[n] = std::move(result);
  }

  RegionId DecidedRegion(const Expr* e) const {
    RegionId g = set_.GetRegion(e);
    return g != kNone && decided_[g] ? g : kNone;
  }

  // An atom whose value depends on nothing (not a let-bound variable).
  bool IsPlainAtom(const Expr* e) const {
    if (!e->is_atom()) return false;
    const Var* var = DynCast<Var>(e);
    return var == nullptr || lets_.ValueOf(var) == nullptr;
  }

  // Whether region `p` reaches region `r` other than by a direct edge: a
  // walk upstream from r's inputs that p does not produce, through nodes
  // outside regions and through whole regions (a region is one unit once
  // partitioned: each of its inputs is upstream of each of its outputs).
  // Linear in what lies upstream of r.
  bool ReachesOtherwise(RegionId p, RegionId r) {
    absl::flat_hash_set<const Expr*> seen_nodes;
    absl::flat_hash_set<RegionId> seen_regions = {r};
    std::vector<const Expr*> stack;
    auto push_inputs = [&](RegionId g, bool skip_p) {
      set_.ForEachIn(g, [&](const Call* begin) {
        const Expr* x = begin->args()[0];
        RegionId from = set_.GetRegion(x);
        if (skip_p && from == p) return;
        if (seen_nodes.insert(x).second) stack.push_back(x);
      });
    };
    push_inputs(r, /*skip_p=*/true);
    while (!stack.empty()) {
      const Expr* d = stack.back();
      stack.pop_back();
      if (RegionId g = set_.GetRegion(d); g != kNone) {
        if (g == p) return true;
        if (seen_regions.insert(g).second) push_inputs(g, /*skip_p=*/false);
        continue;
      }
      ForEachDependency(d, lets_, [&](const Expr* e) {
        if (!IsPlainAtom(e) && seen_nodes.insert(e).second) stack.push_back(e);
      });
    }
    return false;
  }

  static void Append(RegionList& to, const RegionList& from) {
    to.insert(to.end(), from.begin(), from.end());
  }

  // Resolves ids to their current regions, sorted and unique.
  void Canonicalize(RegionList& list) {
    for (RegionId& id : list) id = set_.Resolve(id);
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }

  // Drops regions no undecided region reads from, and `self`.
  void Prune(RegionList& list, RegionId self) {
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](RegionId id) { return id == self || pending_[id] <= 0; }),
               list.end());
  }

  static inline const RegionList kEmpty;

  bool exact_;
  bool cancelled_ = false;  // an Upstream walk was cancelled
  AnnotatedRegionSet& set_;
  const LetBindings& lets_;
  std::vector<uint8_t> state_;  // by node index
  std::vector<NodeIndex> order_;
  std::vector<NodeIndex> inputs_;  // scratch: the inputs of the region being decided
  absl::Status error_;             // a region cycle the walk met
  RegionList restrict_scratch_, parents_scratch_;
  // By region id.
  std::vector<uint8_t> decided_;
  std::vector<int32_t> pending_;
  // Sparse (the live frontier): the restriction sets of decided regions
  // with readers left, and the upstream sets of nodes asked about.
  absl::flat_hash_map<RegionId, RegionList> restrict_;
  AddressMap<RegionList> upstream_;
};

// Removes compiler_begin(compiler_end(x)) pairs inside one region (TVM's
// MergeAnnotations rewriter): rebuilds the nodes the merger walked, children
// first, over the set's numbering. That is what an ExprMutator that does not
// enter composite functions does, without its map from node to rebuilt node.
class InternalAnnotationRemover {
 public:
  InternalAnnotationRemover(Arena* arena, const AnnotatedRegionSet& set)
      : builder_(arena), set_(set), out_(set.num_nodes(), nullptr) {}

  // `order`: the nodes to rebuild, children first; node 0 (the root) among
  // them.
  const Expr* Run(const std::vector<NodeIndex>& order) {
    for (NodeIndex i : order) out_[i] = RewriteNode(i);
    return out_[0];
  }

 private:
  // The rebuilt version of child `n` (an index, or kNoNode for atom `e`).
  const Expr* Mapped(NodeIndex n, const Expr* e) const {
    return n == kNoNode || out_[n] == nullptr ? e : out_[n];
  }

  const Expr* RewriteNode(NodeIndex i) {
    // A pair inside one region: what the end reads, rebuilt.
    if (set_.IsBegin(i)) {
      NodeIndex end = set_.AnnotationArg(i);
      if (end != kNoNode && set_.IsEnd(end) && set_.RegionAt(i) == set_.RegionAt(end)) {
        return Mapped(set_.AnnotationArg(end), Cast<Call>(set_.node(end))->args()[0]);
      }
    }
    const Expr* e = set_.node(i);
    std::span<const NodeIndex> kids = set_.children(i);
    absl::InlinedVector<const Expr*, 8> mapped;
    bool changed = false;
    size_t k = 0;
    ForEachChild(e, [&](const Expr* c) {
      mapped.push_back(Mapped(kids[k++], c));
      changed |= mapped.back() != c;
    });
    return changed ? RebuildWithChildren(builder_, e, mapped) : e;
  }

  IRBuilder builder_;
  const AnnotatedRegionSet& set_;
  std::vector<const Expr*> out_;  // by node index; nullptr: not rebuilt
};

// One merge of `fn`'s regions; `exact` as RegionMerger's. nullptr when not
// `exact` and the merged regions depend on each other in a cycle.
absl::StatusOr<const Function*> MergeOnce(const Function* fn, Arena* arena, bool exact) {
  CARVE_ASSIGN_OR_RETURN(AnnotatedRegionSet set, AnnotatedRegionSet::Create(fn));
  if (set.size() == 0) return fn;
  RegionMerger merger(set, exact);
  CARVE_RETURN_IF_ERROR(merger.Run());
  if (!exact && FindRegionCycle(set, fn).has_value()) return nullptr;
  return Cast<Function>(InternalAnnotationRemover(arena, set).Run(merger.order()));
}

}  // namespace

// A restriction set is a snapshot: a region that grows by a merge after a
// downstream set recorded it leaves that set short (TVM's too; issue 22: two
// tensorrt regions each feeding the other through default regions). The
// merged regions are checked (linear time) and, in the rare case they have a
// cycle, merged again testing every merge exactly.
absl::StatusOr<const Function*> MergeCompilerRegionsFunction(const Function* fn, Arena* arena) {
  CARVE_ASSIGN_OR_RETURN(const Function* merged, MergeOnce(fn, arena, /*exact=*/false));
  if (merged != nullptr) return merged;
  return MergeOnce(fn, arena, /*exact=*/true);
}

PassPtr MergeCompilerRegions() {
  return MakeFunctionPass(
      "MergeCompilerRegions", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return MergeCompilerRegionsFunction(fn, mod.arena());
      },
      /*require_types=*/false, /*keeps_types=*/true);
}

}  // namespace carve
