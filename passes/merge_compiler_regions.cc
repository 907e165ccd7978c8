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
  explicit RegionMerger(AnnotatedRegionSet& set) : set_(set) {}

  absl::Status Run(const Expr* root) {
    CountPendingEdges();
    return Walk(root);
  }

 private:
  // pending_[r]: input edges of unvisited regions that read from region r.
  void CountPendingEdges() {
    for (RegionId r : set_.RegionIds()) {
      for (const Call* begin : set_.Ins(r)) {
        RegionId p = set_.GetRegion(begin->args()[0]);
        if (p != kNone && p != r) ++pending_[p];
      }
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
        if (!processed_.contains(r)) Process(r, frame.inputs);
        continue;
      }
      Frame& top = stack.back();
      const Expr* e = top.e;
      if (!top.expanded) {
        auto [slot, inserted] = state_.try_emplace(e, kActive);
        if (!inserted && slot->second == kDone) {
          stack.pop_back();
          continue;
        }
        slot->second = kActive;
        top.expanded = true;
        if (const Let* let = DynCast<Let>(e)) lets_.Record(let);
        if (IsComposite(e)) continue;  // no annotations inside composites
        kids.clear();
        ForEachChild(e, [&](const Expr* c) { kids.push_back(c); });
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
          if (State(*it) == kNew) stack.push_back(Frame{*it});
        }
        continue;
      }
      stack.pop_back();
      state_[e] = kDone;
      if (!IsCompilerEnd(e)) continue;
      RegionId r = set_.GetRegion(e);
      if (processed_.contains(r)) continue;
      Frame frame;
      frame.end = Cast<Call>(e);
      frame.inputs = set_.Ins(r);
      stack.push_back(std::move(frame));
    }
    return absl::OkStatus();
  }

  uint8_t State(const Expr* e) const {
    auto it = state_.find(e);
    return it == state_.end() ? kNew : it->second;
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
      if (p != kNone && processed_.contains(p)) continue;
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
      restrict_.erase(p);
    }
    processed_.insert(r);
    Canonicalize(restrict);
    Prune(restrict, r);
    if (pending_[r] > 0) restrict_[r] = std::move(restrict);
  }

  // Marks one input edge from `p` as visited; a region nobody will read from
  // again can leave every restriction set.
  void Consume(RegionId p) {
    if (--pending_[p] == 0) restrict_.erase(p);
  }

  // What a region contributes to the restrictions of a region reading it
  // indirectly or from another target: its own restrictions (every live
  // region upstream of it), computed on demand for a region not decided yet.
  RegionList RegionUpstream(RegionId p) {
    if (processed_.contains(p)) {
      auto it = restrict_.find(p);
      return it == restrict_.end() ? RegionList{} : it->second;
    }
    return Upstream(RegionKey(p));
  }

  // Keys of the upstream memo: a node outside regions, or an undecided
  // region (ids tagged in the low bit; node pointers are aligned).
  static uintptr_t Key(const Expr* e) { return reinterpret_cast<uintptr_t>(e); }
  static uintptr_t RegionKey(RegionId r) { return (static_cast<uintptr_t>(r) << 1) | 1; }
  static bool IsRegionKey(uintptr_t k) { return k & 1; }

  // The dependencies of a key: a node's (see dataflow_deps.h), or the input
  // producers of a region.
  template <typename F>
  void ForEachKeyDependency(uintptr_t key, F&& f) {
    if (IsRegionKey(key)) {
      for (const Call* begin : set_.Ins(static_cast<RegionId>(key >> 1))) f(begin->args()[0]);
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
      if (upstream_.contains(top.key)) {
        stack.pop_back();
        continue;
      }
      uintptr_t k = top.key;
      if (!top.expanded) {
        top.expanded = true;
        ForEachKeyDependency(k, [&](const Expr* d) {
          RegionId g = set_.GetRegion(d);
          if (g == kNone) {
            if (!upstream_.contains(Key(d))) stack.push_back({Key(d), false});
          } else if (!processed_.contains(g) && !upstream_.contains(RegionKey(g))) {
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
          auto it = upstream_.find(Key(d));
          if (it != upstream_.end()) Append(result, it->second);
          return;
        }
        if (IsRegionKey(k) && g == static_cast<RegionId>(k >> 1)) return;
        result.push_back(g);
        Append(result, RegionUpstreamIfKnown(g));
      });
      Canonicalize(result);
      Prune(result, kNone);
      upstream_[k] = std::move(result);
    }
    return upstream_.at(key);
  }

  RegionList RegionUpstreamIfKnown(RegionId g) {
    if (processed_.contains(g)) {
      auto it = restrict_.find(g);
      return it == restrict_.end() ? RegionList{} : it->second;
    }
    auto it = upstream_.find(RegionKey(g));
    return it == upstream_.end() ? RegionList{} : it->second;
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
  absl::flat_hash_map<const Expr*, uint8_t> state_;
  LetBindings lets_;
  absl::flat_hash_set<RegionId> processed_;
  absl::flat_hash_map<RegionId, int64_t> pending_;
  absl::flat_hash_map<RegionId, RegionList> restrict_;  // decided regions with readers left
  absl::flat_hash_map<uintptr_t, RegionList> upstream_;
};

// Removes compiler_begin(compiler_end(x)) pairs inside one region.
class InternalAnnotationRemover : public ExprMutator {
 public:
  InternalAnnotationRemover(Arena* arena, const AnnotatedRegionSet& set)
      : ExprMutator(arena), set_(set) {}

 protected:
  bool VisitChildren(const Expr* e) override { return !IsComposite(e); }

  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = Rebuild(e);
    if (post != e && post->checked_type() == nullptr) post->set_checked_type(e->checked_type());
    if (!IsCompilerBegin(e)) return post;
    const Expr* arg = Cast<Call>(e)->args()[0];
    if (!IsCompilerEnd(arg) || set_.GetRegion(e) != set_.GetRegion(arg)) return post;
    return Cast<Call>(Mutated(arg))->args()[0];
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
