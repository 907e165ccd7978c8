// The nn.dense driver, shared with qnn.dense (qnn.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/kernel.h"

namespace carve::nn_kernels {

// qnn.dense's zero points: `data` is subtracted from every input element and
// `weight` from every weight of a unit (one value, or one per unit).
struct DenseZeroPoints {
  int64_t data = 0;
  std::vector<int64_t> weight{0};
};

// Y = X · Wᵀ for ctx.inputs[0] = X (..., K) and ctx.inputs[1] = W (units, K),
// accumulated in the output dtype's accumulation type.
absl::StatusOr<std::vector<NDArray>> RunDense(const KernelContext& ctx,
                                              const DenseZeroPoints* zero_points);

}  // namespace carve::nn_kernels
