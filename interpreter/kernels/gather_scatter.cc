// gather, scatter_elements, cumsum and topk (TVM's topi gather,
// scatter_elements, cumsum and topk). Elements move as bytes, so every dtype works; scatter
// reductions and cumsum compute in the element type.
#include <algorithm>
#include <cstring>

#include "interpreter/kernels/index_value.h"
#include "interpreter/kernels/kernel_util.h"
#include "interpreter/kernels/sort_key.h"

namespace carve {
namespace {

// Row-major strides of `shape`.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

// The flat offset in `data` of the element at the multi-index of flat
// position `flat` in a tensor of `shape`, with the coordinate on `axis`
// replaced by `index`.
int64_t Remap(int64_t flat, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& data_strides, int64_t axis, int64_t index) {
  int64_t offset = 0;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    int64_t coord = flat % shape[d];
    flat /= shape[d];
    offset += (d == axis ? index : coord) * data_strides[d];
  }
  return offset;
}

// An index value checked against `extent` (negative counts from the end,
// as TVM's scatter_elements; gather's importer normalises first).
absl::StatusOr<int64_t> CheckedIndex(const KernelContext& ctx, const NDArray& idx, int64_t i,
                                     int64_t extent) {
  const int64_t raw = IndexElement(idx, i);
  const int64_t v = raw < 0 ? raw + extent : raw;
  if (raw < -extent || v >= extent) {
    return KernelError(ctx, "index {} is out of range for extent {}", raw, extent);
  }
  return v;
}

absl::StatusOr<std::vector<NDArray>> Gather(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& idx = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), int64_t(data.rank())));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const size_t bytes = data.dtype().bytes();
  std::vector<int64_t> strides = Strides(data.shape());
  const auto* src = static_cast<const std::byte*>(data.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (int64_t i = 0; i < idx.num_elements(); ++i) {
    CARVE_ASSIGN_OR_RETURN(int64_t k, CheckedIndex(ctx, idx, i, data.shape()[axis]));
    std::memcpy(dst + i * bytes, src + Remap(i, idx.shape(), strides, axis, k) * bytes, bytes);
  }
  return std::vector<NDArray>{out};
}

// out[remap(i)] = combine(out[remap(i)], updates[i]).
template <typename T>
absl::Status ScatterTyped(const KernelContext& ctx, NDArray& out, const NDArray& idx,
                          const NDArray& updates, int64_t axis, std::string_view reduction) {
  std::vector<int64_t> strides = Strides(out.shape());
  T* o = out.data<T>();
  const T* u = updates.data<T>();
  for (int64_t i = 0; i < idx.num_elements(); ++i) {
    CARVE_ASSIGN_OR_RETURN(int64_t k, CheckedIndex(ctx, idx, i, out.shape()[axis]));
    T& slot = o[Remap(i, idx.shape(), strides, axis, k)];
    if (reduction == "update") slot = u[i];
    else if (reduction == "add") slot = T(slot + u[i]);
    else if (reduction == "mul") slot = T(slot * u[i]);
    else if (reduction == "min") slot = std::min(slot, u[i]);
    else if (reduction == "max") slot = std::max(slot, u[i]);
    else return KernelError(ctx, "unknown reduction \"{}\"", reduction);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> ScatterElements(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), int64_t(data.rank())));
  NDArray out = data.Copy();
  std::string_view reduction = AttrString(ctx, "reduction", "update");
  absl::Status s;
  DataType dt = data.dtype();
  if (dt == DataType::Float(32)) s = ScatterTyped<float>(ctx, out, ctx.inputs[1], ctx.inputs[2], axis, reduction);
  else if (dt == DataType::Float(64)) s = ScatterTyped<double>(ctx, out, ctx.inputs[1], ctx.inputs[2], axis, reduction);
  else if (dt == DataType::Int(32)) s = ScatterTyped<int32_t>(ctx, out, ctx.inputs[1], ctx.inputs[2], axis, reduction);
  else if (dt == DataType::Int(64)) s = ScatterTyped<int64_t>(ctx, out, ctx.inputs[1], ctx.inputs[2], axis, reduction);
  else if (dt.bytes() == 1) s = ScatterTyped<uint8_t>(ctx, out, ctx.inputs[1], ctx.inputs[2], axis, reduction);
  else return UnsupportedDType(ctx, dt);
  if (!s.ok()) return s;
  return std::vector<NDArray>{out};
}

