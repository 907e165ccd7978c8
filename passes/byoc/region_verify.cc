#include "passes/byoc/region_verify.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "fmt/format.h"
#include "ir/address_map.h"
#include "ir/post_order.h"
#include "passes/byoc/annotation.h"
#include "passes/byoc/dataflow_deps.h"
#include "support/source.h"
#include "support/status_macros.h"

namespace carve {
namespace {

using RegionId = AnnotatedRegionSet::RegionId;

// A vertex of the graph with every region contracted to one vertex: a region
// (tagged id) or a node outside regions.
using Vertex = uintptr_t;
Vertex NodeVertex(const Expr* e) { return reinterpret_cast<Vertex>(e); }
Vertex RegionVertex(RegionId r) { return (static_cast<Vertex>(r) << 1) | 1; }
bool IsRegionVertex(Vertex v) { return v & 1; }

class CycleFinder {
 public:
  CycleFinder(const AnnotatedRegionSet& set, const Expr* root)
      : set_(set), root_(root), lets_(set.lets()), region_color_(set.NumRegionIds(), kWhite) {
    if (root == set.root()) return;  // the set recorded the lets of this root
    PostOrderVisit(root, [this](const Expr* e) {
      if (const Let* let = DynCast<Let>(e)) own_lets_.Record(let);
    });
    lets_ = own_lets_;
  }

  std::optional<std::string> Find() {
    if (Search(VertexOf(root_))) return Describe(cycle_);
    // Every region must be reached: regions need not be upstream of the root
    // (a let-bound region nobody reads), so each one seeds a search too.
    for (RegionId r : set_.RegionIds()) {
      if (Counts(r) && Search(RegionVertex(r))) return Describe(cycle_);
    }
    return std::nullopt;
  }

 private:
  enum : uint8_t { kWhite = 0, kGray = 1, kBlack = 2 };

  // Depth-first search from `v` over the white vertices, from consumers to
  // producers; true when it reaches a gray vertex (entered, not left: on
  // the current path, kept in path_), a cycle, then in cycle_. A cancelled
  // search says false (the caller's result is discarded).
  bool Search(Vertex v) {
    absl::Status walked = WalkPostOrder(
        v,
        [&](Vertex u) {
          if (!cycle_.empty()) return false;
          uint8_t& c = Color(u);
          if (c == kGray) cycle_.assign(std::find(path_.begin(), path_.end(), u), path_.end());
          if (c != kWhite) return false;
          c = kGray;
          path_.push_back(u);
          return true;
        },
        [&](Vertex u, auto push) { ForEachDep(u, push); },
        [&](Vertex u) {
          Color(u) = kBlack;
          path_.pop_back();
        });
    return walked.ok() && !cycle_.empty();
  }

  uint8_t& Color(Vertex v) {
    if (IsRegionVertex(v)) return region_color_[v >> 1];
    return node_color_[reinterpret_cast<const void*>(v)];
  }

  // Regions of the default target are not vertices: PartitionGraph drops
  // their annotations (RemoveDefaultAnnotations) and their nodes stay in the
  // caller, so a path through one is a path through plain nodes. Counting
  // them made --verify-each report cycles the flow does not have (a default
  // region feeding an if whose branch is offloaded, and reading the if).
  bool Counts(RegionId r) const { return set_.Target(r) != kDefaultTarget; }

  Vertex VertexOf(const Expr* e) const {
    RegionId r = set_.GetRegion(e);
    return r == AnnotatedRegionSet::kNoRegion || !Counts(r) ? NodeVertex(e) : RegionVertex(r);
  }

