#include "passes/merge_compiler_regions.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/visit.h"
#include "passes/annotated_region_set.h"
#include "passes/annotation.h"
#include "passes/dataflow_deps.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {
namespace {

using RegionId = AnnotatedRegionSet::RegionId;
constexpr RegionId kNone = AnnotatedRegionSet::kNoRegion;
using RegionList = std::vector<RegionId>;

bool IsComposite(const Expr* e) {
  const Function* fn = DynCast<Function>(e);
  return fn != nullptr && fn->HasAttr(attr::kComposite);
}

// Decides the merges. See the header for the algorithm.
class RegionMerger {
 public:
  explicit RegionMerger(AnnotatedRegionSet& set)
      : set_(set),
        processed_(set.NumRegionIds(), 0),
        pending_(set.NumRegionIds(), 0),
        restrict_(set.NumRegionIds()),
        region_upstream_(set.NumRegionIds()),
        region_known_(set.NumRegionIds(), 0),
        endless_(set.NumRegionIds(), 0) {}

  absl::Status Run(const Expr* root) {
    CountPendingEdges();
    return Walk(root);
  }

 private:
  // pending_[r]: input edges of unvisited regions that read from region r.
  void CountPendingEdges() {
    for (RegionId r : set_.RegionIds()) {
      endless_[r] = set_.Outs(r).empty();
      set_.ForEachIn(r, [&](const Call* begin) {
        RegionId p = set_.GetRegion(begin->args()[0]);
        if (p != kNone && p != r) ++pending_[p];
      });
    }
  }

  // One frame of the walk: an expression, or a region waiting for the
  // producers of its inputs (TVM visits them before merging).
  struct Frame {
    explicit Frame(const Expr* expr = nullptr) : e(expr) {}
    const Expr* e = nullptr;
    bool expanded = false;
    const Call* end = nullptr;  // region frame: the end that reached it
    std::vector<const Call*> inputs;
    size_t next = 0;
  };
  enum : uint8_t { kNew = 0, kActive = 1, kDone = 2 };

  absl::Status Walk(const Expr* root) {
    std::vector<Frame> stack;
    stack.push_back(Frame{root});
    std::vector<const Expr*> kids;
    while (!stack.empty()) {
      if (stack.back().end != nullptr) {
        CARVE_ASSIGN_OR_RETURN(const Expr* producer, NextProducer(stack.back()));
        if (producer != nullptr) {
          stack.push_back(Frame{producer});
          continue;
        }
        Frame frame = std::move(stack.back());
        stack.pop_back();
        RegionId r = set_.GetRegion(frame.end);
        if (!processed_[r]) Process(r, frame.inputs);
        continue;
      }
      Frame& top = stack.back();
      const Expr* e = top.e;
      if (!top.expanded) {
        auto [slot, inserted] = state_.TryEmplace(e, kActive);
        if (!inserted && *slot == kDone) {
          stack.pop_back();
          continue;
        }
        *slot = kActive;
        top.expanded = true;
        if (const Let* let = DynCast<Let>(e)) lets_.Record(let);
        if (IsComposite(e)) continue;  // no annotations inside composites
        kids.clear();
        ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
        // Atoms decide nothing; one that is a region input is visited when
        // its region asks for its producers (NextProducer).
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
          if (!(*it)->is_atom() && State(*it) == kNew) stack.push_back(Frame{*it});
        }
        continue;
      }
      stack.pop_back();
      state_[e] = kDone;
      if (!IsCompilerEnd(e)) continue;
      RegionId r = set_.GetRegion(e);
      if (processed_[r]) continue;
      Frame frame;
      frame.end = Cast<Call>(e);
      frame.inputs = set_.Ins(r);
      stack.push_back(std::move(frame));
    }
    return absl::OkStatus();
  }

  uint8_t State(const Expr* e) const {
    const uint8_t* st = state_.Find(e);
    return st == nullptr ? uint8_t{kNew} : *st;
  }

