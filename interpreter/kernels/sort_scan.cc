// Kernels of the sorting, searching and data-dependent ops (TVM's topi
// argsort, sort, searchsorted, argwhere, unique, arange, cumprod) and
// fixed_point_multiply. argwhere and arange size their output from the
// data, so they allocate it themselves rather than from the (`?`) type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "interpreter/kernels/kernel_util.h"
#include "interpreter/kernels/sort_key.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// [outer, extent, inner] around `axis` of `shape`.
struct AxisSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};
AxisSplit SplitAt(const std::vector<int64_t>& shape, int64_t axis) {
  AxisSplit s;
  s.extent = shape[axis];
  s.outer = ShapeProduct(shape, 0, size_t(axis));
  s.inner = ShapeProduct(shape, size_t(axis) + 1, shape.size());
  return s;
}

// Stable order of every slice along `axis` (ties keep the lower index, as
// TVM's CPU sort), written through `emit(slice_position, source_index)`.
template <typename F>
absl::Status SortSlices(const KernelContext& ctx, const NDArray& data, F&& emit) {
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", -1), int64_t(data.rank())));
  const bool ascend = AttrBool(ctx, "is_ascend", true);
  AxisSplit s = SplitAt(data.shape(), axis);
  std::vector<int64_t> order(size_t(s.extent));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t j = 0; j < s.inner; ++j) {
      auto at = [&](int64_t i) { return (o * s.extent + i) * s.inner + j; };
      std::iota(order.begin(), order.end(), 0);
      WithSortKey(data, [&](auto key) {
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          return ascend ? KeyLess(key(at(a)), key(at(b))) : KeyLess(key(at(b)), key(at(a)));
        });
      });
      for (int64_t r = 0; r < s.extent; ++r) emit(at(r), at(order[r]), order[r]);
    }
  }
  return absl::OkStatus();
}

Outputs Argsort(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(SortSlices(ctx, ctx.inputs[0], [&](int64_t dst, int64_t, int64_t index) {
    out.SetFromDouble(dst, double(index));
  }));
  return std::vector<NDArray>{out};
}

Outputs Sort(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const size_t b = in.dtype().bytes();
  CARVE_RETURN_IF_ERROR(SortSlices(ctx, in, [&](int64_t dst, int64_t src, int64_t) {
    std::memcpy(static_cast<std::byte*>(out.raw_data()) + dst * b,
                static_cast<const std::byte*>(in.raw_data()) + src * b, b);
  }));
  return std::vector<NDArray>{out};
}

// For every value, the insertion point in its row of the sorted sequence
// (the first position whose element is >= the value, > with `right`).
Outputs SearchSorted(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& seq = ctx.inputs[0];
  const NDArray& values = ctx.inputs[1];
  const bool right = AttrBool(ctx, "right", false);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t len = seq.shape().back();
  const int64_t per_row = values.shape().back();
  WithSortKey(seq, [&](auto seq_key) {
    WithSortKey(values, [&](auto value_key) {
      for (int64_t i = 0; i < values.num_elements(); ++i) {
        const int64_t row = seq.rank() == 1 ? 0 : i / per_row;
        const auto v = value_key(i);
        int64_t lo = 0, hi = len;
        while (lo < hi) {
          int64_t mid = (lo + hi) / 2;
          const auto e = seq_key(row * len + mid);
          if (right ? KeyLessEqual(e, v) : KeyLess(e, v))
            lo = mid + 1;
          else
            hi = mid;
        }
        out.SetFromDouble(i, double(lo));
      }
    });
  });
  return std::vector<NDArray>{out};
}

// The coordinates of the nonzero elements, one row each, in row-major order.
Outputs ArgWhere(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& cond = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < cond.num_elements(); ++i) {
    if (cond.GetAsDouble(i) != 0) hits.push_back(i);
  }
  const int64_t rank = int64_t(cond.rank());
  NDArray out = NDArray::Empty(out_t->dtype(), {int64_t(hits.size()), rank});
  for (size_t h = 0; h < hits.size(); ++h) {
    int64_t rem = hits[h];
    for (int64_t d = rank; d-- > 0;) {
      out.SetFromDouble(int64_t(h) * rank + d, double(rem % cond.shape()[d]));
      rem /= cond.shape()[d];
    }
  }
  return std::vector<NDArray>{out};
}

