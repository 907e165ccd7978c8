// The bnns backend (TVM v0.16 python/tvm/relay/op/contrib/bnns.py): its spec
// is bnns.pat, its runtime bnns_runtime.cc.
#include "backends/backend.h"

namespace carve {
namespace {

BackendDescriptor MakeBnnsBackend() {
  BackendDescriptor d;
  d.name = "bnns";
  d.order = 10;
  // partition_for_bnns: InferType, FoldConstant, FoldScaleAxis (its
  // Backward, Forward and FoldConstant parts), DynamicToStatic (carve has
  // none: docs/backends.md), AlterOpLayout, FoldConstant; no
  // MergeCompilerRegions. FoldScaleAxis and AlterOpLayout are level 3.
  d.recipe = {
      "InferType,FoldConstant,BackwardFoldScaleAxis,ForwardFoldScaleAxis,FoldConstant,"
      "AlterOpLayout,FoldConstant",
      true, false};
  // TVM's BNNS tests (test_conv2d_patterns.py, infrastructure.py's
  // build_module) run partition_for_bnns in PassContext(opt_level=3), so
  // AlterOpLayout expands conv / dense `add` biases to the data's rank.
  d.gate.opt_level = 3;
  return d;
}

}  // namespace

CARVE_REGISTER_BACKEND(MakeBnnsBackend);

}  // namespace carve
