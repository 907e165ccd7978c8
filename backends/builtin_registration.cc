// Makes the built-in backends known to every tool that links carve_backends:
// their specs are registered in TargetRegistry::Global() (so pipelines such
// as `MergeComposite(dnnl),AnnotateTarget(dnnl)` and `carve partition
// --backend dnnl` find them), and the interpreter's kernels become
// FoldConstant's evaluator (backend recipes fold constants).
//
// Registration happens once at start-up; a spec of the same name already
// registered (a test's, or one loaded with --patterns later) is not
// replaced, and a spec file that does not load leaves only that backend
// unregistered: `carve partition --backend NAME` then reports the file's
// diagnostics through BuiltinBackendSpec.
#include "backends/partition.h"
#include "backends/specs.h"

namespace carve {
namespace {

bool RegisterBuiltins() {
  EnsureConstantEvaluator();
  TargetRegistry& registry = TargetRegistry::Global();
  for (std::string_view name : BuiltinBackendNames()) {
    if (registry.Find(name) != nullptr) continue;
    absl::StatusOr<TargetSpecPtr> spec = BuiltinBackendSpec(name);
    if (spec.ok()) registry.Register(*spec);
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterBuiltins();

}  // namespace
}  // namespace carve
