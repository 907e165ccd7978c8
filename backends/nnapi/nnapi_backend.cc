// The nnapi backend (the Android NNAPI RFC, seeds/): its spec is nnapi.pat,
// its pruning the static-cost annotator (nnapi_cost.h), its codegen adds the
// NNAPI model description (nnapi_model.h), its runtime nnapi_runtime.cc.
#include "backends/backend.h"
#include "backends/json/serializer.h"
#include "backends/nnapi/nnapi_cost.h"
#include "backends/nnapi/nnapi_model.h"
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

BackendDescriptor MakeNnapiBackend() {
  BackendDescriptor d;
  d.name = "nnapi";
  d.order = 30;
  // The RFC's second option: AnnotateTarget over registered ops and
  // patterns; NNAPI compiles a whole model, so regions are merged.
  d.recipe = {"InferType,FoldConstant", true, true};
  d.prune = [](Module& mod) -> absl::StatusOr<bool> {
    CARVE_ASSIGN_OR_RETURN(int64_t min_flops, NnapiMinOffloadFlops());
    return PruneNnapiSubgraphs(mod, min_flops);
  };
  d.codegen_files = AddNnapiModelFiles;
  return d;
}

}  // namespace

absl::StatusOr<bool> PruneNnapiSubgraphs(Module& mod, int64_t min_flops) {
  std::vector<std::string> remove;
  for (const auto& [name, fn] : PartitionsOf(mod, "nnapi")) {
    if (NnapiStaticCost(fn) < min_flops) remove.push_back(name);
  }
  return InlinePartitionsBack(mod, remove);
}

CARVE_REGISTER_BACKEND(MakeNnapiBackend);

}  // namespace carve
