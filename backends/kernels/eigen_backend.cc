#include "backends/kernels/eigen_backend.h"

#include "backends/kernels/fusion.h"

namespace carve {

NodeKernelFactory FusedOrChainFactory(FusedKernelOptions options) {
  return [options](const NodeBuildContext& ctx) -> absl::StatusOr<std::unique_ptr<NodeKernel>> {
    if (DecodeFusion(ctx.node()).ok()) {
      absl::StatusOr<std::unique_ptr<NodeKernel>> fused = MakeFusedKernel(ctx, options);
      // A chain the fused kernel cannot compute (an integer dtype without a
      // requantize) still runs, op by op.
      if (fused.ok() || fused.status().code() != absl::StatusCode::kUnimplemented) return fused;
    }
    return MakeBodyKernel(ctx);
  };
}

std::shared_ptr<BackendKernels> MakeEigenBackend(std::string name, FusedKernelOptions options) {
  auto kernels = std::make_shared<BackendKernels>(std::move(name));
  kernels->SetCompositeDefault(FusedOrChainFactory(options));
  return kernels;
}

}  // namespace carve
