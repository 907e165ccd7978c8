// Each backend's whole BYOC flow, as TVM's `partition_for_<backend>` does it
// (tvm-reference 4):
//
//   bind params -> the backend's preparation passes -> MergeComposite ->
//   AnnotateTarget -> [MergeCompilerRegions] -> PartitionGraph -> [prune]
//
// with the recipe and the pruning step of each backend's descriptor
// (backend.h; e.g. backends/dnnl/dnnl_backend.cc for TVM's
// prune_dnnl_subgraphs, backends/tensorrt/tensorrt_backend.cc for
// prune_tensorrt_subgraphs, backends/nnapi/nnapi_backend.cc for carve's
// static-cost pruning).
// Several backends may be named: the first one's recipe runs, their tables
// and rules apply in priority order (as TVM's AnnotateTarget(["a", "b"])).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "ir/module.h"
#include "passes/fold/bind_params.h"
#include "passes/simplify/graph_normal_form.h"  // InlineLets
#include "passes/byoc/partition_report.h"  // LetBoundLoss
#include "passes/pass.h"
#include "passes/byoc/target.h"

namespace carve {

struct BackendPartitionOptions {
  // Bound into @main first (TVM's `params` argument).
  ParamMap params;
  // PartitionGraph's mod_name.
  std::string mod_name = "default";
  // Run the backends' pruning steps (BackendDescriptor::prune).
  bool prune = true;
  // Optional pass context (instruments for --print-ir-after-all, timing).
  PassContext* context = nullptr;
  // Overrides the backends' default gate (--opt-level, --disabled-pass).
  std::optional<PassGate> gate;
};

// The flow for built-in backend `name` (its spec from backends/<name>/<name>.pat,
// or a spec of that name registered in TargetRegistry::Global() by
// `--patterns`, which takes precedence).
absl::StatusOr<Module> PartitionForBackend(Module mod, std::string_view name,
                                           const BackendPartitionOptions& options = {});

// The flow for `backends`, in priority order.
absl::StatusOr<Module> PartitionForBackends(Module mod, const std::vector<TargetSpecPtr>& backends,
                                            const BackendPartitionOptions& options = {});

// Resolves comma-separated backend names: registered specs first (a
// `--patterns` file), then the built-in `.pat` files. An empty name
// (`dnnl,`, ``) is an error.
absl::StatusOr<std::vector<TargetSpecPtr>> ResolveBackends(std::string_view names);

// The pipeline PartitionForBackends runs after binding parameters (without
// the pruning step), for tools that show it.
// Its passes are gated (pass_gate.h) by `gate`, or when null by the first
// backend's BackendDescriptor::gate.
absl::StatusOr<PassPtr> BackendPipeline(const std::vector<TargetSpecPtr>& backends,
                                        const std::string& mod_name = "default",
                                        const PassGate* gate = nullptr);

// The gate the flow for `backends` runs with by default (the first
// backend's descriptor's; TVM's default context for a spec without one).
PassGate DefaultBackendGate(const std::vector<TargetSpecPtr>& backends);

// The pruning step of every backend of `backends` whose descriptor has one,
// as PartitionForBackends runs it after PartitionGraph; for tools that run
// the pipeline themselves (`carve partition`). Returns whether a partition
// was inlined back. Each backend appends the partitions it removed, with
// its reason, to `log` (when not null).
absl::StatusOr<bool> PruneBackendPartitions(Module& mod, const std::vector<TargetSpecPtr>& backends,
                                            PruneLog* log = nullptr);

// Fails (FailedPrecondition) when @main of a partitioned module reads a
// variable nothing binds, naming each such variable and the `let` it feeds.
// TVM v0.16's AnnotateTarget gives a let-bound value a compiler_begin but no
// compiler_end, so PartitionGraph leaves the region's input in @main as a
// free variable; `carve partition` prints that module as TVM does, and tools
// that run the partitioned module (`carve run --compare`) call this first to
// explain why it cannot run.
absl::Status CheckRunnablePartition(const Module& mod);

// The variables @main of a partitioned module reads and nothing binds, each
// as "%v" or "%v (the value of let %a)", in @main's order.
std::vector<std::string> UnboundInputsOfMain(const Module& mod);

// What TVM's flow loses to let-bound values: nullopt when `partitioned`
// (`input` partitioned for `backends`) leaves no input of @main free; else
// the free inputs and the ops that the graph-normal form of `input`,
// partitioned the same way, runs and `partitioned` does not (the ops that
// computed a let-bound value now sit in a partition nothing calls, or were
// dropped with it). `input` is typed, with @main.
absl::StatusOr<std::optional<LetBoundLoss>> FindLetBoundLoss(
    const Module& input, const Module& partitioned, const std::vector<TargetSpecPtr>& backends,
    const BackendPartitionOptions& options = {});

// The warning `carve partition` prints on stderr for `loss` ("carve:
// warning: ..."; `backends` as the user named them).
std::string LetBoundLossWarning(const LetBoundLoss& loss, std::string_view backends);

// Installs the interpreter's kernels as FoldConstant's evaluator when no
// evaluator is installed (the passes do not link the interpreter).
void EnsureConstantEvaluator();

}  // namespace carve
