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

// Decides the merges. See the header for the algorithm. The walk runs over
// the set's dense numbering (children, kinds and regions by node index), so
// it touches the nodes themselves only for lets and for inputs computed
// outside every region.
class RegionMerger {
 public:
  // `exact`: also test every merge by a walk upstream of the region (see
  // ReachesOtherwise); the fallback when the restriction sets missed a path.
  explicit RegionMerger(AnnotatedRegionSet& set, bool exact = false)
      : exact_(exact),
        set_(set),
        state_(set.num_nodes(), kNew),
        processed_(set.NumRegionIds(), 0),
        referenced_(set.NumRegionIds(), 0),
        pending_(set.NumRegionIds(), 0),
        region_known_(set.NumRegionIds(), 0) {}

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

  // Whether a region grew upstream after another set had recorded it: then
  // a recorded set may miss a path, and the result needs the cycle check.
  bool suspect() const { return suspect_; }

  // The nodes the walk visited (every node outside composite functions),
  // children before parents.
  const std::vector<NodeIndex>& order() const { return order_; }

 private:
  // pending_[r]: input edges of unvisited regions that read from region r.
  void CountPendingEdges() {
    // Every compiler_begin not dropped is an input of its region: a scan in
    // node order instead of a walk over the regions' lists.
    for (NodeIndex begin = 0; begin < set_.num_nodes(); ++begin) {
      if (!set_.IsBegin(begin) || set_.Removed(begin)) continue;
      RegionId p = set_.RegionOfIndex(set_.AnnotationArg(begin));
      if (p != kNone && p != set_.RegionAt(begin)) ++pending_[p];
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
      if (p != kNone && processed_[p]) return false;  // decided already
      if (state_[i] == kActive) {
        error_ = SpanError(set_.node(s.begin)->span(),
                           "annotated regions depend on each other in a cycle: this input of a "
                           "region is computed from the region's own output",
                           absl::StatusCode::kFailedPrecondition);
      }
    }
    if (state_[i] == kActive) return false;
    state_[i] = kActive;
    if (set_.kind(i) == ExprKind::kLet) lets_.Record(Cast<Let>(set_.node(i)));
    return true;
  }

  template <typename Push>
  void PushChildren(Step s, Push&& push) {
    NodeIndex i = s.node;
    if (set_.IsComposite(i)) return;  // no annotations inside composites
    for (NodeIndex kid : set_.children(i)) {
      if (kid != kNoNode && state_[kid] == kNew) push(Step{kid, kNoNode});
    }
    if (!set_.IsEnd(i) || processed_[set_.RegionAt(i)]) return;
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
    if (!set_.IsEnd(i) || processed_[set_.RegionAt(i)]) return absl::OkStatus();
    inputs_.clear();
    set_.ForEachInIndex(set_.RegionAt(i), [&](NodeIndex begin) { inputs_.push_back(begin); });
    Process(set_.RegionAt(i), inputs_);
    return absl::OkStatus();
  }

  void Process(RegionId r, std::span<const NodeIndex> inputs) {
    std::string_view target = set_.Target(r);
    const Function* scope = set_.Scope(r);
    // Scratch lists, reused from region to region.
    RegionList& restrict = restrict_scratch_;
    RegionList& candidates = candidates_scratch_;
    std::vector<RegionId>& producers = producers_scratch_;  // one per input edge from a region
    restrict.clear();
    candidates.clear();
    producers.clear();
    for (NodeIndex begin : inputs) {
      NodeIndex x = set_.AnnotationArg(begin);
      RegionId p = set_.RegionOfIndex(x);
      if (p == r) continue;
      if (p == kNone) {
        Append(restrict, InputUpstream(begin, x));
        continue;
      }
      producers.push_back(p);
      Append(restrict, RegionUpstream(p));
      if (set_.Target(p) == target && set_.Scope(p) == scope) {
        candidates.push_back(p);
      } else {
        restrict.push_back(p);
        referenced_[p] = 1;
      }
    }
    Canonicalize(restrict);
    Canonicalize(candidates);
    for (RegionId p : producers) Consume(p);
    for (RegionId p : candidates) {
      if (std::binary_search(restrict.begin(), restrict.end(), p)) continue;
      if (exact_ && ReachesOtherwise(set_.Resolve(p), set_.Resolve(r))) continue;
      if (!suspect_ && referenced_[p] && GainsUpstream(p, restrict)) suspect_ = true;
      int32_t carried = pending_[p];
      set_.MergeRegions(p, r);
      pending_[r] += carried;
      restrict_.erase(p);
    }
    processed_[r] = 1;
    Canonicalize(restrict);
    Prune(restrict, r);
    if (pending_[r] > 0) restrict_[r] = restrict;
  }

