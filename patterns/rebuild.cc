#include "patterns/rebuild.h"

#include <vector>

#include "ir/rebuild.h"
#include "ir/visit.h"
#include "patterns/graph.h"

namespace carve {

const Expr* RebuildNode(const Expr* e, absl::FunctionRef<const Expr*(const Expr*)> map,
                        IRBuilder& builder) {
  return RebuildMapped(builder, e, map);
}

GraphRebuilder::GraphRebuilder(const IndexedGraph& graph, IRBuilder& builder)
    : graph_(graph),
      builder_(builder),
      out_(graph.nodes().begin(), graph.nodes().end()),
      changed_(graph.size(), 0) {}

GraphRebuilder::GraphRebuilder(const IndexedGraph& graph, IRBuilder& builder,
                               std::vector<const Expr*> nodes)
    : graph_(graph),
      builder_(builder),
      out_(std::move(nodes)),
      taken_(true),
      changed_(graph.size(), 0) {}

void GraphRebuilder::Set(uint32_t i, const Expr* e) {
  if (e == out_[i]) return;
  changed_[i] = e != Original(i);
  out_[i] = e;
  changed_any_ |= changed_[i];
}

const Expr* GraphRebuilder::Mapped(const Expr* e) const {
  uint32_t i = graph_.IndexOf(e);
  return i == IndexedGraph::kNone ? e : out_[i];
}

// Inputs cover every child of calls, tuples, projections and ifs, the body
// of functions and lets; a let's value is its variable's input.
bool GraphRebuilder::ChildrenChanged(uint32_t i, const Expr* e) const {
  for (uint32_t in : graph_.inputs(i)) {
    if (changed_[in]) return true;
  }
  // The kind from the graph's dense array: a node that is kept is not read.
  if (graph_.kind(i) != ExprKind::kLet) return false;
  if (const auto* let = DynCast<Let>(e)) {
    uint32_t var = graph_.IndexOf(let->var());
    if (var != IndexedGraph::kNone) {
      for (uint32_t in : graph_.inputs(var)) {
        if (changed_[in]) return true;
      }
    }
  }
  return false;
}

// The root function over its body's current version, its parameters found
// by index (a large main has a parameter per weight: no lookups), as
// RebuildNode would: a parameter whose version is not a Var stays.
const Expr* GraphRebuilder::RebuildRootFunction(const Function* fn, uint32_t body) {
  auto param = [&](size_t k) {
    const Var* mapped = DynCast<Var>(out_[graph_.root_params()[k]]);
    return mapped != nullptr ? mapped : fn->params()[k];
  };
  size_t n = fn->params().size();
  size_t first = 0;  // the first changed parameter (usually none: no copy)
  while (first < n && param(first) == fn->params()[first]) ++first;
  if (first == n) {
    if (out_[body] == fn->body()) return fn;
    // The new function shares the old one's parameter and type parameter
    // arrays (as it shares its unchanged nodes): no copy of a large main's
    // parameter list per partition.
    return builder_.MakeFunctionWithParamsOf(fn, out_[body], fn->ret_type(), fn->attrs(),
                                             fn->span());
  }
  std::vector<const Var*> params(fn->params().begin(), fn->params().begin() + first);
  params.reserve(n);
  for (size_t k = first; k < n; ++k) params.push_back(param(k));
  return builder_.MakeFunction(params, out_[body], fn->ret_type(), fn->attrs(), fn->type_params(),
                               fn->span(), fn->virtual_device());
}

const Expr* GraphRebuilder::Rebuild(uint32_t i) {
  const Expr* e = Original(i);
  if (!changed_any_ || !ChildrenChanged(i, e)) return e;
  auto inputs = graph_.inputs(i);
  const Expr* r = nullptr;
  scratch_.clear();
  for (uint32_t in : inputs) scratch_.push_back(out_[in]);
  // Calls, tuples and projections: the graph's inputs are exactly their
  // children, no lookup.
  ExprKind kind = e->kind();
  if ((kind == ExprKind::kCall || kind == ExprKind::kTuple || kind == ExprKind::kTupleGetItem) &&
      inputs.size() == NumChildren(e)) {
    r = RebuildWithChildren(builder_, e, scratch_);
  } else if (const auto* fn = DynCast<Function>(e);
             fn && i == graph_.root() && inputs.size() == 1 &&
             graph_.root_params().size() == fn->params().size()) {
    r = RebuildRootFunction(fn, inputs[0]);
    r->set_checked_type(e->checked_type());
  } else {
    // Functions, lets, ifs and nodes with recursive references: by lookup.
    r = RebuildNode(
        e, [this](const Expr* c) { return Mapped(c); }, builder_);
  }
  Set(i, r);
  return r;
}

}  // namespace carve
