// The arm_compute_lib backend (TVM v0.16 python/tvm/relay/op/contrib/
// arm_compute_lib.py): its spec is arm_compute_lib.pat, its runtime
// acl_runtime.cc.
#include "backends/backend.h"
#include "passes/fold/fold_constant.h"
#include "passes/layout/convert_layout.h"

namespace carve {
namespace {

// arm_compute_lib.py's relay.ext.arm_compute_lib.optimize: ConvertLayout
// with nn.conv2d and qnn.conv2d in NHWC / OHWI (IHWO for a depthwise
// convolution, its convert_layout_conv2d), then FoldConstant, so the
// partitions hold OHWI constant kernels and `add` biases of shape
// (1, 1, 1, C) (ConvertLayout's CanonicalizeOps and broadcast rule), as
// TVM's test_conv2d.py expects in its codegen.
PassPtr AclOptimize() {
  DesiredLayout desired{"NHWC", "OHWI", "IHWO"};
  desired.ops = {"nn.conv2d", "qnn.conv2d"};
  absl::StatusOr<PassPtr> convert = ConvertLayout(std::move(desired));
  return MakeSequential("relay.ext.arm_compute_lib.optimize", {*convert, FoldConstant()});
}

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
  d.optimize = AclOptimize;
  return d;
}

}  // namespace

CARVE_REGISTER_BACKEND(MakeAclBackend);

}  // namespace carve
