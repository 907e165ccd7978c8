// fixed_point_multiply_per_axis with TVM's semantics (topi
// fixed_point_multiply_per_axis in python/tvm/topi/math.py and the
// tir.q_multiply_shift_per_axis legalization in src/target/intrin_rule.cc at
// v0.16.0): element x at index i takes the parameters at (i[axes[0]],
// i[axes[1]], ...) and becomes int32(((x << ls if is_lshift_required) * m +
// 2^(rs + 30)) >> (rs + 31)) computed in int64; the right shift is applied
// whatever is_rshift_required says (TVM's legalization ignores it), and
// unlike fixed_point_multiply there is no special case for m = 2^30.
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

absl::StatusOr<std::vector<NDArray>> FixedPointMultiplyPerAxis(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  const NDArray& x = ctx.inputs[0];
  for (size_t i = 0; i < 4; ++i) {
    // TVM's legalization checks int32 parameters; x is cast to int64 first
    // and the result is int32.
    if (ctx.inputs[i].dtype() != DataType::Int(32)) {
      return UnsupportedDType(ctx, ctx.inputs[i].dtype());
    }
  }
  const std::vector<int64_t> axes = AttrInts(ctx, "axes").value_or(std::vector<int64_t>{});
  std::vector<int64_t> param_shape;
  for (int64_t a : axes) {
    CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, a, int64_t(x.rank())));
    param_shape.push_back(x.shape()[axis]);
  }
  for (size_t i = 1; i < 4; ++i) {
    if (ctx.inputs[i].shape() != param_shape) {
      return KernelError(ctx, "input {} has shape {}, expected {} (x's extents at axes)", i,
                         ShapeString(ctx.inputs[i].shape()), ShapeString(param_shape));
    }
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.dtype() != DataType::Int(32)) return UnsupportedDType(ctx, out.dtype());
  const int32_t* m = ctx.inputs[1].data<int32_t>();
  const int32_t* ls = ctx.inputs[2].data<int32_t>();
  const int32_t* rs = ctx.inputs[3].data<int32_t>();
  const bool lshift = AttrBool(ctx, "is_lshift_required", false);
  const std::vector<int64_t> strides = RowMajorStrides(x.shape());
  const std::vector<int64_t> pstrides = RowMajorStrides(param_shape);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    int64_t p = 0;
    for (size_t k = 0; k < axes.size(); ++k) {
      const int64_t axis = axes[k] < 0 ? axes[k] + int64_t(x.rank()) : axes[k];
      p += (i / strides[axis] % x.shape()[axis]) * pstrides[k];
    }
    const int64_t total = int64_t(rs[p]) + 31;
    if ((lshift && (ls[p] < 0 || ls[p] > 63)) || total < 1 || total > 63) {
      return KernelError(ctx, "shifts left {} / right {} at parameter {} are outside the int64 "
                         "range", ls[p], rs[p], p);
    }
    // int64 arithmetic that wraps, as the lowered code's does.
    uint64_t v = uint64_t(int64_t(x.data<int32_t>()[i]));
    if (lshift) v <<= ls[p];
    v *= uint64_t(int64_t(m[p]));
    v += uint64_t(1) << (total - 1);
    out.data<int32_t>()[i] = int32_t(int64_t(v) >> total);
  }
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("fixed_point_multiply_per_axis",
                      carve::nn_kernels::FixedPointMultiplyPerAxis);
