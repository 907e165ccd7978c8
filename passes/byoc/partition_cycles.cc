#include "passes/byoc/partition_cycles.h"

#include <cstdint>
#include <vector>

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
    if (Enter(VertexOf(set_.root())) && Search()) return true;
    for (RegionId r : set_.RegionIds()) {
      if (Enter(RegionVertex(r)) && Search()) return true;
    }
    return false;
  }

 private:
  // A vertex being searched: its dependencies are deps_[begin, end), those
  // from `next` on not searched yet.
  struct Frame {
    Vertex v;
    size_t begin;
    size_t next;
    size_t end;
  };

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

  // Starts the search of a white vertex; false when it is not white.
  bool Enter(Vertex v) {
    if (Color(v) != kWhite) return false;
    SetColor(v, kGray);
    size_t begin = deps_.size();
    AppendDeps(v);
    stack_.push_back({v, begin, begin, deps_.size()});
    return true;
  }

  // Depth-first search until the stack empties; true at a gray vertex.
  bool Search() {
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      if (top.next == top.end) {
        SetColor(top.v, kBlack);
        deps_.resize(top.begin);
        stack_.pop_back();
        continue;
      }
      Vertex d = deps_[top.next++];
      uint8_t c = Color(d);
      if (c == kGray) return true;
      if (c == kWhite) Enter(d);
    }
    return false;
  }

  // What `v` depends on; for a region, what its members depend on outside
  // it. Atoms without a let binding depend on nothing and are left out
  // (they cannot be on a cycle), so shared op nodes are never marked.
  void AppendDeps(Vertex v) {
    if (!IsRegion(v)) {
      ForEachDependency(NodeOf(v), set_.lets(), [&](const Expr* d) {
        if (!d->is_atom() || HasDeps(d)) deps_.push_back(VertexOf(d));
      });
      return;
    }
    auto add = [&](const Expr* d) {
      if (d->is_atom() && !HasDeps(d)) return;
      Vertex dv = VertexOf(d);
      if (dv != v) deps_.push_back(dv);
    };
    // The members are a list: fetch ahead of the walk down it.
    std::vector<const Expr*> members = set_.Nodes(static_cast<RegionId>(v >> 1));
    constexpr size_t kAhead = 32;
    for (size_t i = 0; i < members.size(); ++i) {
      if (i + kAhead < members.size()) __builtin_prefetch(members[i + kAhead]);
      ForEachDependency(members[i], set_.lets(), add);
    }
  }

  bool HasDeps(const Expr* atom) const {
    const Var* var = DynCast<Var>(atom);
    return var != nullptr && set_.lets().ValueOf(var) != nullptr;
  }

  const AnnotatedRegionSet& set_;
  std::vector<uint8_t> region_color_;
  std::vector<const Expr*> marked_;
  std::vector<Frame> stack_;
  std::vector<Vertex> deps_;
};

}  // namespace

bool HasRegionCycle(const AnnotatedRegionSet& set) {
  if (set.size() == 0) return false;
  return CycleTest(set).Run();
}

}  // namespace carve
