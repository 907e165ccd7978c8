// The nnapi backend (the Android NNAPI RFC, seeds/): its spec is nnapi.pat,
// its pruning the static-cost annotator (nnapi_cost.h), its codegen adds the
// NNAPI model description (nnapi_model.h), its runtime nnapi_runtime.cc.
#include "backends/backend.h"
#include "backends/json/serializer.h"
#include "backends/nnapi/nnapi_cost.h"
#include "backends/nnapi/nnapi_model.h"
#include "fmt/format.h"
#include "interpreter/npy.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// The NNAPI converter's model description and the constants it adds.
absl::Status AddNnapiModelFiles(const SerializedFunction& f,
                                std::map<std::string, std::string>& files) {
  CARVE_ASSIGN_OR_RETURN(NnapiModel model, ConvertToNnapiModel(f));
  files[NnapiModelFileName(f.graph.symbol)] = WriteNnapiModel(model);
  for (const auto& [name, tensor] : model.constants) {
    CARVE_ASSIGN_OR_RETURN(files[name + ".npy"], SerializeNpy(tensor));
  }
  return absl::OkStatus();
}

// The cost rule's reason for removing `fn`. A dynamic dimension (`?`) makes
// the static cost 0: say so, or "cost 0" reads like an empty partition.
std::string CostReason(const Function* fn, int64_t cost, int64_t min_flops) {
  bool dynamic = false;
  for (const Var* p : fn->params()) {
    const TensorType* t = DynCast<TensorType>(p->checked_type());
    dynamic = dynamic || (t != nullptr && !t->is_static());
  }
  return fmt::format("cost rule: static cost {} below the minimum {} ($CARVE_NNAPI_MIN_FLOPS){}",
                     cost, min_flops, dynamic && cost == 0 ? " (a dynamic shape counts 0)" : "");
}

BackendDescriptor MakeNnapiBackend() {
  BackendDescriptor d;
  d.name = "nnapi";
  d.order = 30;
  // The RFC's second option: AnnotateTarget over registered ops and
  // patterns; NNAPI compiles a whole model, so regions are merged.
  d.recipe = {"InferType,FoldConstant", true, true};
  d.prune = [](Module& mod, PruneLog* log) -> absl::StatusOr<bool> {
    CARVE_ASSIGN_OR_RETURN(int64_t min_flops, NnapiMinOffloadFlops());
    return PruneNnapiSubgraphs(mod, min_flops, log);
  };
  d.codegen_files = AddNnapiModelFiles;
  return d;
}

}  // namespace

absl::StatusOr<bool> PruneNnapiSubgraphs(Module& mod, int64_t min_flops, PruneLog* log) {
  std::vector<PrunedPartition> remove;
  for (const auto& [name, fn] : PartitionsOf(mod, "nnapi")) {
    int64_t cost = NnapiStaticCost(fn);
    if (cost < min_flops) remove.push_back({name, CostReason(fn, cost, min_flops)});
  }
  return PrunePartitions(mod, std::move(remove), log);
}

CARVE_REGISTER_BACKEND(MakeNnapiBackend);

}  // namespace carve
