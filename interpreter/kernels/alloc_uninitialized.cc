#include "interpreter/kernels/alloc_uninitialized.h"

#include "interpreter/kernels/kernel_util.h"

namespace carve {

absl::StatusOr<NDArray> AllocOutputUninitialized(const KernelContext& ctx) {
  const TensorType* t = DynCast<TensorType>(ctx.out_type);
  if (t == nullptr || !IsSupportedTensorDType(t->dtype())) return AllocOutput(ctx);  // its error
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(t);
  if (!shape.ok()) return AllocOutput(ctx);
  return NDArray::Uninitialized(t->dtype(), *shape);
}

}  // namespace carve