// Running sums along `axis` over [outer, extent, inner] blocks.
template <typename In, typename Out>
void CumsumTyped(const NDArray& in, NDArray& out, int64_t outer, int64_t extent, int64_t inner,
                 bool exclusive) {
  const In* x = in.data<In>();
  Out* y = out.data<Out>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      Out acc = Out(0);
      for (int64_t k = 0; k < extent; ++k) {
        int64_t at = (o * extent + k) * inner + j;
        if (exclusive) {
          y[at] = acc;
          acc = Out(acc + Out(x[at]));
        } else {
          acc = Out(acc + Out(x[at]));
          y[at] = acc;
        }
      }
    }
  }
}

absl::StatusOr<std::vector<NDArray>> Cumsum(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  int64_t outer = 1, extent = data.num_elements(), inner = 1;
  if (!AttrIsNull(ctx, "axis")) {
    CARVE_ASSIGN_OR_RETURN(int64_t axis,
                           NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), int64_t(data.rank())));
    const auto& s = data.shape();
    extent = s[axis];
    for (int64_t i = 0; i < axis; ++i) outer *= s[i];
    for (size_t i = axis + 1; i < s.size(); ++i) inner *= s[i];
  }
  bool exclusive = AttrBool(ctx, "exclusive", false);
  DataType in = data.dtype(), o = out.dtype();
  if (in == DataType::Float(32) && o == in) CumsumTyped<float, float>(data, out, outer, extent, inner, exclusive);
  else if (in == DataType::Float(64) && o == in) CumsumTyped<double, double>(data, out, outer, extent, inner, exclusive);
  else if (in == DataType::Int(32) && o == in) CumsumTyped<int32_t, int32_t>(data, out, outer, extent, inner, exclusive);
  else if (in == DataType::Int(64) && o == in) CumsumTyped<int64_t, int64_t>(data, out, outer, extent, inner, exclusive);
  else if (in == DataType::Int(32) && o == DataType::Int(64)) CumsumTyped<int32_t, int64_t>(data, out, outer, extent, inner, exclusive);
  else return UnsupportedDType(ctx, in);
  return std::vector<NDArray>{out};
}

// The k largest (or smallest) elements of every slice along `axis`, in
// order, ties broken by the lower index (a stable sort, as TVM's topk).
absl::StatusOr<std::vector<NDArray>> TopK(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", -1), int64_t(data.rank())));
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  std::string_view ret = AttrString(ctx, "ret_type", "both");
  NDArray* values = ret == "indices" ? nullptr : &outs[0];
  NDArray* indices = ret == "values" ? nullptr : &outs[ret == "both" ? 1 : 0];
  const bool ascend = AttrBool(ctx, "is_ascend", false);
  const auto& s = data.shape();
  int64_t outer = 1, inner = 1, n = s[axis];
  for (int64_t i = 0; i < axis; ++i) outer *= s[i];
  for (size_t i = axis + 1; i < s.size(); ++i) inner *= s[i];
  const int64_t k = (values ? values : indices)->shape()[axis];
  const size_t bytes = data.dtype().bytes();
  const auto* src = static_cast<const std::byte*>(data.raw_data());
  std::vector<int64_t> order(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t i) { return (o * n + i) * inner + j; };
      for (int64_t i = 0; i < n; ++i) order[i] = i;
      // Exact for int64 / uint64 values beyond 2^53 (sort_key.h).
      WithSortKey(data, [&](auto key) {
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          return ascend ? KeyLess(key(at(a)), key(at(b))) : KeyLess(key(at(b)), key(at(a)));
        });
      });
      for (int64_t r = 0; r < k; ++r) {
        int64_t dst = (o * k + r) * inner + j;
        if (values) {
          std::memcpy(static_cast<std::byte*>(values->raw_data()) + dst * bytes,
                      src + at(order[r]) * bytes, bytes);
        }
        if (indices) indices->SetFromDouble(dst, double(order[r]));
      }
    }
  }
  return outs;
}

}  // namespace

CARVE_REGISTER_KERNEL("topk", TopK);
CARVE_REGISTER_KERNEL("gather", Gather);
CARVE_REGISTER_KERNEL("scatter_elements", ScatterElements);
CARVE_REGISTER_KERNEL("cumsum", Cumsum);

}  // namespace carve