// unique's five fields over a 1-d tensor: the distinct values (ascending,
// or in order of first appearance), the index of each one's first
// appearance, every element's position among them, their number, their
// counts. Entries past num_unique stay zero.
Outputs Unique(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  const int64_t n = data.num_elements();
  std::vector<int64_t> first;  // index of the first appearance of each distinct value
  std::vector<int64_t> counts;
  WithSortKey(data, [&](auto key) {
    for (int64_t i = 0; i < n; ++i) {
      bool seen = false;
      for (int64_t f : first) seen = seen || KeyEqual(key(f), key(i));
      if (!seen) first.push_back(i);
    }
    if (AttrBool(ctx, "sorted", true)) {
      std::stable_sort(first.begin(), first.end(),
                       [&](int64_t a, int64_t b) { return KeyLess(key(a), key(b)); });
    }
    counts.assign(first.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      for (size_t u = 0; u < first.size(); ++u) {
        if (KeyEqual(key(first[u]), key(i))) {
          outs[2].SetFromDouble(i, double(u));
          ++counts[u];
          break;
        }
      }
    }
  });
  const size_t b = data.dtype().bytes();
  for (size_t u = 0; u < first.size(); ++u) {
    std::memcpy(static_cast<std::byte*>(outs[0].raw_data()) + u * b,
                static_cast<const std::byte*>(data.raw_data()) + first[u] * b, b);
    outs[1].SetFromDouble(int64_t(u), double(first[u]));
  }
  outs[3].SetFromDouble(0, double(first.size()));
  if (outs.size() > 4) {
    for (size_t u = 0; u < counts.size(); ++u) outs[4].SetFromDouble(int64_t(u), double(counts[u]));
  }
  return outs;
}

// start + i * step for i < ceil((stop - start) / step).
Outputs Arange(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  CARVE_ASSIGN_OR_RETURN(double start, ReadScalar<double>(ctx, ctx.inputs[0], "start"));
  CARVE_ASSIGN_OR_RETURN(double stop, ReadScalar<double>(ctx, ctx.inputs[1], "stop"));
  CARVE_ASSIGN_OR_RETURN(double step, ReadScalar<double>(ctx, ctx.inputs[2], "step"));
  if (step == 0 || !std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step)) {
    return KernelError(ctx, "start, stop and step must be finite and step nonzero");
  }
  const double count = std::ceil((stop - start) / step);
  if (count > double(int64_t{1} << 31)) return KernelError(ctx, "{} elements is too many", count);
  const int64_t n = count > 0 ? int64_t(count) : 0;
  NDArray out = NDArray::Empty(out_t->dtype(), {n});
  for (int64_t i = 0; i < n; ++i) out.SetFromDouble(i, start + double(i) * step);
  return std::vector<NDArray>{out};
}

// Running products along `axis` (over the flattened data when axis is
// None), in the output dtype; exclusive starts from 1.
Outputs Cumprod(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  AxisSplit s{1, data.num_elements(), 1};
  if (!AttrIsNull(ctx, "axis")) {
    CARVE_ASSIGN_OR_RETURN(int64_t axis,
                           NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), int64_t(data.rank())));
    s = SplitAt(data.shape(), axis);
  }
  const bool exclusive = AttrInt(ctx, "exclusive", 0) != 0;
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, out.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    T* y = out.data<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t j = 0; j < s.inner; ++j) {
        C acc = C(1);
        for (int64_t k = 0; k < s.extent; ++k) {
          int64_t at = (o * s.extent + k) * s.inner + j;
          C x = ConvertTo<C>(data.GetAsDouble(at));
          if (exclusive) {
            y[at] = T(acc);
            acc = C(acc * x);
          } else {
            acc = C(acc * x);
            y[at] = T(acc);
          }
        }
      }
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{out};
}

// TVM's q_multiply_shift(x, multiplier, 31, shift) on int32: x * multiplier
// * 2^(shift - 31) in 64-bit, rounded half up, back to int32.
int32_t FixedPointMultiply(int32_t x, int64_t m, int64_t shift) {
  if (m == (int64_t{1} << 30)) {
    const int64_t e = shift - 1;
    if (e > 0) return int32_t(uint32_t(x) << e);
    if (e == 0) return x;
    return int32_t((int64_t(x) + (int64_t{1} << (-e - 1))) >> -e);
  }
  const int64_t lshift = shift > 0 ? shift : 0, rshift = shift > 0 ? 0 : -shift;
  const int64_t total = rshift + 31;
  int64_t v = int64_t(uint64_t(int64_t(x)) << lshift) * m;
  v += int64_t{1} << (total - 1);
  return int32_t(v >> total);
}

Outputs FixedPointMultiplyKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  if (in.dtype() != DataType::Int(32)) return UnsupportedDType(ctx, in.dtype());
  const int64_t m = AttrInt(ctx, "multiplier", 0), shift = AttrInt(ctx, "shift", 0);
  if (shift > 31 || shift < -32) return KernelError(ctx, "shift {} is out of range", shift);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    out.data<int32_t>()[i] = FixedPointMultiply(in.data<int32_t>()[i], m, shift);
  }
  return std::vector<NDArray>{out};
}

}  // namespace

CARVE_REGISTER_KERNEL("argsort", Argsort);
CARVE_REGISTER_KERNEL("sort", Sort);
CARVE_REGISTER_KERNEL("searchsorted", SearchSorted);
CARVE_REGISTER_KERNEL("argwhere", ArgWhere);
CARVE_REGISTER_KERNEL("unique", Unique);
CARVE_REGISTER_KERNEL("arange", Arange);
CARVE_REGISTER_KERNEL("cumprod", Cumprod);
CARVE_REGISTER_KERNEL("fixed_point_multiply", FixedPointMultiplyKernel);

}  // namespace carve
