#include "backends/partition.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "backends/backend.h"
#include "backends/partition_optimize.h"
#include "backends/specs.h"
#include "fmt/format.h"
#include "interpreter/function_info.h"
#include "interpreter/kernel.h"
#include "ir/adt.h"
#include "ir/visit.h"
#include "passes/byoc/annotate_target.h"
#include "passes/byoc/annotation.h"
#include "passes/fold/fold_constant.h"
#include "ir/rebuild.h"
#include "passes/infer/infer_type.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "passes/byoc/partition_graph.h"
#include "passes/byoc/partition_report.h"
#include "passes/pass_registry.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// What TVM v0.16 does to a region inside a match clause
// (src/relay/transforms/annotate_target.cc has no rule for Match).
constexpr const char* kUnclosedClauseText =
    "TVM v0.16's AnnotateTarget has no rule for `match`: it never ends a region at a clause's "
    "result (it does for if branches), so PartitionGraph leaves the clause reading the region's "
    "value as a free variable and the region's ops in a partition nothing calls";

absl::StatusOr<std::vector<NDArray>> EvaluateConstantCall(const Call* call,
                                                          std::span<const NDArray> args) {
  const OpInfo* op = call->op();
  KernelFn fn = op != nullptr ? FindKernel(op->name) : nullptr;
  if (fn == nullptr) return absl::UnimplementedError("no kernel");
  KernelContext ctx;
  ctx.op = op;
  ctx.inputs = args;
  ctx.attrs = call->attrs();
  ctx.out_type = call->checked_type();
  return fn(ctx);
}

}  // namespace

void EnsureConstantEvaluator() {
  if (GetConstantEvaluator() == nullptr) SetConstantEvaluator(EvaluateConstantCall);
}

namespace {

// "Some(...)", "Nil", "_", "%x", "(...)": a clause's pattern, short.
std::string ClauseText(const AdtPattern* p) {
  switch (p->kind()) {
    case AdtPattern::Kind::kWildcard: return "_";
    case AdtPattern::Kind::kVar: return fmt::format("%{}", p->var()->name());
    case AdtPattern::Kind::kTuple: return "(...)";
    case AdtPattern::Kind::kConstructor:
      return fmt::format("{}{}", p->constructor()->name(), p->fields().empty() ? "" : "(...)");
  }
  return "_";
}

// A free variable of a partitioned @main and where TVM's flow left it.
struct UnboundInput {
  std::string text;  // "%dnnl_0_i0 (the value of let %a)"
  bool let = false;     // the value of a let
  bool clause = false;  // read inside a match clause
};

std::vector<UnboundInput> UnboundInputs(const Module& mod) {
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return {};
  std::vector<const Var*> unbound = FreeVars(main);
  if (unbound.empty()) return {};
  absl::flat_hash_set<const Var*> free_set(unbound.begin(), unbound.end());
  absl::flat_hash_map<const Var*, const Var*> let_of;  // free variable -> the let it feeds
  // Free variable -> the innermost match clause reading it (post-order
  // visits an inner match first).
  absl::flat_hash_map<const Var*, std::string> clause_of;
  PostOrderVisit(main->body(), [&](const Expr* e) {
    if (const Match* match = DynCast<Match>(e)) {
      for (const Clause& c : match->clauses()) {
        PostOrderVisit(c.rhs, [&](const Expr* x) {
          const Var* v = DynCast<Var>(x);
          if (v != nullptr && free_set.contains(v)) clause_of.try_emplace(v, ClauseText(c.lhs));
        });
      }
    }
    const Let* let = DynCast<Let>(e);
    const Var* v = let != nullptr ? DynCast<Var>(let->value()) : nullptr;
    if (v != nullptr) let_of.emplace(v, let->var());
  });
  std::vector<UnboundInput> free;
  for (const Var* v : unbound) {
    UnboundInput in{fmt::format("%{}", v->name())};
    if (auto it = let_of.find(v); it != let_of.end()) {
      in.text += fmt::format(" (the value of let %{})", it->second->name());
      in.let = true;
    } else if (auto c = clause_of.find(v); c != clause_of.end()) {
      in.text += fmt::format(" (read in the match clause {})", c->second);
      in.clause = true;
    }
    free.push_back(std::move(in));
  }
  return free;
}

}  // namespace

std::vector<std::string> UnboundInputsOfMain(const Module& mod) {
  std::vector<std::string> out;
  for (UnboundInput& in : UnboundInputs(mod)) out.push_back(std::move(in.text));
  return out;
}

