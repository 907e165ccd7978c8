// Indexing kernels (ops.md section 12): strided_slice and take.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "interpreter/kernels/data_movement.h"
#include "interpreter/kernels/kernel_util.h"
#include "ir/strided_slice.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// The slice of every axis, by the same plan as the type relation
// (ir/strided_slice.h): an output shape the relation accepted is the shape
// the kernel produces.
absl::StatusOr<std::vector<AxisSliceRange>> PlanSlice(const KernelContext& ctx,
                                                      std::span<const int64_t> shape) {
  const int64_t rank = shape.size();
  StridedSliceAttrValues values;
  values.begin = AttrInts(ctx, "begin").value_or(std::vector<int64_t>{});
  values.end = AttrInts(ctx, "end").value_or(std::vector<int64_t>{});
  values.strides = AttrInts(ctx, "strides").value_or(std::vector<int64_t>{1});
  values.size_mode = AttrString(ctx, "slice_mode", "end") == "size";
  if (auto axes = AttrInts(ctx, "axes")) {
    values.has_axes = true;
    values.axes = *axes;
  }
  auto planned = PlanStridedSlice(values, rank);
  if (!planned.ok()) return KernelError(ctx, "{}", std::string(planned.status().message()));
  std::vector<AxisSliceRange> plan(rank);
  for (int64_t d = 0; d < rank; ++d) plan[d] = {0, 1, shape[d]};
  for (size_t k = 0; k < planned->axes.size(); ++k) {
    const int64_t axis = planned->axes[k];
    auto range =
        SliceAxis(shape[axis], planned->begin[k], planned->end[k], planned->strides[k], axis);
    if (!range.ok()) return KernelError(ctx, "{}", std::string(range.status().message()));
    plan[axis] = *range;
  }
  return plan;
}

Outputs StridedSlice(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(std::vector<AxisSliceRange> plan, PlanSlice(ctx, in.shape()));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.rank() != in.rank()) {
    return KernelError(ctx, "output type {} has the wrong rank", TypeToString(ctx.out_type));
  }
  std::vector<std::vector<int64_t>> maps(in.rank());
  for (size_t d = 0; d < in.rank(); ++d) {
    if (plan[d].count != out.shape()[d]) {
      return KernelError(ctx, "slice of axis {} has {} elements, output type {} says {}", d,
                         plan[d].count, TypeToString(ctx.out_type), out.shape()[d]);
    }
    maps[d].resize(plan[d].count);
    for (int64_t i = 0; i < plan[d].count; ++i) maps[d][i] = plan[d].first + i * plan[d].stride;
  }
  GatherAxes(in, out, maps, nullptr);
  return std::vector<NDArray>{std::move(out)};
}

// Maps an index into [0, n) by take's mode, or returns -1 when out of range
// in "fast" mode (which carve reports instead of reading out of bounds).
int64_t TakeIndex(int64_t i, int64_t n, std::string_view mode) {
  if (mode == "wrap") return ((i % n) + n) % n;
  if (mode == "fast") return (i >= 0 && i < n) ? i : -1;
  return std::clamp<int64_t>(i, 0, n - 1);  // "clip"
}

// take(data, indices): axis null takes from the flattened data. With an
// axis and batch_dims b, out = data[:b] + data[b:axis] + indices[b:] +
// data[axis+1:], reading indices of the matching batch.
Outputs Take(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  NDArray data = ctx.inputs[0];
  const NDArray& indices = ctx.inputs[1];
  if (!indices.dtype().is_integral() || indices.dtype().is_bool()) {
    return KernelError(ctx, "indices must be integers, got {}", indices.dtype().ToString());
  }
  const std::string_view mode = AttrString(ctx, "mode", "clip");
  int64_t axis = 0, batch_dims = 0;
  if (AttrIsNull(ctx, "axis")) {
    data = data.Reshape(std::vector<int64_t>{data.num_elements()});
  } else {
    CARVE_ASSIGN_OR_RETURN(axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), data.rank()));
    batch_dims = AttrInt(ctx, "batch_dims", 0);
    if (batch_dims < 0) batch_dims += indices.rank();
    if (batch_dims < 0 || batch_dims > axis || batch_dims > int64_t(indices.rank())) {
      return KernelError(ctx, "batch_dims {} is out of range", AttrInt(ctx, "batch_dims", 0));
    }
  }
  const auto& ds = data.shape();
  const int64_t batch = ShapeProduct(ds, 0, batch_dims);
  const int64_t outer = ShapeProduct(ds, batch_dims, axis);
  const int64_t n = ds[axis];
  const int64_t inner = ShapeProduct(ds, axis + 1, ds.size());
  const int64_t per_batch = ShapeProduct(indices.shape(), batch_dims, indices.rank());
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.dtype() != data.dtype() || out.num_elements() != batch * outer * per_batch * inner) {
    return KernelError(ctx, "output type {} does not match the inputs", TypeToString(ctx.out_type));
  }
  if (out.num_elements() == 0) return std::vector<NDArray>{std::move(out)};
  if (n == 0) return KernelError(ctx, "cannot take from an empty axis");
  // Resolve every index once, in int64.
  std::vector<int64_t> idx(indices.num_elements());
  CARVE_RETURN_IF_ERROR(DispatchInteger(ctx, indices.dtype(), [&]<typename I>() {
    const I* p = indices.data<I>();
    for (size_t i = 0; i < idx.size(); ++i) {
      // A uint64 above INT64_MAX stays far out of range (static_cast would
      // make it negative, an index from the end); wrap mode takes it
      // modulo n exactly.
      if constexpr (std::is_same_v<I, uint64_t>) {
        idx[i] = p[i] > uint64_t(INT64_MAX)
                     ? (mode == "wrap" ? int64_t(p[i] % uint64_t(n)) : INT64_MAX)
                     : int64_t(p[i]);
      } else {
        idx[i] = static_cast<int64_t>(p[i]);
      }
    }
    return absl::OkStatus();
  }));
  for (int64_t& i : idx) {
    int64_t raw = i;
    i = TakeIndex(raw, n, mode);
    if (i < 0) return KernelError(ctx, "index {} is out of range for axis of {}", raw, n);
  }
  const int64_t es = data.dtype().bytes();
  const auto* src = static_cast<const std::byte*>(data.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t o = 0; o < outer; ++o) {
      const std::byte* block = src + ((b * outer + o) * n) * inner * es;
      for (int64_t j = 0; j < per_batch; ++j) {
        std::memcpy(dst, block + idx[b * per_batch + j] * inner * es, inner * es);
        dst += inner * es;
      }
    }
  }
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace

CARVE_REGISTER_KERNEL("strided_slice", StridedSlice);
CARVE_REGISTER_KERNEL("take", Take);

}  // namespace carve
