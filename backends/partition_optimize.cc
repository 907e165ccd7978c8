#include "backends/partition_optimize.h"

#include <map>
#include <string>
#include <utility>

#include "backends/backend.h"
#include "passes/byoc/annotation.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// Runs `hook` on `fn` as TVM runs it on a region's function.
absl::StatusOr<const Function*> OptimizeOne(const Function* fn, const PassPtr& hook,
                                            const Module& mod) {
  Module part(mod.shared_arena());
  IRBuilder b = mod.builder();
  part.Add("main", b.MakeFunctionWithParamsOf(fn, fn->body(), fn->ret_type(), nullptr, fn->span()));
  CARVE_RETURN_IF_ERROR(InferType(part));
  CARVE_RETURN_IF_ERROR(RunPass(*hook, part).status());
  const Function* out = part.Lookup("main");
  return b.MakeFunctionWithParamsOf(out, out->body(), out->ret_type(), fn->attrs(), fn->span());
}

}  // namespace

PassPtr OptimizePartitions(const std::vector<TargetSpecPtr>& backends, const PassGate& gate) {
  // The gated hook of each backend that has one, by Compiler name.
  std::map<std::string, PassPtr, std::less<>> hooks;
  for (const TargetSpecPtr& spec : backends) {
    const BackendDescriptor* d = FindBackend(spec->name());
    if (d == nullptr || !d->optimize) continue;
    hooks.emplace(spec->name(), GatePipeline(d->optimize(), gate));
  }
  if (hooks.empty()) return nullptr;
  return MakeModulePass(
      "OptimizePartitions", "the backends' relay.ext.<compiler>.optimize hooks",
      [hooks = std::move(hooks)](Module& mod, PassContext&) -> absl::StatusOr<bool> {
        bool changed = false;
        for (const auto& [gv, fn] : mod.Functions()) {
          auto hook = hooks.find(fn->GetStringAttr(attr::kCompiler));
          if (hook == hooks.end()) continue;
          CARVE_ASSIGN_OR_RETURN(const Function* optimized, OptimizeOne(fn, hook->second, mod));
          if (optimized->body() == fn->body()) continue;
          mod.Add(gv, optimized);
          changed = true;
        }
        if (changed) CARVE_RETURN_IF_ERROR(RetypeIfNeeded(mod).status());
        return changed;
      });
}

}  // namespace carve