  // The next input producer of a region frame still to visit, or nullptr
  // when all were visited. TVM visits the producers in other regions; this
  // also visits producers outside every region, so that everything upstream
  // is decided before the region is.
  absl::StatusOr<const Expr*> NextProducer(Frame& frame) {
    while (frame.next < frame.inputs.size()) {
      const Call* begin = frame.inputs[frame.next++];
      const Expr* producer = begin->args()[0];
      RegionId p = set_.GetRegion(producer);
      if (p != kNone && processed_[p]) continue;
      uint8_t st = State(producer);
      if (st == kDone) continue;
      if (st == kActive) {
        return SpanError(begin->span(),
                         "annotated regions depend on each other in a cycle: this input of a "
                         "region is computed from the region's own output",
                         absl::StatusCode::kFailedPrecondition);
      }
      return producer;
    }
    return nullptr;
  }

  void Process(RegionId r, const std::vector<const Call*>& inputs) {
    std::string_view target = set_.Target(r);
    const Function* scope = set_.Scope(r);
    RegionList restrict;
    RegionList candidates;
    std::vector<RegionId> producers;  // one entry per input edge from a region
    for (const Call* begin : inputs) {
      const Expr* x = begin->args()[0];
      RegionId p = set_.GetRegion(x);
      if (p == r) continue;
      if (p == kNone) {
        Append(restrict, Upstream(Key(x)));
        continue;
      }
      producers.push_back(p);
      Append(restrict, RegionUpstream(p));
      if (set_.Target(p) == target && set_.Scope(p) == scope) {
        candidates.push_back(p);
      } else {
        restrict.push_back(p);
      }
    }
    Canonicalize(restrict);
    Canonicalize(candidates);
    for (RegionId p : producers) Consume(p);
    for (RegionId p : candidates) {
      if (std::binary_search(restrict.begin(), restrict.end(), p)) continue;
      int64_t carried = pending_[p];
      set_.MergeRegions(p, r);
      pending_[r] += carried;
      RegionList().swap(restrict_[p]);
    }
    processed_[r] = 1;
    Canonicalize(restrict);
    Prune(restrict, r);
    if (pending_[r] > 0) restrict_[r] = std::move(restrict);
  }

  // Marks one input edge from `p` as visited; a region nobody will read from
  // again can leave every restriction set.
  void Consume(RegionId p) {
    if (--pending_[p] == 0) RegionList().swap(restrict_[p]);
  }

