// layout_transform (ops.md section 12): moves data between layouts with the
// same primal axes, e.g. NCHW <-> NHWC or NCHW <-> NCHW16c, through
// ir/layout.h's bijection.
#include <cstring>

#include "interpreter/kernels/data_movement.h"
#include "interpreter/kernels/kernel_util.h"
#include "ir/layout.h"

namespace carve {
namespace {

absl::StatusOr<std::vector<NDArray>> LayoutTransform(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  auto bijection =
      BijectiveLayout::Make(AttrString(ctx, "src_layout", ""), AttrString(ctx, "dst_layout", ""));
  if (!bijection.ok()) return KernelError(ctx, "{}", std::string(bijection.status().message()));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (in.rank() != bijection->src().ndim() || out.rank() != bijection->dst().ndim() ||
      out.dtype() != in.dtype()) {
    return KernelError(ctx, "cannot transform {} {} from {} to {}", ShapeString(in.shape()),
                       in.dtype().ToString(), bijection->src().name(), bijection->dst().name());
  }
  // Pure permutations (no split axis) take the fast transpose path.
  if (auto perm = bijection->Permutation()) {
    std::vector<int64_t> p(perm->begin(), perm->end());
    PermuteCopy(in, out, p);
    return std::vector<NDArray>{std::move(out)};
  }
  // Split axes: map every output coordinate back to the input. Positions
  // that fall outside the input (a split that does not divide) stay zero.
  const int64_t es = in.dtype().bytes();
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape());
  std::vector<int64_t> dst_index(out.rank(), 0), src_index(in.rank(), 0);
  const auto* src = static_cast<const std::byte*>(in.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (int64_t flat = 0, n = out.num_elements(); flat < n; ++flat) {
    bijection->BackwardIndex(dst_index, src_index);
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d < in.rank(); ++d) {
      inside = inside && src_index[d] >= 0 && src_index[d] < in.shape()[d];
      offset += src_index[d] * in_strides[d];
    }
    if (inside) std::memcpy(dst + flat * es, src + offset * es, es);
    for (size_t d = out.rank(); d-- > 0;) {
      if (++dst_index[d] < out.shape()[d]) break;
      dst_index[d] = 0;
    }
  }
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace

CARVE_REGISTER_KERNEL("layout_transform", LayoutTransform);

}  // namespace carve