absl::Status CheckRunnablePartition(const Module& mod) {
  std::vector<UnboundInput> free = UnboundInputs(mod);
  if (free.empty()) return absl::OkStatus();
  std::string list;
  bool clauses = false;
  for (const UnboundInput& f : free) {
    list += (list.empty() ? "" : ", ") + f.text;
    clauses = clauses || f.clause;
  }
  if (clauses) {
    return absl::FailedPreconditionError(fmt::format(
        "the partitioned @main reads {} that nothing binds, so it cannot run: {} (carve "
        "partition prints the same module as TVM); compute those values outside the match to "
        "compare this backend",
        list, kUnclosedClauseText));
  }
  return absl::FailedPreconditionError(fmt::format(
      "the partitioned @main reads {} that nothing binds, so it cannot run: TVM v0.16's "
      "AnnotateTarget marks a let-bound value as the start of a region but never ends it, and "
      "PartitionGraph leaves that region's input as a free variable (carve partition prints the "
      "same module as TVM); write the value without `let` (as a dataflow graph, %0 = ...) to "
      "compare this backend",
      list));
}

namespace {

// Operator calls that run: in @main and in the global functions it calls,
// composite bodies included (annotations are no ops).
std::map<std::string, int> OpsThatRun(const Module& mod) {
  std::map<std::string, int> ops;
  for (const Function* fn : ReachableFromMain(mod)) {
    PostOrderVisit(fn, [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      if (call != nullptr && call->op() != nullptr && !IsCompilerAnnotation(call)) {
        ++ops[std::string(call->op()->name)];
      }
    });
  }
  return ops;
}

}  // namespace

absl::StatusOr<std::optional<LetBoundLoss>> FindLetBoundLoss(
    const Module& input, const Module& partitioned, const std::vector<TargetSpecPtr>& backends,
    const BackendPartitionOptions& options) {
  LetBoundLoss loss;
  for (UnboundInput& in : UnboundInputs(partitioned)) {
    loss.in_lets = loss.in_lets || in.let;
    loss.in_clauses = loss.in_clauses || in.clause;
    loss.free_inputs.push_back(std::move(in.text));
  }
  if (loss.free_inputs.empty()) return std::optional<LetBoundLoss>();
  Module graph = input;
  graph.Add("main", InlineLets(graph.Lookup("main"), graph.arena()));
  CARVE_RETURN_IF_ERROR(InferType(graph));
  CARVE_ASSIGN_OR_RETURN(Module full, PartitionForBackends(graph, backends, options));
  std::map<std::string, int> ran = OpsThatRun(partitioned);
  for (const auto& [name, n] : OpsThatRun(full)) {
    int missing = n - ran[name];
    if (missing > 0) loss.ops[name] = missing;
  }
  // A region in a match clause stays unclosed in the graph-normal form too:
  // its ops are those of the partitions nothing calls.
  absl::flat_hash_set<const Function*> reached = ReachableFromMain(partitioned);
  std::map<std::string, int> unreached;
  for (const auto& [gv, fn] : partitioned.Functions()) {
    if (!fn->HasAttr(attr::kCompiler) || reached.contains(fn)) continue;
    PostOrderVisit(fn, [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      if (call != nullptr && call->op() != nullptr && !IsCompilerAnnotation(call)) {
        ++unreached[std::string(call->op()->name)];
      }
    });
  }
  for (const auto& [name, n] : unreached) loss.ops[name] = std::max(loss.ops[name], n);
  return std::optional<LetBoundLoss>(std::move(loss));
}

std::string LetBoundLossWarning(const LetBoundLoss& loss, std::string_view backends) {
  std::string ops = fmt::format("{} op{} never run after partitioning ({})", loss.total(),
                                loss.total() == 1 ? "" : "s",
                                loss.ops.empty() ? "none counted" : loss.OpsText());
  std::string lets = fmt::format(
      "run ToGraphNormalForm first: carve opt FILE -p ToGraphNormalForm | carve partition - "
      "--backend {}",
      backends);
  if (!loss.in_clauses) {
    return fmt::format(
        "carve: warning: {}: TVM v0.16's AnnotateTarget starts a region at a let-bound value "
        "and never ends it, so @main reads {} that nothing binds; {}\n",
        ops, loss.FreeInputsText(), lets);
  }
  return fmt::format(
      "carve: warning: {}: @main reads {} that nothing binds: {}; compute those values outside "
      "the match (no pass of TVM's moves them){}\n",
      ops, loss.FreeInputsText(), kUnclosedClauseText,
      loss.in_lets ? fmt::format("; for the let-bound values, {}", lets) : "");
}

