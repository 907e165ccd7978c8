#include "patterns/rebuild.h"

#include <vector>

#include "patterns/graph.h"

namespace carve {
namespace {

const Var* MapVar(const Var* v, absl::FunctionRef<const Expr*(const Expr*)> map) {
  const Var* mapped = DynCast<Var>(map(v));
  return mapped != nullptr ? mapped : v;
}

const Expr* RebuildChanged(const Expr* e, absl::FunctionRef<const Expr*(const Expr*)> map,
                           IRBuilder& b, bool& changed) {
  auto m = [&](const Expr* c) {
    const Expr* r = map(c);
    changed |= r != c;
    return r;
  };
  switch (e->kind()) {
    case ExprKind::kCall: {
      const auto* c = Cast<Call>(e);
      const Expr* callee = m(c->callee());
      std::vector<const Expr*> args;
      args.reserve(c->args().size());
      for (const Expr* a : c->args()) args.push_back(m(a));
      return changed ? b.MakeCall(callee, args, c->attrs(), c->span()) : e;
    }
    case ExprKind::kTuple: {
      std::vector<const Expr*> fields;
      for (const Expr* f : Cast<Tuple>(e)->fields()) fields.push_back(m(f));
      return changed ? b.MakeTuple(fields, e->span()) : e;
    }
    case ExprKind::kTupleGetItem: {
      const auto* g = Cast<TupleGetItem>(e);
      const Expr* t = m(g->tuple());
      return changed ? b.MakeTupleGetItem(t, g->index(), g->span()) : e;
    }
    case ExprKind::kLet: {
      const auto* l = Cast<Let>(e);
      const Var* var = MapVar(l->var(), map);
      changed |= var != l->var();
      const Expr* value = m(l->value());
      const Expr* body = m(l->body());
      return changed ? b.MakeLet(var, value, body, l->span()) : e;
    }
    case ExprKind::kIf: {
      const auto* i = Cast<If>(e);
      const Expr* c = m(i->cond());
      const Expr* t = m(i->then_branch());
      const Expr* f = m(i->else_branch());
      return changed ? b.MakeIf(c, t, f, i->span()) : e;
    }
    case ExprKind::kFunction: {
      const auto* fn = Cast<Function>(e);
      std::vector<const Var*> params;
      for (const Var* p : fn->params()) {
        params.push_back(MapVar(p, map));
        changed |= params.back() != p;
      }
      const Expr* body = m(fn->body());
      return changed ? b.MakeFunction(params, body, fn->ret_type(), fn->attrs(), fn->type_params(),
                                      fn->span())
                     : e;
    }
    default:
      return e;
  }
}

}  // namespace

const Expr* RebuildNode(const Expr* e, absl::FunctionRef<const Expr*(const Expr*)> map,
                        IRBuilder& builder) {
  bool changed = false;
  const Expr* out = RebuildChanged(e, map, builder, changed);
  if (out != e) out->set_checked_type(e->checked_type());
  return out;
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
                               fn->span());
}

const Expr* GraphRebuilder::Rebuild(uint32_t i) {
  const Expr* e = Original(i);
  if (!changed_any_ || !ChildrenChanged(i, e)) return e;
  auto inputs = graph_.inputs(i);
  const Expr* r = nullptr;
  scratch_.clear();
  for (uint32_t in : inputs) scratch_.push_back(out_[in]);
  if (const auto* call = DynCast<Call>(e); call && inputs.size() == call->args().size() + 1) {
    r = builder_.MakeCall(scratch_[0], std::span<const Expr* const>(scratch_).subspan(1),
                          call->attrs(), call->span());
  } else if (const auto* tuple = DynCast<Tuple>(e);
             tuple && inputs.size() == tuple->fields().size()) {
    r = builder_.MakeTuple(scratch_, e->span());
  } else if (const auto* get = DynCast<TupleGetItem>(e); get && inputs.size() == 1) {
    r = builder_.MakeTupleGetItem(out_[inputs[0]], get->index(), get->span());
  } else if (const auto* fn = DynCast<Function>(e);
             fn && i == graph_.root() && inputs.size() == 1 &&
             graph_.root_params().size() == fn->params().size()) {
    r = RebuildRootFunction(fn, inputs[0]);
  } else {
    // Functions, lets, ifs and nodes with recursive references: by lookup.
    r = RebuildNode(
        e, [this](const Expr* c) { return Mapped(c); }, builder_);
  }
  r->set_checked_type(e->checked_type());
  Set(i, r);
  return r;
}

}  // namespace carve