  // What a region contributes to the restrictions of a region reading it
  // indirectly or from another target: its own restrictions (every live
  // region upstream of it), computed on demand for a region not decided yet.
  const RegionList& RegionUpstream(RegionId p) {
    if (processed_[p]) return restrict_[p];
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

  // Every live region upstream of `key` (iterative, memoized).
  const RegionList& Upstream(uintptr_t key) {
    struct Item {
      uintptr_t key;
      bool expanded;
    };
    std::vector<Item> stack = {{key, false}};
    while (!stack.empty()) {
      Item& top = stack.back();
      if (Known(top.key)) {
        stack.pop_back();
        continue;
      }
      uintptr_t k = top.key;
      if (!top.expanded) {
        top.expanded = true;
        ForEachKeyDependency(k, [&](const Expr* d) {
          RegionId g = set_.GetRegion(d);
          if (g == kNone) {
            if (!upstream_.Contains(d)) stack.push_back({Key(d), false});
          } else if (!processed_[g] && !region_known_[g]) {
            stack.push_back({RegionKey(g), false});
          }
        });
        continue;
      }
      stack.pop_back();
      RegionList result;
      ForEachKeyDependency(k, [&](const Expr* d) {
        RegionId g = set_.GetRegion(d);
        if (g == kNone) {
          if (const RegionList* up = upstream_.Find(d)) Append(result, *up);
          return;
        }
        if (IsRegionKey(k) && g == static_cast<RegionId>(k >> 1)) return;
        result.push_back(g);
        Append(result, RegionUpstreamIfKnown(g));
      });
      Canonicalize(result);
      Prune(result, kNone);
      if (IsRegionKey(k)) {
        RegionId r = static_cast<RegionId>(k >> 1);
        region_known_[r] = 1;
        region_upstream_[r] = std::move(result);
        if (endless_[r]) ConsumeInputsOf(r);
      } else {
        upstream_[KeyPtr(k)] = std::move(result);
      }
    }
    return IsRegionKey(key) ? region_upstream_[key >> 1] : *upstream_.Find(KeyPtr(key));
  }

  // A region without a compiler_end (AnnotateTarget's begin around a let
  // value) is never visited, so its input edges are marked visited once its
  // upstream set is memoized (that copy is all its readers need). Left
  // pending, they kept every producer in all later restriction sets: a chain
  // of lets took quadratic time and memory.
  void ConsumeInputsOf(RegionId r) {
    set_.ForEachIn(r, [&](const Call* begin) {
      RegionId p = set_.GetRegion(begin->args()[0]);
      if (p != kNone && p != r) Consume(p);
    });
  }

  const RegionList& RegionUpstreamIfKnown(RegionId g) {
    if (processed_[g]) return restrict_[g];
    return region_upstream_[g];  // empty unless known
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

  AnnotatedRegionSet& set_;
  AddressMap<uint8_t> state_;
  LetBindings lets_;
  // Indexed by region id.
  std::vector<uint8_t> processed_;
  std::vector<int64_t> pending_;
  std::vector<RegionList> restrict_;  // decided regions with readers left (else empty)
  AddressMap<RegionList> upstream_;   // nodes outside regions, by node
  std::vector<RegionList> region_upstream_;  // undecided regions, by id
  std::vector<uint8_t> region_known_;
  std::vector<uint8_t> endless_;  // regions without a compiler_end
};

// Removes compiler_begin(compiler_end(x)) pairs inside one region.
class InternalAnnotationRemover : public ExprMutator {
 public:
  InternalAnnotationRemover(Arena* arena, const AnnotatedRegionSet& set)
      : ExprMutator(arena), set_(set) {}

 protected:
  bool VisitChildren(const Expr* e) override { return !IsComposite(e); }

  const Expr* Rewrite(const Expr* e) override {
    // A removed pair is decided before anything is rebuilt: rebuilding the
    // begin first made a node per internal edge that nothing kept.
    if (IsCompilerBegin(e)) {
      const Expr* arg = Cast<Call>(e)->args()[0];
      if (IsCompilerEnd(arg) && set_.GetRegion(e) == set_.GetRegion(arg)) {
        return Mutated(Cast<Call>(arg)->args()[0]);  // what the rebuilt end reads
      }
    }
    const Expr* post = Rebuild(e);
    if (post != e && post->checked_type() == nullptr) post->set_checked_type(e->checked_type());
    return post;
  }

 private:
  const AnnotatedRegionSet& set_;
};

}  // namespace

absl::StatusOr<const Function*> MergeCompilerRegionsFunction(const Function* fn, Arena* arena) {
  CARVE_ASSIGN_OR_RETURN(AnnotatedRegionSet set, AnnotatedRegionSet::Create(fn));
  if (set.size() == 0) return fn;
  RegionMerger merger(set);
  CARVE_RETURN_IF_ERROR(merger.Run(fn));
  InternalAnnotationRemover remover(arena, set);
  return Cast<Function>(remover.Mutate(fn));
}

PassPtr MergeCompilerRegions() {
  return MakeFunctionPass("MergeCompilerRegions", "",
                          [](const Function* fn, const Module& mod,
                             PassContext&) -> absl::StatusOr<const Function*> {
                            return MergeCompilerRegionsFunction(fn, mod.arena());
                          },
                          /*require_types=*/false, /*keeps_types=*/true);
}

}  // namespace carve
