// The bnns runtime: Apple BNNS's fused layers on carve's Eigen kernels.
//
// BNNS runs a convolution or fully connected layer with its bias and
// activation as one filter (BNNSFilterCreateLayerConvolution /
// LayerFullyConnected with a BNNSActivation): bnns.conv2d_bias_relu,
// conv2d_bias_sigmoid, dense_bias_gelu (BNNS's tanh approximation of GELU)
// and the others of bnns.pat map onto the fused anchor + epilogue kernel,
// float32 as BNNS computes them. Single ops (pools, batch_matmul,
// instance_norm) run on the reference kernels, whose semantics are Relay's.
#include "backends/kernels/eigen_backend.h"
#include "backends/runtime/backend_runtime.h"

namespace carve {
namespace {

std::shared_ptr<const BackendKernels> MakeBnnsKernels() { return MakeEigenBackend("bnns"); }

}  // namespace

CARVE_REGISTER_BACKEND_RUNTIME(MakeBnnsKernels);

}  // namespace carve
