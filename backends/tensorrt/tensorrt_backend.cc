// The tensorrt backend (TVM v0.16 python/tvm/relay/op/contrib/tensorrt.py):
// its spec is tensorrt.pat, its composite checks tensorrt_checks.h, its
// runtime tensorrt_runtime.cc.
#include "backends/tensorrt/tensorrt_backend.h"

#include <optional>

#include "backends/backend.h"
#include "backends/tensorrt/tensorrt_checks.h"
#include "fmt/format.h"

namespace carve {
namespace {

// Why prune_tensorrt_subgraphs' is_valid_subgraph (implicit batch mode)
// rejects `fn`: a scalar input, or two inputs with different batch sizes;
// "" when it accepts it.
std::string InvalidTensorRtSubgraph(const Function* fn) {
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
  return "";
}

BackendDescriptor MakeTensorRtBackend() {
  BackendDescriptor d;
  d.name = "tensorrt";
  d.order = 50;
  // partition_for_tensorrt: InferType, RemoveDropout, RemoveUnusedFunctions
  // (backend_passes.h), ConvertLayout with TensorRT's desired layouts (the
  // channel-first data layouts, each kernel at its op's default), FoldConstant.
  // TVM's map also names nn.conv1d (NCW), which has no convert rule in TVM
  // v0.16, so TVM ignores that entry; carve's ConvertLayout rejects such an
  // entry, and the recipe leaves it out (same result).
  // ConvertLayout is an opt_level 3 pass: TVM's Sequential skips it under the
  // default PassContext (opt_level 2), and so does carve's gate; with
  // `--opt-level 3` it runs as in TVM.
  d.recipe = {
      "InferType,RemoveDropout,RemoveUnusedFunctions,"
      "ConvertLayout(layouts=[nn.conv2d:NCHW:default,"
      "nn.conv3d:NCDHW:default,nn.conv2d_transpose:NCHW:default]),FoldConstant",
      true, true};
  d.composite_check = TensorRtCompositeCheck;
  d.prune = PruneTensorRtSubgraphs;
  return d;
}

}  // namespace

absl::StatusOr<bool> PruneTensorRtSubgraphs(Module& mod, PruneLog* log) {
  std::vector<PrunedPartition> remove;
  for (const auto& [name, fn] : PartitionsOf(mod, "tensorrt")) {
    std::string reason = InvalidTensorRtSubgraph(fn);
    if (!reason.empty()) remove.push_back({name, std::move(reason)});
  }
  return PrunePartitions(mod, std::move(remove), log);
}

CARVE_REGISTER_BACKEND(MakeTensorRtBackend);

}  // namespace carve
