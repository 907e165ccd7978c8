// Makes the registered backends (backends/<name>/, backend.h) known to every
// tool that links carve_backends: their specs are registered in TargetRegistry::Global() (so pipelines such
// as `MergeComposite(dnnl),AnnotateTarget(dnnl)` and `carve partition
// --backend dnnl` find them), and the interpreter's kernels become
// FoldConstant's evaluator (backend recipes fold constants).
//
// The specs are parsed once, on the registry's first lookup or registration
// (commands that never consult a target never pay for them); a spec of the
// same name registered by a test or loaded with --patterns replaces the
// built-in one, and a spec file that does not load leaves only that backend
// unregistered, with the file's diagnostics reported to the registry, so
// that looking the backend up (`MergeComposite(NAME)`, `carve partition
// --backend NAME`) shows them rather than "unknown target".
#include "backends/backend_passes.h"
#include "backends/partition.h"
#include "backends/specs.h"

namespace carve {
namespace {

bool RegisterBuiltins() {
  EnsureConstantEvaluator();
  // A recipe step the pass registry lacks (RemoveUnusedFunctions); a
  // backend's own steps come with its descriptor (backend.h).
  RegisterBackendPasses(PassRegistry::Global());
  // The specs are parsed on the first target lookup, not at start-up.
  TargetRegistry::Global().AddProvider([](TargetRegistry& registry) {
    for (std::string_view name : BuiltinBackendNames()) {
      if (registry.Find(name) != nullptr) continue;
      absl::StatusOr<TargetSpecPtr> spec = BuiltinBackendSpec(name);
      if (spec.ok()) {
        registry.Register(*spec);
      } else {
        registry.ReportLoadError(name, spec.status());
      }
    }
  });
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterBuiltins();

}  // namespace
}  // namespace carve