absl::StatusOr<std::vector<TargetSpecPtr>> ResolveBackends(std::string_view names) {
  std::vector<TargetSpecPtr> out;
  size_t start = 0;
  while (start <= names.size()) {
    size_t comma = names.find(',', start);
    if (comma == std::string_view::npos) comma = names.size();
    std::string_view name = names.substr(start, comma - start);
    start = comma + 1;
    // `dnnl,` or `,`: a name lost in editing, not one to skip (the flow
    // would run for a list nobody wrote).
    if (name.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}' has an empty backend name (known: {})", names, fmt::join(BuiltinBackendNames(), ", ")));
    }
    if (TargetSpecPtr registered = TargetRegistry::Global().Find(name)) {
      out.push_back(registered);
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(TargetSpecPtr spec, BuiltinBackendSpec(name));
    out.push_back(std::move(spec));
  }
  return out;
}

PassGate DefaultBackendGate(const std::vector<TargetSpecPtr>& backends) {
  const BackendDescriptor* d = backends.empty() ? nullptr : FindBackend(backends.front()->name());
  return d == nullptr ? PassGate{} : d->gate;
}

absl::StatusOr<PassPtr> BackendPipeline(const std::vector<TargetSpecPtr>& backends,
                                        const std::string& mod_name, const PassGate* gate) {
  std::vector<PassPtr> passes;
  const PartitionRecipe& recipe = backends.front()->recipe();
  if (!recipe.prep_pipeline.empty()) {
    CARVE_ASSIGN_OR_RETURN(PassPtr prep, ParsePipeline(recipe.prep_pipeline));
    for (const PassPtr& p : SequenceMembers(*prep)) passes.push_back(p);
  }
  passes.push_back(MergeComposite(backends));
  passes.push_back(AnnotateTarget(backends, recipe.annotate_non_call_ops));
  bool merge = false;
  for (const TargetSpecPtr& b : backends) merge = merge || b->recipe().merge_regions;
  if (merge) passes.push_back(MergeCompilerRegions());
  PartitionGraphOptions options;
  options.mod_name = mod_name;
  passes.push_back(PartitionGraph(options));
  const PassGate context = gate != nullptr ? *gate : DefaultBackendGate(backends);
  // relay.ext.<compiler>.optimize, which TVM's PartitionGraph runs.
  if (PassPtr optimize = OptimizePartitions(backends, context)) passes.push_back(optimize);
  PassPtr flow = MakeSequential(fmt::format("partition_for_{}", backends.front()->name()),
                                std::move(passes));
  return GatePipeline(flow, context);
}

absl::StatusOr<Module> PartitionForBackends(Module mod, const std::vector<TargetSpecPtr>& backends,
                                            const BackendPartitionOptions& options) {
  if (backends.empty()) return absl::InvalidArgumentError("no backend given");
  EnsureConstantEvaluator();
  CARVE_RETURN_IF_ERROR(EnsureTyped(mod));
  if (!options.params.empty()) CARVE_RETURN_IF_ERROR(BindParams(mod, options.params).status());
  CARVE_ASSIGN_OR_RETURN(PassPtr pipeline,
                         BackendPipeline(backends, options.mod_name,
                                         options.gate.has_value() ? &*options.gate : nullptr));
  PassContext local;
  PassContext& ctx = options.context != nullptr ? *options.context : local;
  CARVE_RETURN_IF_ERROR(RunPipeline(*pipeline, mod, ctx).status());
  if (options.prune) CARVE_RETURN_IF_ERROR(PruneBackendPartitions(mod, backends).status());
  return mod;
}

absl::StatusOr<bool> PruneBackendPartitions(Module& mod, const std::vector<TargetSpecPtr>& backends,
                                            PruneLog* log) {
  bool changed = false;
  for (const TargetSpecPtr& b : backends) {
    const BackendDescriptor* descriptor = FindBackend(b->name());
    if (descriptor == nullptr || !descriptor->prune) continue;
    CARVE_ASSIGN_OR_RETURN(bool pruned, descriptor->prune(mod, log));
    changed = changed || pruned;
  }
  return changed;
}

absl::StatusOr<Module> PartitionForBackend(Module mod, std::string_view name,
                                           const BackendPartitionOptions& options) {
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends, ResolveBackends(name));
  return PartitionForBackends(std::move(mod), backends, options);
}

}  // namespace carve
