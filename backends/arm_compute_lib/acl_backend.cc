// The arm_compute_lib backend (TVM v0.16 python/tvm/relay/op/contrib/
// arm_compute_lib.py): its spec is arm_compute_lib.pat, its runtime
// acl_runtime.cc.
#include "backends/backend.h"

namespace carve {
namespace {

BackendDescriptor MakeAclBackend() {
  BackendDescriptor d;
  d.name = "arm_compute_lib";
  d.order = 20;
  // partition_for_arm_compute_lib: InferType;
  // AnnotateTarget(include_non_call_ops=False); no merging.
  d.recipe = {"InferType", false, false};
  // TVM's ACL tests and the seeds' guide build under
  // PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]).
  d.gate = {3, {"AlterOpLayout"}};
  return d;
}

}  // namespace

CARVE_REGISTER_BACKEND(MakeAclBackend);

}  // namespace carve
