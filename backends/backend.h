// A backend is one folder, backends/<name>/, that describes itself with a
// BackendDescriptor and registers it with CARVE_REGISTER_BACKEND from one of
// its files. Shared code (specs.cc, partition.cc, json/codegen.cc, the tools)
// asks this registry for a backend's facts and never compares a backend
// name: adding a backend adds a folder and edits nothing else
// (docs/backends.md, "Adding a backend").
//
// The descriptor holds what TVM keeps per backend outside its pattern table:
//   - the spec (.pat): backends/<name>/<name>.pat, compiled in by CMake;
//   - the partition recipe (TVM's `partition_for_<name>` preparation passes
//     and its AnnotateTarget / MergeCompilerRegions choices);
//   - C++ checks for composites the DSL cannot state exactly;
//   - the pruning run after PartitionGraph (TVM's prune_<name>_subgraphs);
//   - extra files `carve codegen` writes for each offloaded function;
//   - passes its recipe names that the generic pass registry lacks.
// The runtime (node kernels) registers itself from the same folder with
// CARVE_REGISTER_BACKEND_RUNTIME (backends/runtime/backend_runtime.h).
//
// A spec loaded with `--patterns` whose backend has a registered name gets
// that backend's recipe, checks and pruning, as a built-in one does.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/module.h"
#include "passes/byoc/target.h"
#include "passes/pass_gate.h"

namespace carve {

class PassRegistry;
struct SerializedFunction;

// A partition a backend's pruning inlined back into the host, with the
// rule's reason and its numbers ("prune_tensorrt_subgraphs: inputs with batch
// sizes 1 and 4 (implicit batch mode)"): the placement record shows it, so
// the rule is stated once, in the backend's folder.
struct PrunedPartition {
  std::string name;
  std::string reason;
};
using PruneLog = std::vector<PrunedPartition>;

struct BackendDescriptor {
  // The Compiler attribute and the name users type ("dnnl").
  std::string name;
  // Position in listings (`carve partition --help`, completion, fuzzing):
  // the built-in backends use 10..50 (TVM's order); a new one takes a
  // larger number. Ties list by name.
  int order = 100;
  // The spec's text and the path its diagnostics name. Empty text: the
  // compiled-in backends/<name>/<name>.pat (or $CARVE_BACKENDS_DIR's copy).
  std::string spec_text;
  std::string spec_path;
  // TVM's partition_for_<name>; the default runs InferType, then the four
  // BYOC passes.
  PartitionRecipe recipe{"InferType", true, true};
  // The pass context the flow runs in (TVM's PassContext(opt_level=...,
  // disabled_pass=[...]) around partition_for_<name> in the seeds' guides
  // and TVM's tests); the recipe's passes above the level are skipped.
  // `--opt-level` / `--disabled-pass` override it. Default: TVM's context.
  PassGate gate;
  // The C++ check of composite `composite`, as the reason it rejects the
  // typed root of a match ("tensorrt.transpose: axes[0] is 1, not 0: ..."),
  // "" when it accepts; nullptr: the DSL's `where` clauses alone decide.
  // MergeComposite accepts a root when the reason is empty; the placement
  // record, `partition --report`, `why` and `viz` print it. Optional.
  std::function<RootRefusal(std::string_view composite)> composite_check;
  // Runs after PartitionGraph (and after every backend of a multi-backend
  // run); inlines back the partitions it rejects, appends each with its
  // reason to `log` (when not null) and returns whether the module changed.
  // Optional.
  std::function<absl::StatusOr<bool>(Module& mod, PruneLog* log)> prune;
  // Adds files for one offloaded function to `carve codegen`'s output
  // (`files`, by name relative to the output folder). Optional.
  std::function<absl::Status(const SerializedFunction& fn,
                             std::map<std::string, std::string>& files)>
      codegen_files;
  // TVM's `relay.ext.<name>.optimize` hook: the pipeline TVM's
  // PartitionGraph runs on each partition of this backend (as a module whose
  // main is the partition), in the flow's pass context (`gate`). carve runs
  // it as a step right after PartitionGraph (partition_optimize.h).
  // Optional.
  std::function<PassPtr()> optimize;
  // Registers the passes `recipe` names that carve's pass registry lacks
  // (called once, on registration, with PassRegistry::Global()). Optional.
  std::function<void(PassRegistry& registry)> register_passes;
};

// Registers `descriptor` (replacing one of the same name) and its passes.
// Thread-safe; meant for static initialisers (CARVE_REGISTER_BACKEND).
void RegisterBackend(BackendDescriptor descriptor);

// The descriptor of backend `name`, or nullptr.
const BackendDescriptor* FindBackend(std::string_view name);

// The registered backends' names, by `order` then name.
std::vector<std::string_view> RegisteredBackendNames();

// The global functions of `mod` offloaded to `backend` (Compiler attribute),
// by name, for pruning steps.
std::vector<std::pair<std::string, const Function*>> PartitionsOf(const Module& mod,
                                                                 std::string_view backend);

// Inlines the calls of the partitions `names` back into the functions that
// call them (or, with `main_only`, into @main alone, dropping what @main no
// longer reaches), removes them and re-types the module (TVM's
// SubgraphRemover). Returns whether anything was inlined.
absl::StatusOr<bool> InlinePartitionsBack(Module& mod, const std::vector<std::string>& names,
                                          bool main_only = false);

// InlinePartitionsBack of the partitions `removed` names, appending them to
// `log` (when not null): the body of a prune hook.
absl::StatusOr<bool> PrunePartitions(Module& mod, std::vector<PrunedPartition> removed,
                                     PruneLog* log, bool main_only = false);

}  // namespace carve

// At namespace scope in one file of backends/<name>/:
//   CARVE_REGISTER_BACKEND(MakeDnnlBackend);
// where MakeDnnlBackend() returns a BackendDescriptor.
#define CARVE_BACKEND_DESC_CONCAT_INNER_(a, b) a##b
#define CARVE_BACKEND_DESC_CONCAT_(a, b) CARVE_BACKEND_DESC_CONCAT_INNER_(a, b)
#define CARVE_REGISTER_BACKEND(make_fn)                                       \
  static const bool CARVE_BACKEND_DESC_CONCAT_(backend_desc_reg_, __LINE__) = \
      [] {                                                                    \
        ::carve::RegisterBackend(make_fn());                                  \
        return true;                                                          \
      }()
