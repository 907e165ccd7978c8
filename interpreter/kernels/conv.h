// Op-level convolution drivers shared by nn.conv* (conv.cc) and qnn.conv2d
// (qnn.cc): decode the Conv*Attrs, map layouts onto the engine's
// channels-first / channels-last buffers, pick the accumulation type from
// the output dtype and convert at the edges.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/kernel.h"

namespace carve::nn_kernels {

// qnn.conv2d's zero points: `data` is subtracted from every input element
// (so padding contributes zero, as if padded with the zero point) and
// `kernel` from every weight of an output channel (one value for all
// channels, or one per output channel).
struct ConvZeroPoints {
  int64_t data = 0;
  std::vector<int64_t> kernel{0};
};

// Runs the forward convolution of ctx.inputs[0] (data) and ctx.inputs[1]
// (weight) with `spatial` (1-3) spatial axes, writing the call's output type.
absl::StatusOr<std::vector<NDArray>> RunConv(const KernelContext& ctx, int spatial,
                                             const ConvZeroPoints* zero_points);

// Runs nn.conv{1,2,3}d_transpose with `spatial` spatial axes.
absl::StatusOr<std::vector<NDArray>> RunConvTranspose(const KernelContext& ctx, int spatial);

}  // namespace carve::nn_kernels
