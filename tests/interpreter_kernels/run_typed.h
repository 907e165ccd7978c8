// RunTyped: one registered kernel run with the output type its op's type
// relation gives (kernel_test_util.h's RunKernel1 takes the type from the
// test instead).
#pragma once

#include <string_view>
#include <vector>

#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {

inline absl::StatusOr<NDArray> RunTyped(std::string_view op, const std::vector<NDArray>& inputs,
                                        const Attrs* attrs) {
  const OpInfo* info = FindOp(op);
  if (info == nullptr) return absl::NotFoundError(std::string("no op ") + std::string(op));
  std::vector<const Type*> types;
  for (const NDArray& a : inputs) types.push_back(TypeOf(a.dtype(), a.shape()));
  absl::StatusOr<const Type*> out = info->type_rel(TypeRelCall{info, types, attrs});
  if (!out.ok()) return out.status();
  return RunKernel1(op, inputs, attrs, *out);
}

}  // namespace carve::kernel_testing
