#include "passes/byoc/partition_cycles.h"

#include <cstdint>
#include <vector>

#include "ir/post_order.h"
#include "passes/byoc/dataflow_deps.h"

namespace carve {
namespace {

using RegionId = AnnotatedRegionSet::RegionId;

// A vertex of the contracted graph, tagged as FindRegionCycle's: a region
// (id << 1 | 1) or a node outside regions (its address).
using Vertex = uintptr_t;

enum : uint8_t { kWhite = 0, kGray = 1, kBlack = 2 };

class CycleTest {
 public:
  explicit CycleTest(const AnnotatedRegionSet& set)
      : set_(set), region_color_(set.NumRegionIds(), kWhite) {}

  ~CycleTest() {
    for (const Expr* e : marked_) e->set_scratch_mark(0);
  }

  bool Run() {
    if (Search(VertexOf(set_.root()))) return true;
    for (RegionId r : set_.RegionIds()) {
      if (Search(RegionVertex(r))) return true;
    }
    return false;
  }

 private:
  // Depth-first search from `v` over the white vertices; true when it
  // reaches a gray one (entered, not left: on the current path), a cycle.
  // A cancelled search says false (the pass's result is discarded).
  bool Search(Vertex v) {
    bool cycle = false;
    absl::Status walked = WalkPostOrder(
        v,
        [&](Vertex u) {
          uint8_t c = Color(u);
          cycle = cycle || c == kGray;
          if (cycle || c != kWhite) return false;
          SetColor(u, kGray);
          return true;
        },
        [&](Vertex u, auto push) {
          if (!cycle) ForEachDep(u, push);
        },
        [&](Vertex u) { SetColor(u, kBlack); });
    return cycle && walked.ok();
  }

  static Vertex RegionVertex(RegionId r) { return (static_cast<Vertex>(r) << 1) | 1; }
  static bool IsRegion(Vertex v) { return v & 1; }
  static const Expr* NodeOf(Vertex v) { return reinterpret_cast<const Expr*>(v); }

  // Atoms are never in a region (the set does not visit them): no lookup.
  Vertex VertexOf(const Expr* e) const {
    RegionId r = e->is_atom() ? AnnotatedRegionSet::kNoRegion : set_.GetRegion(e);
    return r == AnnotatedRegionSet::kNoRegion ? reinterpret_cast<Vertex>(e) : RegionVertex(r);
  }

  uint8_t Color(Vertex v) const {
    return IsRegion(v) ? region_color_[v >> 1] : NodeOf(v)->scratch_mark();
  }
  void SetColor(Vertex v, uint8_t c) {
    if (IsRegion(v)) {
      region_color_[v >> 1] = c;
      return;
    }
    const Expr* e = NodeOf(v);
    if (e->scratch_mark() == kWhite) marked_.push_back(e);
    e->set_scratch_mark(c);
  }

  // What `v` depends on; for a region, what its members depend on outside
  // it. Atoms without a let binding depend on nothing and are left out
  // (they cannot be on a cycle), so shared op nodes are never marked.
  template <typename F>
  void ForEachDep(Vertex v, F&& f) {
    if (!IsRegion(v)) {
      ForEachDependency(NodeOf(v), set_.lets(), [&](const Expr* d) {
        if (!d->is_atom() || HasDeps(d)) f(VertexOf(d));
      });
      return;
    }
    auto add = [&](const Expr* d) {
      if (d->is_atom() && !HasDeps(d)) return;
      Vertex dv = VertexOf(d);
      if (dv != v) f(dv);
    };
    for (const Expr* member : set_.Nodes(static_cast<RegionId>(v >> 1))) {
      ForEachDependency(member, set_.lets(), add);
    }
  }

  bool HasDeps(const Expr* atom) const {
    const Var* var = DynCast<Var>(atom);
    return var != nullptr && set_.lets().ValueOf(var) != nullptr;
  }

  const AnnotatedRegionSet& set_;
  std::vector<uint8_t> region_color_;
  std::vector<const Expr*> marked_;
};

}  // namespace

bool HasRegionCycle(const AnnotatedRegionSet& set) {
  if (set.size() == 0) return false;
  return CycleTest(set).Run();
}

}  // namespace carve
