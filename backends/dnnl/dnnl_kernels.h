// The oneDNN node kernels of the dnnl backend. Each factory returns
// Unimplemented for a node it cannot express exactly in oneDNN (dtype other
// than float32, a layout or broadcast oneDNN lacks, a GELU with other
// constants), and the backend then runs the node on carve's kernels.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/kernels/fusion.h"
#include "backends/runtime/node_kernel.h"

namespace carve::dnnl_backend {

// nn.conv{1,2,3}d and nn.conv{2,3}d_transpose, with the bias, sum and
// activation of `spec` as post-ops.
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlConv(const NodeBuildContext& ctx,
                                                         const FusionSpec& spec);
// nn.dense as a matmul with the bias, sum and activation of `spec`.
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlDense(const NodeBuildContext& ctx,
                                                          const FusionSpec& spec);
// nn.batch_matmul (transpose_a / transpose_b, broadcast batch).
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlBatchMatmul(const NodeBuildContext& ctx);
// Unary elementwise ops (nn.relu, tanh, sigmoid, exp, log, sqrt, abs, round,
// clip, nn.leaky_relu).
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlEltwise(const NodeBuildContext& ctx);
// nn.softmax.
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlSoftmax(const NodeBuildContext& ctx);
// nn.max_pool2d / avg_pool2d / max_pool3d / avg_pool3d / global_avg_pool2d.
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlPool(const NodeBuildContext& ctx);
// add / multiply with numpy broadcasting of one operand.
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlBinary(const NodeBuildContext& ctx);
// multiply: x * clip(x + k, lo, hi) in one pass when it ends such a chain
// (hard-swish; dnnl_chain.cc), else MakeDnnlBinary.
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlMultiply(const NodeBuildContext& ctx);
// nn.layer_norm over the last axis (oneDNN's layer_normalization; a
// transformer's normalization otherwise runs on the reference kernel).
absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlLayerNorm(const NodeBuildContext& ctx);

// The dnnl backend's node kernels (the above, each falling back to carve's
// kernels), under the backend name `name`.
std::shared_ptr<BackendKernels> MakeDnnlKernels(std::string name = "dnnl");

}  // namespace carve::dnnl_backend
