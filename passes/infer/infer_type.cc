// The module driver of InferType: global signatures first, then bodies.
#include "passes/infer/infer_type.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/infer/infer_expr.h"
#include "support/status_macros.h"

namespace carve {
namespace {

bool ContainsIncomplete(const Type* t) {
  switch (t->kind()) {
    case TypeKind::kIncomplete:
      return true;
    case TypeKind::kRef:
      return ContainsIncomplete(static_cast<const RefType*>(t)->value());
    case TypeKind::kTypeCall:
      for (const Type* a : static_cast<const TypeCall*>(t)->args()) {
        if (ContainsIncomplete(a)) return true;
      }
      return false;
    case TypeKind::kTuple:
      for (const Type* f : static_cast<const TupleType*>(t)->fields()) {
        if (ContainsIncomplete(f)) return true;
      }
      return false;
    case TypeKind::kFunc: {
      auto* ft = static_cast<const FuncType*>(t);
      if (ContainsIncomplete(ft->ret())) return true;
      for (const Type* p : ft->params()) {
        if (ContainsIncomplete(p)) return true;
      }
      return false;
    }
    default:
      return false;
  }
}

// The signature `fn` declares when every parameter and the return type are
// annotated; nullptr when its type must come from its body.
const Type* DeclaredSignature(const Function* fn) {
  if (fn->ret_type() == nullptr || ContainsIncomplete(fn->ret_type())) return nullptr;
  std::vector<const Type*> params;
  params.reserve(fn->params().size());
  for (const Var* p : fn->params()) {
    if (p->annotation() == nullptr || ContainsIncomplete(p->annotation())) return nullptr;
    params.push_back(p->annotation());
  }
  return FuncTy(params, fn->ret_type(), fn->type_params());
}

using Graph = std::vector<std::vector<uint32_t>>;

// Strongly connected components of `graph` (Tarjan's algorithm with an
// explicit stack), each emitted after every component it reaches: callees
// before callers.
std::vector<std::vector<uint32_t>> StronglyConnected(const Graph& graph) {
  constexpr uint32_t kUnvisited = UINT32_MAX;
  size_t n = graph.size();
  std::vector<uint32_t> index(n, kUnvisited), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<uint32_t> component_stack;
  std::vector<std::pair<uint32_t, size_t>> calls;  // (node, next edge)
  std::vector<std::vector<uint32_t>> out;
  uint32_t counter = 0;
  auto open = [&](uint32_t v) {
    index[v] = low[v] = counter++;
    component_stack.push_back(v);
    on_stack[v] = true;
    calls.emplace_back(v, 0);
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnvisited) continue;
    open(root);
    while (!calls.empty()) {
      auto& [v, next] = calls.back();
      if (next < graph[v].size()) {
        uint32_t w = graph[v][next++];
        if (index[w] == kUnvisited) {
          open(w);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      uint32_t done = v;
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[done]);
      if (low[done] != index[done]) continue;
      std::vector<uint32_t> component;
      uint32_t w;
      do {
        w = component_stack.back();
        component_stack.pop_back();
        on_stack[w] = false;
        component.push_back(w);
      } while (w != done);
      out.push_back(std::move(component));
    }
  }
  return out;
}

using FunctionList = std::vector<std::pair<const GlobalVar*, const Function*>>;

// Which of the `inferred` functions each of them refers to (edges by
// position in `inferred`).
Graph ReferenceGraph(const FunctionList& fns, const std::vector<uint32_t>& inferred) {
  absl::flat_hash_map<std::string_view, uint32_t> position;
  for (uint32_t k = 0; k < inferred.size(); ++k) position[fns[inferred[k]].first->name()] = k;
  Graph graph(inferred.size());
  for (uint32_t k = 0; k < inferred.size(); ++k) {
    PostOrderVisit(fns[inferred[k]].second, [&](const Expr* e) {
      auto* gv = DynCast<GlobalVar>(e);
      if (gv == nullptr) return;
      auto it = position.find(gv->name());
      if (it != position.end()) graph[k].push_back(it->second);
    });
  }
  return graph;
}

// Types `fn`, adding it to `unannotated` (when given) if the typer met a
// node below it without the annotation FillMissingTypeAnnotations writes.
const Type* RunOn(ExprTyper& typer, const Function* fn, UnannotatedFunctions* unannotated) {
  const Type* t = typer.Run(fn);
  if (unannotated != nullptr && typer.met_unannotated()) unannotated->insert(fn);
  return t;
}

bool IsRecursive(const Graph& graph, const std::vector<uint32_t>& component) {
  if (component.size() > 1) return true;
  const auto& edges = graph[component.front()];
  return std::find(edges.begin(), edges.end(), component.front()) != edges.end();
}

void ReportRecursive(const GlobalVar* gv, const Function* fn, DiagnosticEngine& diags) {
  diags.Error(fn->span(), fmt::format("cannot infer the return type of recursive @{}: add a "
                                      "return type annotation",
                                      gv->name()));
}

// Types the one function without a full signature. Its body is the only one
// that can meet its unknown signature, and doing so means it is recursive:
// no reference scan is needed, which keeps the common case (a @main written
// without `-> R`) to a single traversal.
void InferOneSignature(const GlobalVar* gv, const Function* fn, GlobalSignatures& env,
                       ExprTyper& typer, DiagnosticEngine& diags,
                       UnannotatedFunctions* unannotated) {
  const Type* t = RunOn(typer, fn, unannotated);
  const auto& unknown = typer.unknown_globals();
  if (std::find(unknown.begin(), unknown.end(), gv->name()) != unknown.end()) {
    ReportRecursive(gv, fn, diags);
    t = TypeUnifier::Poison();
  }
  env.types[gv->name()] = t;
}

// Types the functions without a full signature, callees first, recording
// their inferred signatures in `env` for the functions typed after them.
void InferSignatures(const FunctionList& fns, const std::vector<uint32_t>& inferred,
                     GlobalSignatures& env, ExprTyper& typer, DiagnosticEngine& diags,
                     UnannotatedFunctions* unannotated) {
  if (inferred.size() == 1) {
    return InferOneSignature(fns[inferred[0]].first, fns[inferred[0]].second, env, typer, diags,
                             unannotated);
  }
  Graph graph = ReferenceGraph(fns, inferred);
  for (const std::vector<uint32_t>& component : StronglyConnected(graph)) {
    bool recursive = IsRecursive(graph, component);
    for (uint32_t k : component) {
      auto [gv, fn] = fns[inferred[k]];
      if (!recursive) continue;
      ReportRecursive(gv, fn, diags);
      env.types[gv->name()] = TypeUnifier::Poison();
    }
    for (uint32_t k : component) {
      auto [gv, fn] = fns[inferred[k]];
      const Type* t = RunOn(typer, fn, unannotated);
      if (!recursive) env.types[gv->name()] = t;
    }
  }
}

// All diagnostics in source order (span-less ones, such as the error limit,
// last), whatever order the functions were typed in.
absl::Status SortedStatus(const DiagnosticEngine& engine) {
  std::vector<Diagnostic> diags = engine.diagnostics();
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    auto key = [](const Span& s) { return std::make_tuple(!s.valid(), s.file, s.begin); };
    return key(a.span) < key(b.span);
  });
  return DiagnosticsToStatus(diags);
}

}  // namespace

