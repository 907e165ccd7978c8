// carve's own composite kernels, shared by the backends that run on Eigen
// (bnns, arm_compute_lib, nnapi, tensorrt) and by dnnl for what oneDNN does
// not take.
//
//   - MakeFusedKernel: anchor (conv / dense / conv_transpose / batch_matmul,
//     float or qnn) on the reference kernels, with a preceding constant
//     nn.pad folded into the anchor's padding, then bias, sum and activation
//     (or, after a qnn anchor, bias, activation and requantize) applied in
//     one pass over the anchor's output.
//   - MakeBodyKernel: any composite, evaluated node by node from its `body`
//     attribute on the reference kernels: ACL's pooling composites (cast ->
//     avg_pool2d -> cast, power -> avg_pool2d -> sqrt), TensorRT's one-op
//     composites, batch_norm followed by `.0`, DNNL's qnn chains.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "backends/runtime/node_kernel.h"

namespace carve {

// Requantization as a backend library does it: real = (acc - in_zp) *
// in_scale / out_scale, rounded half away from zero, plus out_zp, saturated
// (ACL's and NNAPI's output stage). The reference qnn.requantize rounds half
// up, so ties differ by one step.
enum class RoundingMode { kHalfAwayFromZero, kHalfUp };

struct FusedKernelOptions {
  RoundingMode rounding = RoundingMode::kHalfAwayFromZero;
};

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeFusedKernel(const NodeBuildContext& ctx,
                                                            FusedKernelOptions options = {});

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeBodyKernel(const NodeBuildContext& ctx);

}  // namespace carve