  // Whether merging `p` into the region whose restriction set is `restrict`
  // (sorted) gives p's unit upstream regions p did not have.
  bool GainsUpstream(RegionId p, const RegionList& restrict) {
    RegionList before = RegionUpstream(p);
    Canonicalize(before);
    for (RegionId x : restrict) {
      if (x != p && !std::binary_search(before.begin(), before.end(), x)) return true;
    }
    return false;
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
        if (skip_p && from != kNone && set_.Resolve(from) == p) return;
        if (seen_nodes.insert(x).second) stack.push_back(x);
      });
    };
    push_inputs(r, /*skip_p=*/true);
    while (!stack.empty()) {
      const Expr* d = stack.back();
      stack.pop_back();
      RegionId g = set_.GetRegion(d);
      if (g != kNone) {
        g = set_.Resolve(g);
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

  // Every live region upstream of the input of compiler_begin `begin`, which
  // is outside every region: node `x`, or an atom when x is kNoNode. An atom
  // other than a let-bound variable has nothing upstream.
  const RegionList& InputUpstream(NodeIndex begin, NodeIndex x) {
    if (x == kNoNode && lets_.empty()) return kEmpty;
    const Expr* e = x != kNoNode ? set_.node(x) : Cast<Call>(set_.node(begin))->args()[0];
    if (IsPlainAtom(e)) return kEmpty;
    return Upstream(Key(e));
  }

  // An atom whose value depends on nothing (not a let-bound variable).
  bool IsPlainAtom(const Expr* e) const {
    if (!e->is_atom()) return false;
    const Var* var = DynCast<Var>(e);
    return var == nullptr || lets_.ValueOf(var) == nullptr;
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

  // What a region contributes to the restrictions of a region reading it
  // indirectly or from another target: its own restrictions (every live
  // region upstream of it), computed on demand for a region not decided yet.
  const RegionList& RegionUpstream(RegionId p) {
    if (processed_[p]) return Restriction(p);
    return Upstream(RegionKey(p));
  }

  // Keys of the upstream memo: a node outside regions, or an undecided
  // region (ids tagged in the low bit; node pointers are aligned).
  static uintptr_t Key(const Expr* e) { return reinterpret_cast<uintptr_t>(e); }
  static uintptr_t RegionKey(RegionId r) { return (static_cast<uintptr_t>(r) << 1) | 1; }
  static bool IsRegionKey(uintptr_t k) { return k & 1; }
  static const void* KeyPtr(uintptr_t k) { return reinterpret_cast<const void*>(k); }
  bool Known(uintptr_t k) const {
    return IsRegionKey(k) ? region_known_[k >> 1] != 0 : upstream_.Contains(KeyPtr(k));
  }

  // The dependencies of a key: a node's (see dataflow_deps.h), or the input
  // producers of a region.
  template <typename F>
  void ForEachKeyDependency(uintptr_t key, F&& f) {
    if (IsRegionKey(key)) {
      set_.ForEachIn(static_cast<RegionId>(key >> 1),
                     [&](const Call* begin) { f(begin->args()[0]); });
      return;
    }
    ForEachDependency(reinterpret_cast<const Expr*>(key), lets_, f);
  }

  // Every live region upstream of `key` (memoized). Empty when the walk was
  // cancelled (Run then fails).
  const RegionList& Upstream(uintptr_t key) {
    absl::Status walked = WalkPostOrder(
        key, [&](uintptr_t k) { return !Known(k); },
        [&](uintptr_t k, auto push) {
          ForEachKeyDependency(k, [&](const Expr* d) {
            RegionId g = set_.GetRegion(d);
            if (g == kNone) {
              if (!IsPlainAtom(d)) push(Key(d));
            } else if (!processed_[g]) {
              push(RegionKey(g));
            }
          });
        },
        [&](uintptr_t k) { Memoize(k); });
    if (!walked.ok()) {
      cancelled_ = true;
      return kEmpty;
    }
    return IsRegionKey(key) ? region_upstream_[key >> 1] : *upstream_.Find(KeyPtr(key));
  }

  // Records the upstream set of `k`, whose dependencies are all known.
  void Memoize(uintptr_t k) {
    RegionList result;
    ForEachKeyDependency(k, [&](const Expr* d) {
      RegionId g = set_.GetRegion(d);
      if (g == kNone) {
        if (const RegionList* up = upstream_.Find(d)) Append(result, *up);
        return;
      }
      if (IsRegionKey(k) && g == static_cast<RegionId>(k >> 1)) return;
      result.push_back(g);
      referenced_[g] = 1;
      Append(result, RegionUpstreamIfKnown(g));
    });
    Canonicalize(result);
    Prune(result, kNone);
    if (IsRegionKey(k)) {
      RegionId r = static_cast<RegionId>(k >> 1);
      region_known_[r] = 1;
      region_upstream_[r] = std::move(result);
      // (Undecided, so never merged since construction.)
      if (!set_.HasOuts(r)) ConsumeInputsOf(r);
    } else {
      upstream_[KeyPtr(k)] = std::move(result);
    }
  }

  // A region without a compiler_end (AnnotateTarget's begin around a let
  // value) is never visited, so its input edges are marked visited once its
  // upstream set is memoized (that copy is all its readers need). Left
  // pending, they kept every producer in all later restriction sets: a chain
  // of lets took quadratic time and memory.
  void ConsumeInputsOf(RegionId r) {
    set_.ForEachInIndex(r, [&](NodeIndex begin) {
      RegionId p = set_.RegionOfIndex(set_.AnnotationArg(begin));
      if (p != kNone && p != r) Consume(p);
    });
  }

  const RegionList& RegionUpstreamIfKnown(RegionId g) {
    if (processed_[g]) return Restriction(g);
    auto it = region_upstream_.find(g);
    return it == region_upstream_.end() ? kEmpty : it->second;
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

  // Drops regions no unvisited region reads from, and `self`.
  void Prune(RegionList& list, RegionId self) {
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](RegionId id) { return id == self || pending_[id] <= 0; }),
               list.end());
  }

  static inline const RegionList kEmpty;

  bool exact_;
  bool suspect_ = false;
  bool cancelled_ = false;  // an Upstream walk was cancelled
  AnnotatedRegionSet& set_;
  std::vector<uint8_t> state_;  // by node index
  std::vector<NodeIndex> order_;
  std::vector<NodeIndex> inputs_;  // scratch: the inputs of the region being decided
  absl::Status error_;             // a region cycle the walk met
  RegionList restrict_scratch_, candidates_scratch_, producers_scratch_;
  LetBindings lets_;
  // Indexed by region id.
  std::vector<uint8_t> processed_;
  std::vector<uint8_t> referenced_;  // recorded in some set as an upstream region
  std::vector<int32_t> pending_;
  // Sparse (the live frontier): the restriction sets of decided regions with
  // readers left, and the upstream sets of undecided regions asked about.
  absl::flat_hash_map<RegionId, RegionList> restrict_;
  AddressMap<RegionList> upstream_;  // nodes outside regions, by node
  absl::flat_hash_map<RegionId, RegionList> region_upstream_;
  std::vector<uint8_t> region_known_;
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

// One merge of `fn`'s regions; `exact` as RegionMerger's. `suspect` is set
// as RegionMerger::suspect().
absl::StatusOr<const Function*> MergeOnce(const Function* fn, Arena* arena, bool exact,
                                          bool* suspect) {
  CARVE_ASSIGN_OR_RETURN(AnnotatedRegionSet set, AnnotatedRegionSet::Create(fn));
  if (set.size() == 0) return fn;
  RegionMerger merger(set, exact);
  CARVE_RETURN_IF_ERROR(merger.Run());
  *suspect = merger.suspect();
  return Cast<Function>(InternalAnnotationRemover(arena, set).Run(merger.order()));
}

// Whether the regions of `fn` depend on each other.
bool HasRegionCycle(const Function* fn) {
  absl::StatusOr<AnnotatedRegionSet> set = AnnotatedRegionSet::Create(fn);
  return set.ok() && FindRegionCycle(*set, fn).has_value();
}

}  // namespace

// The restriction sets of the fast merger are pruned and memoized; a region
// that grows by a merge after a downstream set copied its upstream leaves
// that set short (issue 22: two tensorrt regions each feeding the other
// through default regions). The merged function is checked (linear time),
// and in the rare case it has a cycle, merged again testing every merge
// exactly. Only a merger that saw a recorded region grow upstream (rare:
// RegionMerger::suspect) pays for the check.
absl::StatusOr<const Function*> MergeCompilerRegionsFunction(const Function* fn, Arena* arena) {
  bool suspect = false;
  CARVE_ASSIGN_OR_RETURN(const Function* merged, MergeOnce(fn, arena, false, &suspect));
  if (merged == fn || !suspect || !HasRegionCycle(merged)) return merged;
  return MergeOnce(fn, arena, true, &suspect);
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
