#include "backends/backend.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "backends/backend_passes.h"
#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "passes/pass_registry.h"
#include "support/status_macros.h"

namespace carve {
namespace {

struct Registry {
  std::mutex mu;
  // Descriptors are never freed: FindBackend hands out stable pointers.
  std::vector<std::unique_ptr<const BackendDescriptor>> all;
  absl::flat_hash_map<std::string, const BackendDescriptor*> by_name;
};

Registry& Backends() {
  static auto* registry = new Registry();
  return *registry;
}

// Replaces parameters by argument expressions.
class Substitute : public ExprMutator {
 public:
  Substitute(Arena* arena, absl::flat_hash_map<const Expr*, const Expr*> map)
      : ExprMutator(arena), map_(std::move(map)) {}

 protected:
  const Expr* Rewrite(const Expr* e) override {
    auto it = map_.find(e);
    return it != map_.end() ? it->second : Rebuild(e);
  }

 private:
  absl::flat_hash_map<const Expr*, const Expr*> map_;
};

// Inlines the calls of the named partitions (TVM's SubgraphRemover).
class InlinePartitions : public ExprMutator {
 public:
  InlinePartitions(const Module& mod, const absl::flat_hash_set<std::string>& names)
      : ExprMutator(mod.arena()), mod_(mod), names_(names) {}

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* rebuilt = Rebuild(e);
    const Call* call = DynCast<Call>(rebuilt);
    const GlobalVar* gv = call != nullptr ? DynCast<GlobalVar>(call->callee()) : nullptr;
    if (gv == nullptr || !names_.contains(std::string(gv->name()))) return rebuilt;
    const Function* fn = mod_.Lookup(gv);
    absl::flat_hash_map<const Expr*, const Expr*> map;
    for (size_t i = 0; i < fn->params().size() && i < call->args().size(); ++i) {
      map[fn->params()[i]] = call->args()[i];
    }
    return Substitute(mod_.arena(), std::move(map)).Mutate(fn->body());
  }

 private:
  const Module& mod_;
  const absl::flat_hash_set<std::string>& names_;
};

}  // namespace

void RegisterBackend(BackendDescriptor descriptor) {
  auto owned = std::make_unique<const BackendDescriptor>(std::move(descriptor));
  if (owned->register_passes) owned->register_passes(PassRegistry::Global());
  Registry& r = Backends();
  std::lock_guard<std::mutex> lock(r.mu);
  r.by_name[owned->name] = owned.get();
  r.all.push_back(std::move(owned));
}

const BackendDescriptor* FindBackend(std::string_view name) {
  Registry& r = Backends();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(std::string(name));
  return it == r.by_name.end() ? nullptr : it->second;
}

std::vector<std::string_view> RegisteredBackendNames() {
  Registry& r = Backends();
  std::vector<const BackendDescriptor*> live;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& [name, d] : r.by_name) live.push_back(d);
  }
  std::sort(live.begin(), live.end(), [](const BackendDescriptor* a, const BackendDescriptor* b) {
    return a->order != b->order ? a->order < b->order : a->name < b->name;
  });
  std::vector<std::string_view> names;
  for (const BackendDescriptor* d : live) names.push_back(d->name);
  return names;
}

std::vector<std::pair<std::string, const Function*>> PartitionsOf(const Module& mod,
                                                                 std::string_view backend) {
  std::vector<std::pair<std::string, const Function*>> out;
  for (const auto& [gv, fn] : mod.Functions()) {
    if (fn->GetStringAttr("Compiler") == backend) out.emplace_back(std::string(gv->name()), fn);
  }
  return out;
}

absl::StatusOr<bool> InlinePartitionsBack(Module& mod, const std::vector<std::string>& list,
                                          bool main_only) {
  if (list.empty()) return false;
  absl::flat_hash_set<std::string> names(list.begin(), list.end());
  for (const auto& [gv, fn] : mod.Functions()) {
    if (names.contains(std::string(gv->name()))) continue;
    if (main_only && gv->name() != "main") continue;
    const Expr* body = InlinePartitions(mod, names).Mutate(fn->body());
    if (body == fn->body()) continue;
    mod.Add(gv, mod.builder().MakeFunction(fn->params(), body, fn->ret_type(), fn->attrs(),
                                           fn->type_params(), fn->span(), fn->virtual_device()));
  }
  if (main_only) {
    RemoveUnreachableFunctions(mod);
  } else {
    for (const std::string& name : list) mod.Remove(name);
  }
  CARVE_RETURN_IF_ERROR(InferType(mod));
  return true;
}

absl::StatusOr<bool> PrunePartitions(Module& mod, std::vector<PrunedPartition> removed,
                                     PruneLog* log, bool main_only) {
  std::vector<std::string> names;
  for (const PrunedPartition& p : removed) names.push_back(p.name);
  CARVE_ASSIGN_OR_RETURN(bool inlined, InlinePartitionsBack(mod, names, main_only));
  if (log != nullptr) log->insert(log->end(), removed.begin(), removed.end());
  return inlined;
}

}  // namespace carve
