// The annotation and device ops whose TVM compute is the identity:
// bitpack_start / bitpack_end, cast_hint, checkpoint (a recomputation hint
// for the gradient pass) and device_copy (carve runs on one device).
// annotation.stop_fusion's kernel lives with the other elementwise ops.
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

absl::StatusOr<std::vector<NDArray>> Identity(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  return std::vector<NDArray>{ctx.inputs[0]};
}

}  // namespace

CARVE_REGISTER_KERNEL("annotation.bitpack_start", Identity);
CARVE_REGISTER_KERNEL("annotation.bitpack_end", Identity);
CARVE_REGISTER_KERNEL("annotation.cast_hint", Identity);
CARVE_REGISTER_KERNEL("annotation.checkpoint", Identity);
CARVE_REGISTER_KERNEL("device_copy", Identity);

}  // namespace carve