  // Calls f on the producers of a vertex; for a region, those of its
  // members that lie outside it, sorted, so that the cycle found (and
  // described) does not depend on the order of the members. Atoms that are
  // not let-bound depend on nothing and are left out (they cannot be on a
  // cycle).
  template <typename F>
  void ForEachDep(Vertex v, F&& f) {
    auto counts = [&](const Expr* d) {
      if (!d->is_atom()) return true;
      const Var* var = DynCast<Var>(d);
      return var != nullptr && lets_.get().ValueOf(var) != nullptr;
    };
    if (!IsRegionVertex(v)) {
      ForEachDependency(reinterpret_cast<const Expr*>(v), lets_, [&](const Expr* d) {
        if (counts(d)) f(VertexOf(d));
      });
      return;
    }
    std::vector<Vertex> deps;
    for (const Expr* member : set_.Nodes(static_cast<RegionId>(v >> 1))) {
      ForEachDependency(member, lets_, [&](const Expr* d) {
        Vertex dv = counts(d) ? VertexOf(d) : v;
        if (dv != v) deps.push_back(dv);
      });
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (Vertex d : deps) f(d);
  }

  // The search walks from consumers to producers; the message reads in
  // dataflow order, producer first, starting at the lowest region id.
  std::string Describe(std::vector<Vertex> cycle) const {
    std::reverse(cycle.begin(), cycle.end());
    auto first = std::min_element(cycle.begin(), cycle.end(), [](Vertex a, Vertex b) {
      if (IsRegionVertex(a) != IsRegionVertex(b)) return IsRegionVertex(a);
      return a < b;
    });
    std::rotate(cycle.begin(), first, cycle.end());
    std::vector<std::string> parts;
    for (Vertex v : cycle) {
      // The annotations of default regions (plain nodes here) say nothing.
      if (!IsRegionVertex(v) && IsCompilerAnnotation(reinterpret_cast<const Expr*>(v))) continue;
      parts.push_back(DescribeVertex(v));
    }
    parts.push_back(DescribeVertex(cycle.front()));
    return fmt::format("{}", fmt::join(parts, " -> "));
  }

  std::string DescribeVertex(Vertex v) const {
    if (!IsRegionVertex(v)) return DescribeNode(reinterpret_cast<const Expr*>(v));
    RegionId r = static_cast<RegionId>(v >> 1);
    return fmt::format("region {} ({})", r, set_.Target(r));
  }

  const AnnotatedRegionSet& set_;
  const Expr* root_;
  LetBindings own_lets_;
  std::reference_wrapper<const LetBindings> lets_;
  std::vector<uint8_t> region_color_;
  AddressMap<uint8_t> node_color_;
  std::vector<Vertex> path_;   // the gray vertices, in the order entered
  std::vector<Vertex> cycle_;  // the cycle found, from consumer to producer
};

bool HasAnnotations(const Function* fn) {
  bool found = false;
  PostOrderVisit(fn, [&](const Expr* e) { found = found || IsCompilerAnnotation(e); });
  return found;
}

}  // namespace

std::optional<std::string> FindRegionCycle(const AnnotatedRegionSet& set, const Expr* root) {
  if (set.size() == 0) return std::nullopt;
  return CycleFinder(set, root).Find();
}

absl::Status VerifyRegionsAcyclic(const Module& mod) {
  for (const auto& [gv, fn] : mod.Functions()) {
    if (!HasAnnotations(fn)) continue;
    CARVE_ASSIGN_OR_RETURN(AnnotatedRegionSet set, AnnotatedRegionSet::Create(fn));
    if (std::optional<std::string> cycle = FindRegionCycle(set, fn)) {
      return absl::FailedPreconditionError(
          fmt::format("@{}: annotated regions depend on each other: {}", gv->name(), *cycle));
    }
  }
  return absl::OkStatus();
}

std::string DescribeNode(const Expr* e) {
  std::string what;
  switch (e->kind()) {
    case ExprKind::kCall: {
      auto* call = Cast<Call>(e);
      if (call->op() != nullptr) {
        what = std::string(call->op()->name);
      } else if (auto* gv = DynCast<GlobalVar>(call->callee())) {
        what = fmt::format("call of @{}", gv->name());
      } else if (auto* var = DynCast<Var>(call->callee())) {
        what = fmt::format("call of %{}", var->name());
      } else {
        std::string_view composite = CompositeName(call);
        what = composite.empty() ? "call" : fmt::format("composite {}", composite);
      }
      break;
    }
    case ExprKind::kVar: what = fmt::format("%{}", Cast<Var>(e)->name()); break;
    case ExprKind::kGlobalVar: what = fmt::format("@{}", Cast<GlobalVar>(e)->name()); break;
    case ExprKind::kConstant: what = "constant"; break;
    case ExprKind::kOp: what = std::string(Cast<OpExpr>(e)->name()); break;
    case ExprKind::kTuple: what = "tuple"; break;
    case ExprKind::kTupleGetItem:
      what = fmt::format("projection .{}", Cast<TupleGetItem>(e)->index());
      break;
    case ExprKind::kLet: what = fmt::format("let %{}", Cast<Let>(e)->var()->name()); break;
    case ExprKind::kIf: what = "if"; break;
    case ExprKind::kFunction: what = "fn"; break;
  }
  Span span = e->span();
  if (const SourceFile* file = SourceManager::Global().Get(span.file)) {
    LineCol at = file->Resolve(span.begin);
    what += fmt::format(" at {}:{}:{}", file->name(), at.line, at.column);
  }
  return what;
}

}  // namespace carve
