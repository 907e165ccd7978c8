// The bnns backend (TVM v0.16 python/tvm/relay/op/contrib/bnns.py): its spec
// is bnns.pat, its runtime bnns_runtime.cc.
#include "backends/backend.h"

namespace carve {
namespace {

BackendDescriptor MakeBnnsBackend() {
  BackendDescriptor d;
  d.name = "bnns";
  d.order = 10;
  // partition_for_bnns: InferType, FoldConstant, (FoldScaleAxis,
  // DynamicToStatic, AlterOpLayout), FoldConstant; no MergeCompilerRegions.
  // Passes TVM runs that carve lacks, and why leaving them out does not
  // change which ops are offloaded, are noted in docs/backends.md.
  d.recipe = {"InferType,FoldConstant", true, false};
  return d;
}

}  // namespace

CARVE_REGISTER_BACKEND(MakeBnnsBackend);

}  // namespace carve
