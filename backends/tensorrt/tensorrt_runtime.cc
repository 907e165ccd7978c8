// The tensorrt runtime: TensorRT layers on carve's Eigen kernels.
//
// Every tensorrt.pat rule is a one-op composite (tensorrt.nn.conv2d,
// tensorrt.add, ... and batch_norm followed by `.0`), which TensorRT turns
// into one layer each; TensorRT's layer fusion happens inside its engine and
// does not change results beyond float rounding. Each composite runs its op
// on the reference kernels (Relay's semantics, float32 as TensorRT without
// fp16 computes), through the body kernel.
#include "backends/kernels/eigen_backend.h"
#include "backends/kernels/fused_kernels.h"
#include "backends/runtime/backend_runtime.h"

namespace carve {
namespace {

std::shared_ptr<const BackendKernels> MakeTensorRtKernels() {
  auto kernels = std::make_shared<BackendKernels>("tensorrt");
  kernels->SetCompositeDefault(MakeBodyKernel);
  return kernels;
}

}  // namespace

CARVE_REGISTER_BACKEND_RUNTIME(MakeTensorRtKernels);

}  // namespace carve
