#include "interpreter/kernels/alloc_uninitialized.h"

#include "interpreter/kernels/kernel_util.h"

namespace carve {

absl::StatusOr<NDArray> AllocOutputUninitialized(const KernelContext& ctx) {
  const TensorType* t = DynCast<TensorType>(ctx.out_type);
  if (t == nullptr || !IsSupportedTensorDType(t->dtype())) return AllocOutput(ctx);  // its error
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(t);
  if (!shape.ok()) return AllocOutput(ctx);
  if (NDArray dst = TakeDestination(ctx, t->dtype(), *shape); dst.defined()) return dst;
  return NDArray::Uninitialized(t->dtype(), *shape);
}

absl::StatusOr<std::vector<NDArray>> AllocOutputsUninitialized(const KernelContext& ctx) {
  const TupleType* tt = DynCast<TupleType>(ctx.out_type);
  if (tt == nullptr) {
    CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
    return std::vector<NDArray>{std::move(out)};
  }
  std::vector<NDArray> outs;
  outs.reserve(tt->fields().size());
  for (const Type* f : tt->fields()) {
    const TensorType* t = DynCast<TensorType>(f);
    absl::StatusOr<std::vector<int64_t>> shape =
        t != nullptr && IsSupportedTensorDType(t->dtype()) ? StaticShape(t)
                                                           : absl::InvalidArgumentError("");
    if (!shape.ok()) return AllocOutputs(ctx);  // its error
    outs.push_back(NDArray::Uninitialized(t->dtype(), *shape));
  }
  return outs;
}

}  // namespace carve
