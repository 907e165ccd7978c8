// Indexing kernels (ops.md section 12): strided_slice and take.
#include <algorithm>
#include <cstring>
#include <limits>

#include "interpreter/kernels/data_movement.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;
constexpr int64_t kMaxIndex = std::numeric_limits<int64_t>::max();

// One axis of a slice: elements begin, begin + stride, ... (count of them).
struct AxisSlice {
  int64_t begin = 0, stride = 1, count = 0;
};

// TVM's canonicalisation of a begin/end index for an axis of extent n:
// negative values count from the end, then clamp to [0, n] for a forward
// slice or [-1, n - 1] for a backward one.
int64_t Canonical(int64_t x, int64_t n, int64_t stride) {
  if (x < 0) x += n;
  return stride > 0 ? std::clamp<int64_t>(x, 0, n) : std::clamp<int64_t>(x, -1, n - 1);
}

AxisSlice MakeAxisSlice(int64_t n, int64_t begin, int64_t end, int64_t stride, bool size_mode) {
  AxisSlice s;
  if (size_mode) {
    s.begin = Canonical(begin, n, 1);
    int64_t stop = end < 0 ? n : std::min(n, s.begin + end);  // `end` holds the size
    s.count = std::max<int64_t>(0, stop - s.begin);
    return s;
  }
  s.stride = stride;
  s.begin = Canonical(begin, n, stride);
  int64_t stop = Canonical(end, n, stride);
  int64_t span = stride > 0 ? stop - s.begin : s.begin - stop;
  int64_t step = stride > 0 ? stride : -stride;
  s.count = span <= 0 ? 0 : (span + step - 1) / step;
  return s;
}

// The slice of every axis from begin/end/strides/axes/slice_mode.
absl::StatusOr<std::vector<AxisSlice>> PlanSlice(const KernelContext& ctx,
                                                 std::span<const int64_t> shape) {
  const int64_t rank = shape.size();
  std::vector<int64_t> begin = AttrInts(ctx, "begin").value_or(std::vector<int64_t>{});
  std::vector<int64_t> end = AttrInts(ctx, "end").value_or(std::vector<int64_t>{});
  std::vector<int64_t> strides = AttrInts(ctx, "strides").value_or(std::vector<int64_t>{});
  const bool size_mode = AttrString(ctx, "slice_mode", "end") == "size";
  std::vector<int64_t> axes;
  if (auto a = AttrInts(ctx, "axes")) {
    axes = *a;
    // Missing strides default to 1 (the Python wrapper's strides=[1]).
    if (begin.size() != axes.size() || end.size() != axes.size()) {
      return KernelError(ctx, "begin and end need {} entries (one per axis)", axes.size());
    }
  } else {
    if (static_cast<int64_t>(begin.size()) > rank) {
      return KernelError(ctx, "begin has {} entries for rank {}", begin.size(), rank);
    }
    for (int64_t i = 0; i < static_cast<int64_t>(begin.size()); ++i) axes.push_back(i);
  }
  std::vector<AxisSlice> plan(rank);
  for (int64_t d = 0; d < rank; ++d) plan[d] = {0, 1, shape[d]};
  for (size_t k = 0; k < axes.size(); ++k) {
    CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, axes[k], rank));
    int64_t stride = size_mode || k >= strides.size() ? 1 : strides[k];
    if (stride == 0) return KernelError(ctx, "stride along axis {} is 0", axis);
    // A missing end is "to the end" forward, but 0 backward (TVM's default).
    int64_t stop = k < end.size() ? end[k] : (stride > 0 ? kMaxIndex : 0);
    plan[axis] = MakeAxisSlice(shape[axis], begin[k], stop, stride, size_mode);
  }
  return plan;
}

Outputs StridedSlice(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(std::vector<AxisSlice> plan, PlanSlice(ctx, in.shape()));
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
    for (int64_t i = 0; i < plan[d].count; ++i) maps[d][i] = plan[d].begin + i * plan[d].stride;
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
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(p[i]);
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
