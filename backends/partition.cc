#include "backends/partition.h"

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

std::vector<std::string> UnboundInputsOfMain(const Module& mod) {
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return {};
  std::vector<const Var*> unbound = FreeVars(main);
  if (unbound.empty()) return {};
  absl::flat_hash_map<const Var*, const Var*> let_of;  // free variable -> the let it feeds
  PostOrderVisit(main->body(), [&](const Expr* e) {
    const Let* let = DynCast<Let>(e);
    const Var* v = let != nullptr ? DynCast<Var>(let->value()) : nullptr;
    if (v != nullptr) let_of.emplace(v, let->var());
  });
  std::vector<std::string> free;
  for (const Var* v : unbound) {
    auto it = let_of.find(v);
    free.push_back(it == let_of.end()
                       ? fmt::format("%{}", v->name())
                       : fmt::format("%{} (the value of let %{})", v->name(), it->second->name()));
  }
  return free;
}

absl::Status CheckRunnablePartition(const Module& mod) {
  std::vector<std::string> free = UnboundInputsOfMain(mod);
  if (free.empty()) return absl::OkStatus();
  std::string list;
  for (const std::string& f : free) list += (list.empty() ? "" : ", ") + f;
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
  loss.free_inputs = UnboundInputsOfMain(partitioned);
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
  return std::optional<LetBoundLoss>(std::move(loss));
}

std::string LetBoundLossWarning(const LetBoundLoss& loss, std::string_view backends) {
  return fmt::format(
      "carve: warning: {} op{} never run after partitioning ({}): TVM v0.16's AnnotateTarget "
      "starts a region at a let-bound value and never ends it, so @main reads {} that nothing "
      "binds; run ToGraphNormalForm first: carve opt FILE -p ToGraphNormalForm | carve "
      "partition - --backend {}\n",
      loss.total(), loss.total() == 1 ? "" : "s",
      loss.ops.empty() ? "none counted" : loss.OpsText(), loss.FreeInputsText(), backends);
}

absl::StatusOr<std::vector<TargetSpecPtr>> ResolveBackends(std::string_view names) {
  std::vector<TargetSpecPtr> out;
  size_t start = 0;
  while (start <= names.size()) {
    size_t comma = names.find(',', start);
    if (comma == std::string_view::npos) comma = names.size();
    std::string_view name = names.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    if (TargetSpecPtr registered = TargetRegistry::Global().Find(name)) {
      out.push_back(registered);
      continue;
    }
    CARVE_ASSIGN_OR_RETURN(TargetSpecPtr spec, BuiltinBackendSpec(name));
    out.push_back(std::move(spec));
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(fmt::format("'{}' names no backend", names));
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
