// In-place variants of element-wise kernels, for execution plans
// (interpreter/plan.h): when a step's first operand is a tensor that no one
// else holds (its producer wrote it fresh and this step reads it last and
// once), the plan lets the op write its result over that tensor instead of
// allocating and zero-filling a new one (conv -> bias_add -> relu runs in one
// buffer). A variant shares its arithmetic with the op's ordinary kernel, so
// the bits are the same; it only applies when the result has the operand's
// dtype and shape. Kernel files register variants next to their kernels:
//   CARVE_REGISTER_INPLACE_KERNEL("nn.relu", ReluInPlace);
#pragma once

#include <string_view>

#include "interpreter/kernel.h"

namespace carve {

// Writes the op's result over `data` (the tensor of ctx.inputs[0], which
// shares its buffer) and returns true; returns false without writing when
// the variant does not apply (dtype, shape or attributes it does not cover,
// or an input the ordinary kernel would reject): the caller then runs the
// ordinary kernel, which reports any error.
using InPlaceKernelFn = bool (*)(const KernelContext& ctx, NDArray& data);

void RegisterInPlaceKernel(std::string_view op_name, InPlaceKernelFn fn);
// The variant for `op_name`, or nullptr.
InPlaceKernelFn FindInPlaceKernel(std::string_view op_name);

// True when ctx.out_type is a static tensor type of `data`'s dtype and shape
// (the result can overwrite `data`).
bool ResultFitsInPlace(const KernelContext& ctx, const NDArray& data);

namespace internal {
struct InPlaceKernelRegistrar {
  InPlaceKernelRegistrar(std::string_view op_name, InPlaceKernelFn fn) {
    RegisterInPlaceKernel(op_name, fn);
  }
};
}  // namespace internal

}  // namespace carve

#define CARVE_REGISTER_INPLACE_KERNEL(op_name, fn)                                           \
  static ::carve::internal::InPlaceKernelRegistrar CARVE_KERNEL_CONCAT_(inplace_reg_, __LINE__)( \
      op_name, fn)
