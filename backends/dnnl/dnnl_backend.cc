// The dnnl backend (TVM v0.16 python/tvm/relay/op/contrib/dnnl.py and
// tests/python/contrib/test_dnnl.py): its spec is dnnl.pat, its composite
// checks dnnl_checks.h, its rewrites dnnl_rewrites.h, its runtime
// dnnl_runtime.cc (oneDNN).
#include "backends/dnnl/dnnl_backend.h"

#include "absl/container/flat_hash_set.h"
#include "backends/backend.h"
#include "backends/backend_passes.h"
#include "backends/dnnl/dnnl_checks.h"
#include "backends/dnnl/dnnl_legalize.h"
#include "backends/dnnl/dnnl_rewrites.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/pass_registry.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// The ops prune_dnnl_subgraphs counts as compute (its `compute_ops` list).
bool IsDnnlComputeOp(const OpInfo* op) {
  static const absl::flat_hash_set<std::string_view> kCompute = {
      "nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.conv2d_transpose", "nn.conv3d_transpose",
      "nn.dense", "nn.layer_norm", "nn.batch_matmul", "nn.global_avg_pool2d"};
  return op != nullptr && kCompute.contains(op->name);
}

// True when the body of `fn` calls a compute op, composite bodies included.
bool CallsComputeOp(const Function* fn) {
  bool found = false;
  PostOrderVisit(fn->body(), [&](const Expr* e) {
    if (const Call* c = DynCast<Call>(e)) found = found || IsDnnlComputeOp(c->op());
  });
  return found;
}

void RegisterDnnlPasses(PassRegistry& registry) {
  if (registry.Find("DnnlRewrites") != nullptr) return;
  // Level 1: TVM's Legalize pass, which runs dnnl's legalize_group_conv.
  registry.Register(PassInfo{"DnnlLegalize", "Legalize with dnnl's group conv -> GOIHW / GIOHW", {},
                             [](const PassArgs&) -> absl::StatusOr<PassPtr> { return DnnlLegalize(); },
                             /*opt_level=*/1});
  registry.Register(MakeSimplePass(
      "DnnlRewrites",
      "dnnl.py's rewrite_layer_norm and rewrite_dense_bias_gelu_reshape_last on @main",
      [](Module& mod, PassContext&) -> absl::StatusOr<bool> { return RunDnnlRewrites(mod); }));
}

BackendDescriptor MakeDnnlBackend() {
  BackendDescriptor d;
  d.name = "dnnl";
  d.order = 40;
  // test_dnnl.py's pipeline: CanonicalizeOps, InferType, SimplifyInference,
  // FoldConstant, FoldScaleAxis (Backward-, ForwardFoldScaleAxis,
  // FoldConstant), SimplifyExpr, FoldConstant, Legalize with
  // legalize_group_conv (DnnlLegalize), FoldConstant, (AlterOpLayout),
  // rewrite_layer_norm, rewrite_dense_bias_gelu_reshape_last (DnnlRewrites),
  // (legalize_qnn_for_dnnl). SimplifyExpr keeps a clip of qnn.requantize or
  // qnn.add even when it changes no value, as TVM's does: that is the
  // structure legalize_qnn_for_dnnl matches.
  d.recipe = {
      "CanonicalizeOps,InferType,SimplifyInference,FoldConstant,BackwardFoldScaleAxis,"
      "ForwardFoldScaleAxis,FoldConstant,SimplifyExpr(keep_clip_after=[qnn.requantize,qnn.add]),"
      "FoldConstant,DnnlLegalize,FoldConstant,"
      "DnnlRewrites",
      true, true};
  // test_dnnl.py runs partition_for_dnnl in PassContext(opt_level=3):
  // CanonicalizeOps and FoldScaleAxis (level 3) run.
  d.gate.opt_level = 3;
  d.composite_check = DnnlCompositeCheck;
  d.prune = PruneDnnlSubgraphs;
  d.register_passes = RegisterDnnlPasses;
  return d;
}

}  // namespace

absl::StatusOr<bool> PruneDnnlSubgraphs(Module& mod, PruneLog* log) {
  // TVM counts every global function, @main included: "only one subgraph"
  // is read as "at most two globals", whatever the other one is.
  if (mod.size() <= 2) return false;
  std::vector<std::pair<std::string, const Function*>> partitions = PartitionsOf(mod, "dnnl");
  std::vector<PrunedPartition> remove;
  for (const auto& [name, fn] : partitions) {
    if (CallsComputeOp(fn)) continue;
    remove.push_back({name, fmt::format("prune_dnnl_subgraphs: no compute op (conv, dense, "
                                        "layer_norm, batch_matmul, global_avg_pool2d) in this "
                                        "partition, one of {} dnnl partitions",
                                        partitions.size())});
  }
  // TVM's SubgraphRemover rewrites @main only, and RemoveUnusedFunctions then
  // drops whatever @main no longer reaches: a pruned partition that another
  // global function calls stays, and so does that call.
  CARVE_ASSIGN_OR_RETURN(bool inlined, PrunePartitions(mod, std::move(remove), log,
                                                       /*main_only=*/true));
  // TVM runs RemoveUnusedFunctions even when nothing was pruned.
  return RemoveUnreachableFunctions(mod) || inlined;
}

CARVE_REGISTER_BACKEND(MakeDnnlBackend);

}  // namespace carve
