#include "backends/backend_passes.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/visit.h"

namespace carve {
namespace {

// The global functions reachable from @main through global references,
// @main included.
absl::flat_hash_set<std::string> ReachableFromMain(const Module& mod) {
  absl::flat_hash_set<std::string> reached;
  std::vector<std::string> work{"main"};
  while (!work.empty()) {
    std::string name = std::move(work.back());
    work.pop_back();
    if (!reached.insert(name).second) continue;
    const Function* fn = mod.Lookup(name);
    if (fn == nullptr) continue;
    PostOrderVisit(fn->body(), [&](const Expr* e) {
      if (const GlobalVar* gv = DynCast<GlobalVar>(e)) {
        std::string callee(gv->name());
        if (!reached.contains(callee)) work.push_back(std::move(callee));
      }
    });
  }
  return reached;
}

}  // namespace

PassInfo MakeSimplePass(std::string name, std::string summary, ModuleTransform fn) {
  return PassInfo{
      name, summary, {}, [name, summary, fn](const PassArgs&) -> absl::StatusOr<PassPtr> {
        return MakeModulePass(name, summary, fn);
      }};
}

bool RemoveUnreachableFunctions(Module& mod) {
  if (mod.Lookup("main") == nullptr) return false;
  absl::flat_hash_set<std::string> keep = ReachableFromMain(mod);
  std::vector<std::string> drop;
  for (const auto& [gv, fn] : mod.Functions()) {
    if (!keep.contains(std::string(gv->name()))) drop.emplace_back(gv->name());
  }
  for (const std::string& name : drop) mod.Remove(name);
  return !drop.empty();
}

void RegisterBackendPasses(PassRegistry& registry) {
  if (registry.Find("RemoveUnusedFunctions") == nullptr) {
    PassInfo info = MakeSimplePass("RemoveUnusedFunctions",
                                   "drop the global functions @main does not reach",
                                   [](Module& mod, PassContext&) -> absl::StatusOr<bool> {
                                     return RemoveUnreachableFunctions(mod);
                                   });
    info.opt_level = 1;  // TVM's
    registry.Register(std::move(info));
  }
}

}  // namespace carve
