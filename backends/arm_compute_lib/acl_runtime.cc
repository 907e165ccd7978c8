// The arm_compute_lib runtime: Arm Compute Library's functions on carve's
// Eigen kernels.
//
// ACL's NEConvolutionLayer / NEFullyConnectedLayer take a fused bias and
// activation and, for quantized types, requantize in their output stage
// with a fixed-point multiplier that rounds half away from zero; a leading
// nn.pad becomes the layer's padding (ACL's codegen merges it the same way).
// arm_compute_lib.conv2d, qnn_conv2d, dense and qnn_dense map onto the fused
// kernel with that rounding; the pooling composites (cast -> avg_pool2d ->
// cast, power -> avg_pool2d -> sqrt for L2 pooling) and concatenate run as
// chains; single ops (reshape, pools, add, maximum, qnn.add) on the
// reference kernels.
#include "backends/kernels/eigen_backend.h"
#include "backends/runtime/backend_runtime.h"

namespace carve {
namespace {

std::shared_ptr<const BackendKernels> MakeAclKernels() {
  return MakeEigenBackend("arm_compute_lib", {RoundingMode::kHalfAwayFromZero});
}

}  // namespace

CARVE_REGISTER_BACKEND_RUNTIME(MakeAclKernels);

}  // namespace carve
