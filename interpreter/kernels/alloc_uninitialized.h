// Output allocation without the zero fill (NDArray::Uninitialized), for
// kernels that provably write every element of their output before anything
// reads it. A kernel that accumulates into its output, writes only part of
// it, or may return early after allocating keeps AllocOutput's zeros.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/kernel.h"

namespace carve {

// AllocOutput (kernel_util.h) with unspecified contents: the same checks and
// errors, the same shape and dtype.
absl::StatusOr<NDArray> AllocOutputUninitialized(const KernelContext& ctx);

// AllocOutputs (kernel_util.h) with unspecified contents: one tensor per
// field of a tuple output type (or the one output), same checks and errors.
absl::StatusOr<std::vector<NDArray>> AllocOutputsUninitialized(const KernelContext& ctx);

}  // namespace carve