absl::Status InferType(Module& mod) { return InferType(mod, nullptr); }

absl::Status InferType(Module& mod, UnannotatedFunctions* unannotated) {
  DiagnosticEngine diags;
  GlobalSignatures env;
  env.has_module = true;
  env.module = &mod;
  env.defer_unknown = true;  // only a recursive function meets an unknown signature
  FunctionList fns = mod.Functions();
  std::vector<uint32_t> inferred;
  for (uint32_t k = 0; k < fns.size(); ++k) {
    const Type* signature = DeclaredSignature(fns[k].second);
    env.types[fns[k].first->name()] = signature;
    if (signature == nullptr) inferred.push_back(k);
  }
  ExprTyper typer(env, diags);
  if (!inferred.empty()) InferSignatures(fns, inferred, env, typer, diags, unannotated);
  for (uint32_t k = 0; k < fns.size(); ++k) {
    if (!std::binary_search(inferred.begin(), inferred.end(), k)) {
      RunOn(typer, fns[k].second, unannotated);
    }
  }
  return SortedStatus(diags);
}

absl::StatusOr<const Type*> InferExprType(const Expr* e, const Module* mod) {
  DiagnosticEngine diags;
  GlobalSignatures env;
  if (mod != nullptr) {
    env.has_module = true;
    env.module = mod;
    for (const auto& [gv, fn] : mod->Functions()) {
      const Type* signature = DeclaredSignature(fn);
      // A previous InferType(mod) leaves complete types only.
      if (signature == nullptr) signature = DynCast<FuncType>(fn->checked_type());
      env.types[gv->name()] = signature;
    }
  }
  ExprTyper typer(env, diags);
  const Type* t = typer.Run(e);
  CARVE_RETURN_IF_ERROR(SortedStatus(diags));
  return t;
}

}  // namespace carve
