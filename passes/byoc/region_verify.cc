#include "passes/byoc/region_verify.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
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
      : set_(set), root_(root), lets_(set.lets()) {
    if (root == set.root()) return;  // the set recorded the lets of this root
    PostOrderVisit(root, [this](const Expr* e) {
      if (const Let* let = DynCast<Let>(e)) own_lets_.Record(let);
    });
    lets_ = own_lets_;
  }

  std::optional<std::string> Find() {
    struct Frame {
      Vertex v;
      std::vector<Vertex> deps;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    stack.push_back({VertexOf(root_), Deps(VertexOf(root_))});
    color_[stack.back().v] = kGray;
    // Every region must be reached: regions need not be upstream of the root
    // (a let-bound region nobody reads), so each one seeds a search too.
    std::vector<Vertex> seeds;
    for (RegionId r : set_.RegionIds()) {
      if (Counts(r)) seeds.push_back(RegionVertex(r));
    }
    size_t next_seed = 0;
    while (true) {
      if (stack.empty()) {
        while (next_seed < seeds.size() && color_[seeds[next_seed]] != kWhite) ++next_seed;
        if (next_seed == seeds.size()) return std::nullopt;
        Vertex s = seeds[next_seed];
        color_[s] = kGray;
        stack.push_back({s, Deps(s)});
      }
      Frame& top = stack.back();
      if (top.next == top.deps.size()) {
        color_[top.v] = kBlack;
        stack.pop_back();
        continue;
      }
      Vertex d = top.deps[top.next++];
      uint8_t c = color_[d];
      if (c == kGray) {
        std::vector<Vertex> cycle;
        auto it = std::find_if(stack.begin(), stack.end(), [&](const Frame& f) { return f.v == d; });
        for (; it != stack.end(); ++it) cycle.push_back(it->v);
        return Describe(cycle);
      }
      if (c == kWhite) {
        color_[d] = kGray;
        stack.push_back({d, Deps(d)});
      }
    }
  }

 private:
  enum : uint8_t { kWhite = 0, kGray = 1, kBlack = 2 };

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

  // The producers of a vertex; for a region, those of its members that lie
  // outside it.
  std::vector<Vertex> Deps(Vertex v) const {
    std::vector<Vertex> out;
    if (!IsRegionVertex(v)) {
      ForEachDependency(reinterpret_cast<const Expr*>(v), lets_,
                        [&](const Expr* d) { out.push_back(VertexOf(d)); });
      return out;
    }
    RegionId r = static_cast<RegionId>(v >> 1);
    for (const Expr* member : set_.Nodes(r)) {
      ForEachDependency(member, lets_, [&](const Expr* d) {
        Vertex dv = VertexOf(d);
        if (dv != v) out.push_back(dv);
      });
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
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
  absl::flat_hash_map<Vertex, uint8_t> color_;
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
