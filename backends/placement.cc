#include "backends/placement.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "backends/nnapi/nnapi_cost.h"
#include "backends/partition.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "passes/pass.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// Why TVM's prune_tensorrt_subgraphs (implicit batch mode) rejects `fn`:
// a scalar input, or two inputs with different batch sizes.
std::string TensorRtReason(const Function* fn) {
  std::optional<int64_t> batch;
  for (const Var* p : fn->params()) {
    std::vector<const Type*> types{p->checked_type()};
    if (const TupleType* t = DynCast<TupleType>(types[0])) {
      types.assign(t->fields().begin(), t->fields().end());
    }
    for (const Type* type : types) {
      const TensorType* tensor = DynCast<TensorType>(type);
      if (tensor == nullptr || tensor->rank() == 0) {
        return fmt::format("prune_tensorrt_subgraphs: input %{} is a scalar (implicit batch mode)",
                           p->name());
      }
      if (tensor->shape()[0].is_any()) continue;
      if (batch && *batch != tensor->shape()[0].value) {
        return fmt::format(
            "prune_tensorrt_subgraphs: inputs with batch sizes {} and {} (implicit batch mode)",
            *batch, tensor->shape()[0].value);
      }
      batch = tensor->shape()[0].value;
    }
  }
  return "prune_tensorrt_subgraphs: not a valid TensorRT subgraph";
}

// The reason `backend`'s region-level rule would give for removing `fn`.
// Backend facts, as backends/partition.cc's Prune dispatches on them.
absl::StatusOr<std::string> PruneReason(std::string_view backend, const Function* fn,
                                        size_t partitions) {
  if (backend == "dnnl") {
    return fmt::format(
        "prune_dnnl_subgraphs: a partition without a compute op (conv, dense, layer_norm, "
        "batch_matmul, global_avg_pool2d) among {}",
        partitions);
  }
  if (backend == "tensorrt") return TensorRtReason(fn);
  if (backend == "nnapi") {
    CARVE_ASSIGN_OR_RETURN(int64_t min_flops, NnapiMinOffloadFlops());
    int64_t cost = NnapiStaticCost(fn);
    // A dynamic dimension (`?`) makes the static cost 0: say so, or "cost
    // 0" reads like an empty partition.
    bool dynamic = false;
    for (const Var* p : fn->params()) {
      const TensorType* t = DynCast<TensorType>(p->checked_type());
      dynamic = dynamic || (t != nullptr && !t->is_static());
    }
    return fmt::format("static cost {} below the minimum {} ($CARVE_NNAPI_MIN_FLOPS){}", cost,
                       min_flops, dynamic && cost == 0 ? " (a dynamic shape counts 0)" : "");
  }
  return std::string("removed after partitioning");
}

}  // namespace

absl::Status KeepModuleAfter::AfterPass(const Pass& pass, const Module& mod, int depth,
                                        bool changed) {
  if (!kept_ && pass.name() == pass_) kept_ = mod;
  return absl::OkStatus();
}

absl::StatusOr<PrunedOps> PruneAndRecord(Module& mod, const std::vector<TargetSpecPtr>& backends) {
  // The partitions before pruning, with their backend and reason.
  struct Before {
    std::string name;
    const Function* fn;
    int backend;
  };
  std::vector<Before> before;
  std::vector<size_t> count(backends.size());
  for (const auto& [gv, fn] : mod.Functions()) {
    std::string_view compiler = fn->GetStringAttr(attr::kCompiler);
    for (size_t b = 0; b < backends.size(); ++b) {
      if (backends[b]->name() != compiler) continue;
      before.push_back({std::string(gv->name()), fn, static_cast<int>(b)});
      ++count[b];
    }
  }
  CARVE_RETURN_IF_ERROR(PruneBackendPartitions(mod, backends).status());
  PrunedOps pruned;
  for (const Before& p : before) {
    if (mod.Lookup(p.name) != nullptr) continue;
    CARVE_ASSIGN_OR_RETURN(std::string reason,
                           PruneReason(backends[p.backend]->name(), p.fn, count[p.backend]));
    PostOrderVisit(p.fn->body(), [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      if (call == nullptr || call->op() == nullptr || !e->span().valid()) return;
      pruned.by_span.try_emplace(PrunedOps::Key(e), PrunedOps::Entry{p.backend, reason, p.name});
    });
  }
  return pruned;
}

absl::StatusOr<PartitionResult> PartitionWithRecord(Module mod,
                                                    const std::vector<TargetSpecPtr>& backends) {
  PassContext ctx;
  auto input = std::make_shared<KeepModuleAfter>();
  ctx.AddInstrument(input);
  BackendPartitionOptions options;
  options.prune = false;
  options.context = &ctx;
  CARVE_ASSIGN_OR_RETURN(Module partitioned,
                         PartitionForBackends(std::move(mod), backends, options));
  CARVE_ASSIGN_OR_RETURN(PrunedOps pruned, PruneAndRecord(partitioned, backends));
  PlacementRecord record = PlacementRecord::Build(partitioned, backends, &pruned, input->kept());
  return PartitionResult{std::move(partitioned), std::move(record)};
}

}  // namespace carve
