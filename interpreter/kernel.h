// The kernel interface of the interpreter: one function per op, registered
// by op name. Kernel families live in interpreter/kernels/<family>.cc and
// register themselves with CARVE_REGISTER_KERNEL.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/op.h"
#include "ir/type.h"

namespace Eigen {
class ThreadPoolDevice;
}

namespace carve {

// What a kernel keeps across the calls of one execution-plan step, such as
// a constant weight packed once into the layout its kernel wants. Owned by
// the plan step; a kernel derives its own state from it.
struct KernelStepState {
  virtual ~KernelStepState() = default;
};

struct KernelContext {
  const OpInfo* op = nullptr;
  // The call's arguments. A tuple argument (concatenate, stack) is
  // flattened: its fields appear in order in place of the tuple.
  std::span<const NDArray> inputs;
  // The call's attributes (a schema instance; nullptr for attribute-less ops).
  const Attrs* attrs = nullptr;
  // The call's inferred output type (a TensorType, or a TupleType for
  // batch_norm / split / dropout). Kernels allocate outputs of this type.
  const Type* out_type = nullptr;
  // Thread pool for heavy kernels; nullptr means single-threaded.
  const Eigen::ThreadPoolDevice* device = nullptr;
  // Set only for calls from an execution plan: bit i is set when inputs[i]
  // is a constant of the module (the same tensor, never written, on every
  // call of the step), and `state` is the step's slot for KernelStepState.
  uint64_t constant_inputs = 0;
  std::unique_ptr<KernelStepState>* state = nullptr;
  // Set only by an execution plan that placed this call's output (a slice
  // of a block the plan joins without a copy, interpreter/kernel_join.h):
  // storage of the output's dtype and shape that AllocOutput and
  // AllocOutputUninitialized hand out, once, instead of a new tensor.
  NDArray* destination = nullptr;
};

// Returns the outputs: one tensor, or the fields of a tuple-typed result.
using KernelFn = absl::StatusOr<std::vector<NDArray>> (*)(const KernelContext& ctx);

// Registers `fn` for the op `op_name` (the last registration wins).
void RegisterKernel(std::string_view op_name, KernelFn fn);
// The kernel for `op_name`, or nullptr.
KernelFn FindKernel(std::string_view op_name);

namespace internal {
struct KernelRegistrar {
  KernelRegistrar(std::string_view op_name, KernelFn fn) { RegisterKernel(op_name, fn); }
};
}  // namespace internal

}  // namespace carve

#define CARVE_KERNEL_CONCAT_INNER_(a, b) a##b
#define CARVE_KERNEL_CONCAT_(a, b) CARVE_KERNEL_CONCAT_INNER_(a, b)
// At namespace scope in a kernels/*.cc file:
//   CARVE_REGISTER_KERNEL("nn.relu", ReluKernel);
#define CARVE_REGISTER_KERNEL(op_name, fn)                                         \
  static ::carve::internal::KernelRegistrar CARVE_KERNEL_CONCAT_(kernel_reg_, __LINE__)( \
      op_name, fn)
