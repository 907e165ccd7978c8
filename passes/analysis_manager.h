// Analyses of functions that the passes of one pipeline run share, cached as
// MLIR's AnalysisManager caches them (getCachedAnalysis /
// markAllAnalysesPreserved): a pass that computed an analysis a later pass
// needs stores it (Put); a later pass looks for it (GetCached, or Take to
// consume it) and computes it itself on a miss, so every pass also runs
// right outside a pipeline. When a pass ends, the PassContext drops every
// analysis that pass did not mark preserved (Preserve<A>, PreserveAll), as
// MLIR does.
//
// An entry cannot go stale while it lives: IR nodes are immutable and live
// as long as their arena, which the manager holds, so the function at an
// address is the same graph for as long as its analyses are kept. A module
// of another arena replaces the cache.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"

namespace carve {

class AnalysisManager {
 public:
  // The analysis of type A of `fn` (a function of `mod`) a pass stored, or
  // nullptr.
  template <typename A>
  A* GetCached(const Module& mod, const Function* fn) {
    if (arena_.get() != mod.arena()) return nullptr;
    auto it = entries_.find(Key{Tag<A>(), fn});
    return it == entries_.end() ? nullptr : static_cast<A*>(it->second.get());
  }

  // Removes and returns the stored analysis, for a pass that consumes it
  // (and so frees it as soon as it is done, not when the pass ends).
  template <typename A>
  std::optional<A> Take(const Module& mod, const Function* fn) {
    if (arena_.get() != mod.arena()) return std::nullopt;
    auto it = entries_.find(Key{Tag<A>(), fn});
    if (it == entries_.end()) return std::nullopt;
    std::optional<A> analysis(std::move(*static_cast<A*>(it->second.get())));
    entries_.erase(it);
    return analysis;
  }

  // Stores `analysis` as the analysis of type A of `fn`, replacing any.
  template <typename A>
  A& Put(const Module& mod, const Function* fn, A analysis) {
    if (arena_ != mod.shared_arena()) {
      entries_.clear();
      arena_ = mod.shared_arena();
    }
    std::shared_ptr<void>& slot = entries_[Key{Tag<A>(), fn}];
    slot = std::make_shared<A>(std::move(analysis));
    return *static_cast<A*>(slot.get());
  }

  // What the running pass keeps valid past its end.
  template <typename A>
  void Preserve() {
    preserved_.push_back(Tag<A>());
  }
  void PreserveAll() { preserve_all_ = true; }

 private:
  friend class PassContext;
  using TypeTag = const void*;
  using Key = std::pair<TypeTag, const Function*>;
  // The marks of one running pass.
  struct Marks {
    bool all = false;
    std::vector<TypeTag> types;
  };

  // One address per analysis type.
  template <typename A>
  static TypeTag Tag() {
    static const char tag = 0;
    return &tag;
  }

  // Called around every pass: BeginPass clears the marks for the pass and
  // returns the enclosing pass's, EndPass drops what the pass did not
  // preserve and restores them.
  Marks BeginPass();
  void EndPass(Marks outer);

  std::shared_ptr<Arena> arena_;
  absl::flat_hash_map<Key, std::shared_ptr<void>> entries_;
  bool preserve_all_ = false;
  std::vector<TypeTag> preserved_;
};

}  // namespace carve
