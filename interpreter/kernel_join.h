// Ops whose kernel returns a view of its inputs, not a copy, when they lie
// one after another in one allocation, in order (concatenate along an axis
// with only 1s before it: interpreter/kernels/transform.cc). An execution
// plan (interpreter/plan.h) then lets the kernels that produce the inputs
// write into adjacent slices of one block, so the join copies nothing:
// squeezenet's fire modules concatenate their two expand convolutions.
// Kernel files register the test next to their kernel:
//   CARVE_REGISTER_ADJACENT_JOIN("concatenate", ConcatenateViewsAdjacentInputs);
#pragma once

#include <string_view>

#include "interpreter/kernel.h"
#include "ir/expr.h"

namespace carve {

// True when the kernel of `call` (typed) returns a view of its inputs
// whenever they are adjacent in order and have the types the call's
// arguments have.
using AdjacentJoinFn = bool (*)(const Call* call);

void RegisterAdjacentJoin(std::string_view op_name, AdjacentJoinFn fn);
// The test for `op_name`, or nullptr.
AdjacentJoinFn FindAdjacentJoin(std::string_view op_name);

namespace internal {
struct AdjacentJoinRegistrar {
  AdjacentJoinRegistrar(std::string_view op_name, AdjacentJoinFn fn) {
    RegisterAdjacentJoin(op_name, fn);
  }
};
}  // namespace internal

}  // namespace carve

#define CARVE_REGISTER_ADJACENT_JOIN(op_name, fn)                                          \
  static ::carve::internal::AdjacentJoinRegistrar CARVE_KERNEL_CONCAT_(join_reg_, __LINE__)( \
      op_name, fn)
