// The node kernels of a backend that runs on carve's own Eigen kernels
// (bnns, arm_compute_lib, nnapi, tensorrt): every composite node is decoded
// from its label into a fused kernel (anchor + one-pass epilogue), or, when it
// is not such a chain or the fused kernel cannot take its dtypes, run node
// by node on the reference kernels (its `body` attribute); op nodes run on the reference kernels.
#pragma once

#include <memory>
#include <string>

#include "backends/kernels/fused_kernels.h"
#include "backends/runtime/node_kernel.h"

namespace carve {

// The composite factory described above.
NodeKernelFactory FusedOrChainFactory(FusedKernelOptions options = {});

// A backend named `name` whose composites use FusedOrChainFactory.
std::shared_ptr<BackendKernels> MakeEigenBackend(std::string name,
                                                 FusedKernelOptions options = {});

}  // namespace carve
