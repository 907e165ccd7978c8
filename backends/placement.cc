#include "backends/placement.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "backends/backend.h"
#include "backends/partition.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "passes/pass.h"
#include "support/status_macros.h"

namespace carve {

absl::Status KeepModuleAfter::AfterPass(const Pass& pass, const Module& mod, int depth,
                                        bool changed) {
  if (!kept_ && pass.name() == pass_) kept_ = mod;
  return absl::OkStatus();
}

absl::StatusOr<PrunedOps> PruneAndRecord(Module& mod, const std::vector<TargetSpecPtr>& backends) {
  // The partitions before pruning, with their backend.
  struct Before {
    std::string name;
    const Function* fn;
    int backend;
  };
  std::vector<Before> before;
  for (const auto& [gv, fn] : mod.Functions()) {
    std::string_view compiler = fn->GetStringAttr(attr::kCompiler);
    for (size_t b = 0; b < backends.size(); ++b) {
      if (backends[b]->name() != compiler) continue;
      before.push_back({std::string(gv->name()), fn, static_cast<int>(b)});
    }
  }
  PruneLog log;
  CARVE_RETURN_IF_ERROR(PruneBackendPartitions(mod, backends, &log).status());
  absl::flat_hash_map<std::string, std::string> reasons;
  for (PrunedPartition& p : log) reasons.try_emplace(p.name, std::move(p.reason));
  PrunedOps pruned;
  for (const Before& p : before) {
    if (mod.Lookup(p.name) != nullptr) continue;
    // A partition no rule named went with the functions @main stopped
    // reaching (dnnl's RemoveUnusedFunctions).
    auto it = reasons.find(p.name);
    std::string reason = it != reasons.end() ? it->second : "removed after partitioning";
    PostOrderVisit(p.fn->body(), [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      if (call == nullptr || call->op() == nullptr || !e->span().valid()) return;
      pruned.Add(call, PrunedOps::Entry{p.backend, reason, p.name});
    });
  }
  return pruned;
}

absl::StatusOr<PartitionResult> PartitionWithRecord(Module mod,
                                                    const std::vector<TargetSpecPtr>& backends,
                                                    BackendPartitionOptions options) {
  PassContext own;
  PassContext& ctx = options.context != nullptr ? *options.context : own;
  auto input = std::make_shared<KeepModuleAfter>();
  ctx.AddInstrument(input);
  options.prune = false;
  options.context = &ctx;
  CARVE_ASSIGN_OR_RETURN(Module partitioned,
                         PartitionForBackends(std::move(mod), backends, options));
  CARVE_ASSIGN_OR_RETURN(PrunedOps pruned, PruneAndRecord(partitioned, backends));
  PlacementRecord record = PlacementRecord::Build(partitioned, backends, &pruned, input->kept());
  return PartitionResult{std::move(partitioned), std::move(record)};
}

absl::StatusOr<PlacementRecord> RecordOfSteps(const Module& partitioned,
                                              const std::vector<TargetSpecPtr>& backends,
                                              const Module* annotator_input,
                                              const Module* before_pruning) {
  std::optional<PrunedOps> pruned;
  if (before_pruning != nullptr) {
    Module copy = *before_pruning;
    CARVE_ASSIGN_OR_RETURN(pruned, PruneAndRecord(copy, backends));
  }
  return PlacementRecord::Build(partitioned, backends, pruned ? &*pruned : nullptr,
                                annotator_input);
}

}  // namespace carve
