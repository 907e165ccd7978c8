// Kernels of the ops that take their shape or dtype from an attribute or
// another tensor (TVM's topi reshape, broadcast_to, full_like, cast,
// collapse_sum, slice_like, reinterpret). Data moves as bytes, so every
// dtype works; collapse_sum adds in the element type.
#include <cstring>

#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// out = in's bytes, same element count (reshape_like, reverse_reshape).
Outputs CopyBytes(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const NDArray& in = ctx.inputs[0];
  if (out.nbytes() != in.nbytes()) {
    return KernelError(ctx, "cannot reshape {} to {}", ShapeString(in.shape()),
                       ShapeString(out.shape()));
  }
  std::memcpy(out.raw_data(), in.raw_data(), in.nbytes());
  return std::vector<NDArray>{out};
}

// The flat offset in `in` (right-aligned against `out_shape`, size-1 dims
// broadcast) of every output element, in output order.
std::vector<int64_t> BroadcastSources(const std::vector<int64_t>& in_shape,
                                      const std::vector<int64_t>& out_shape) {
  const size_t rank = out_shape.size(), lead = rank - in_shape.size();
  std::vector<int64_t> in_strides = RowMajorStrides(in_shape);
  int64_t n = ShapeProduct(out_shape, 0, rank);
  std::vector<int64_t> src(size_t(n), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, off = 0;
    for (size_t d = rank; d-- > lead;) {
      int64_t coord = rem % out_shape[d];
      rem /= out_shape[d];
      if (in_shape[d - lead] != 1) off += coord * in_strides[d - lead];
    }
    src[flat] = off;
  }
  return src;
}

// broadcast_to, broadcast_to_like.
Outputs BroadcastTo(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.rank() < in.rank()) {
    return KernelError(ctx, "cannot broadcast {} to {}", ShapeString(in.shape()),
                       ShapeString(out.shape()));
  }
  const size_t bytes = in.dtype().bytes();
  std::vector<int64_t> src = BroadcastSources(in.shape(), out.shape());
  const auto* s = static_cast<const std::byte*>(in.raw_data());
  auto* d = static_cast<std::byte*>(out.raw_data());
  for (size_t i = 0; i < src.size(); ++i) std::memcpy(d + i * bytes, s + src[i] * bytes, bytes);
  return std::vector<NDArray>{out};
}

// full_like(data, fill_value): fill_value converted to data's dtype.
Outputs FullLike(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(T v, ReadScalar<T>(ctx, ctx.inputs[1], "fill_value"));
    std::fill_n(out.data<T>(), out.num_elements(), v);
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{out};
}

// cast_like(data, dtype_like): the cast kernel on data alone.
Outputs CastLike(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  KernelFn cast = FindKernel("cast");
  if (cast == nullptr) return absl::InternalError("cast_like: no cast kernel registered");
  KernelContext sub = ctx;
  sub.inputs = ctx.inputs.subspan(0, 1);
  return cast(sub);
}

// reinterpret: the same bytes under another dtype of equal width.
Outputs Reinterpret(const KernelContext& ctx) { return CopyBytes(ctx); }

// collapse_sum_like / collapse_sum_to: sums data down to the output shape
// (the reverse of broadcasting it).
Outputs CollapseSum(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (in.rank() < out.rank()) {
    return KernelError(ctx, "cannot collapse {} to {}", ShapeString(in.shape()),
                       ShapeString(out.shape()));
  }
  std::vector<int64_t> dst = BroadcastSources(out.shape(), in.shape());
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    std::vector<C> acc(size_t(out.num_elements()), C(0));
    const T* x = in.data<T>();
    for (size_t i = 0; i < dst.size(); ++i) acc[dst[i]] += C(x[i]);
    for (size_t i = 0; i < acc.size(); ++i) out.data<T>()[i] = T(acc[i]);
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{out};
}

// slice_like: the leading corner of data with the output's shape.
Outputs SliceLike(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const size_t rank = out.rank(), bytes = in.dtype().bytes();
  std::vector<int64_t> strides = RowMajorStrides(in.shape());
  const auto* s = static_cast<const std::byte*>(in.raw_data());
  auto* d = static_cast<std::byte*>(out.raw_data());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    int64_t rem = flat, off = 0;
    for (size_t k = rank; k-- > 0;) {
      off += (rem % out.shape()[k]) * strides[k];
      rem /= out.shape()[k];
    }
    std::memcpy(d + flat * bytes, s + off * bytes, bytes);
  }
  return std::vector<NDArray>{out};
}

}  // namespace

CARVE_REGISTER_KERNEL("reshape_like", CopyBytes);
CARVE_REGISTER_KERNEL("contrib_reverse_reshape", CopyBytes);
CARVE_REGISTER_KERNEL("broadcast_to", BroadcastTo);
CARVE_REGISTER_KERNEL("broadcast_to_like", BroadcastTo);
CARVE_REGISTER_KERNEL("full_like", FullLike);
CARVE_REGISTER_KERNEL("cast_like", CastLike);
CARVE_REGISTER_KERNEL("reinterpret", Reinterpret);
CARVE_REGISTER_KERNEL("collapse_sum_like", CollapseSum);
CARVE_REGISTER_KERNEL("collapse_sum_to", CollapseSum);
CARVE_REGISTER_KERNEL("slice_like", SliceLike);

}  // namespace carve
