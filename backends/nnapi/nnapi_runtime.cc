// The nnapi runtime: Android NNAPI's operations on carve's Eigen kernels.
//
// NNAPI's ANEURALNETWORKS_CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED take
// a bias and a fused activation code (NONE, RELU, RELU1, RELU6); the nnapi.pat
// composites (conv2d / dense with optional bias and relu or clip) map onto the
// fused kernel, clip standing for RELU1 / RELU6. Quantized outputs round half
// away from zero, as NNAPI's reference implementation does. Single ops run on
// the reference kernels.
#include "backends/kernels/eigen_backend.h"
#include "backends/runtime/backend_runtime.h"

namespace carve {
namespace {

std::shared_ptr<const BackendKernels> MakeNnapiKernels() {
  return MakeEigenBackend("nnapi", {RoundingMode::kHalfAwayFromZero});
}

}  // namespace

CARVE_REGISTER_BACKEND_RUNTIME(MakeNnapiKernels);

}  // namespace carve
