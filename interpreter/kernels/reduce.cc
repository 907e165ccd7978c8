// Reductions (ops.md section 13 and 19): sum, mean, max, min, prod, all,
// any, argmax, argmin and variance, with axis / keepdims / exclude.
//
// Every reduction is phrased the same way: output element o (in row-major
// order of the kept axes) combines the input elements at base[o] + roff[r]
// for r over the reduced positions (row-major order of the reduced axes).
// keepdims only changes the output shape, which the output type carries.
#include <algorithm>
#include <limits>

#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// Which input elements each output combines. When the reduced axes are
// adjacent once extent-1 axes are dropped (every reduction over one axis,
// a trailing or leading block of axes, or all of them), the input is viewed
// as [outer, count, inner] and the output as [outer, inner], and no index
// tables are built; otherwise output o combines base[o] + roff[r] for the
// reduced positions r in row-major order.
struct ReducePlan {
  bool blocked = false;
  int64_t outer = 1, count = 1, inner = 1;  // the blocked view
  std::vector<int64_t> base, roff;          // the general case

  int64_t outputs() const { return blocked ? outer * inner : int64_t(base.size()); }
  int64_t reduced() const { return blocked ? count : int64_t(roff.size()); }
  int64_t Base(int64_t o) const {
    return blocked ? (o / inner) * count * inner + o % inner : base[o];
  }
  int64_t Offset(int64_t r) const { return blocked ? r * inner : roff[r]; }
};

// Offsets of every position of `axes` (row-major over them) in `shape`.
std::vector<int64_t> Offsets(std::span<const int64_t> shape, std::span<const int64_t> strides,
                             const std::vector<int64_t>& axes) {
  int64_t count = 1;
  for (int64_t a : axes) count *= shape[a];
  std::vector<int64_t> out;
  out.reserve(count);
  std::vector<int64_t> index(axes.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    out.push_back(offset);
    for (size_t k = axes.size(); k-- > 0;) {
      offset += strides[axes[k]];
      if (++index[k] < shape[axes[k]]) break;
      offset -= strides[axes[k]] * shape[axes[k]];
      index[k] = 0;
    }
  }
  return out;
}

// The reduced axes from `axis` (null or empty = all) and `exclude`.
absl::StatusOr<std::vector<bool>> ReducedAxes(const KernelContext& ctx, int64_t rank) {
  std::vector<bool> reduced(rank, false);
  auto axes = AttrInts(ctx, "axis");
  if (!axes || axes->empty()) {
    std::fill(reduced.begin(), reduced.end(), true);
    return reduced;  // exclude with no axes still reduces everything, as in TVM
  }
  for (int64_t a : *axes) {
    CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, a, rank));
    reduced[axis] = true;
  }
  if (AttrBool(ctx, "exclude", false)) reduced.flip();
  return reduced;
}

// Fills the blocked view when the reduced axes with extent > 1 are adjacent.
bool MakeBlocked(std::span<const int64_t> shape, const std::vector<bool>& reduced,
                 ReducePlan& plan) {
  int state = 0;  // 0: before the reduced block, 1: inside it, 2: after it
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (reduced[d]) {
      if (state == 2) return false;
      state = 1;
      plan.count *= shape[d];
    } else {
      if (state == 1) state = 2;
      (state == 0 ? plan.outer : plan.inner) *= shape[d];
    }
  }
  plan.blocked = true;
  return true;
}

absl::StatusOr<ReducePlan> MakePlan(const KernelContext& ctx, const NDArray& in,
                                    int64_t out_elements) {
  CARVE_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(ctx, in.rank()));
  ReducePlan plan;
  if (!MakeBlocked(in.shape(), reduced, plan)) {
    plan = ReducePlan{};
    std::vector<int64_t> kept_axes, reduced_axes;
    for (size_t d = 0; d < in.rank(); ++d) (reduced[d] ? reduced_axes : kept_axes).push_back(d);
    const std::vector<int64_t> strides = RowMajorStrides(in.shape());
    plan.base = Offsets(in.shape(), strides, kept_axes);
    plan.roff = Offsets(in.shape(), strides, reduced_axes);
  }
  if (plan.outputs() != out_elements) {
    return KernelError(ctx, "output type {} does not match the reduction of {}",
                       TypeToString(ctx.out_type), ShapeString(in.shape()));
  }
  return plan;
}

enum class Red { kSum, kMean, kProd, kMax, kMin, kAll, kAny };

// The accumulator type: C for floats (float for float16), T for integers
// (unsigned for signed sums and products, so they wrap without UB).
template <Red kOp, typename T>
struct AccTypeOf {
  using type = ComputeT<T>;
};
template <Red kOp, typename T>
requires((kOp == Red::kSum || kOp == Red::kMean || kOp == Red::kProd) && std::is_integral_v<T> &&
         std::is_signed_v<T>) struct AccTypeOf<kOp, T> {
  using type = std::make_unsigned_t<T>;
};
template <Red kOp, typename T>
using AccT = typename AccTypeOf<kOp, T>::type;

// TVM's reducers start max / min from the dtype's lowest / highest finite
// value (tir min_value / max_value: -65504 for float16), not from an
// infinity, so max of an empty axis is the lowest finite value.
template <Red kOp, typename T, typename A>
A Identity() {
  if constexpr (kOp == Red::kSum || kOp == Red::kMean || kOp == Red::kAny) return A(0);
  if constexpr (kOp == Red::kProd || kOp == Red::kAll) return A(1);
  if constexpr (kOp == Red::kMax || kOp == Red::kMin) {
    constexpr bool kHalf = std::is_same_v<T, Half>;
    if constexpr (kOp == Red::kMax) return kHalf ? A(-65504.0f) : std::numeric_limits<A>::lowest();
    return kHalf ? A(65504.0f) : std::numeric_limits<A>::max();
  }
}

// max / min combine as TVM lowers tir Max(acc, x) / Min(acc, x) to LLVM:
// select(acc > x, acc, x), an ordered compare. A NaN element therefore
// replaces the running value and the next element replaces the NaN: the
// result is NaN only when the last element is.
template <Red kOp, typename A>
A Combine(A acc, A x) {
  if constexpr (kOp == Red::kSum || kOp == Red::kMean) return A(acc + x);
  if constexpr (kOp == Red::kProd) return A(acc * x);
  if constexpr (kOp == Red::kMax) return acc > x ? acc : x;
  if constexpr (kOp == Red::kMin) return acc < x ? acc : x;
  if constexpr (kOp == Red::kAll) return A(acc && x);
  if constexpr (kOp == Red::kAny) return A(acc || x);
}

// mean divides by the count: truncating for integers (the wrapped sum over
// the count, in int64), in float for float16.
template <Red kOp, typename T, typename A>
T Finish(A acc, int64_t count) {
  if constexpr (kOp == Red::kMean) {
    if constexpr (std::is_integral_v<T>) {
      if (count == 0) return T(0);
      if constexpr (std::is_unsigned_v<T>) return static_cast<T>(acc / static_cast<A>(count));
      return static_cast<T>(static_cast<int64_t>(static_cast<T>(acc)) / count);
    } else {
      return T(acc / A(count));
    }
  } else {
    return static_cast<T>(acc);
  }
}

// out[o] = combine over r of in[Base(o) + Offset(r)], each output's terms
// in row-major order of the reduced positions. The blocked view runs rows:
// inner == 1 reads one contiguous run per output; otherwise the `inner`
// accumulators of an outer block advance together over contiguous rows, so
// a reduction over a leading axis streams memory instead of striding.
template <Red kOp, typename T>
void Reduce(const ReducePlan& plan, const T* src, T* dst) {
  using A = AccT<kOp, T>;
  const int64_t count = plan.reduced();
  if (!plan.blocked) {
    for (int64_t o = 0; o < plan.outputs(); ++o) {
      const T* p = src + plan.base[o];
      A acc = Identity<kOp, T, A>();
      for (int64_t r = 0; r < count; ++r) acc = Combine<kOp, A>(acc, A(p[plan.roff[r]]));
      dst[o] = Finish<kOp, T, A>(acc, count);
    }
    return;
  }
  if (plan.inner == 1) {
    // Eight rows at a time: each output still sums its row in order, but
    // eight independent chains hide the add latency.
    constexpr int64_t kRows = 8;
    int64_t o = 0;
    for (; o + kRows <= plan.outer; o += kRows) {
      A acc[kRows];
      for (int64_t k = 0; k < kRows; ++k) acc[k] = Identity<kOp, T, A>();
      const T* p = src + o * count;
      for (int64_t r = 0; r < count; ++r) {
        for (int64_t k = 0; k < kRows; ++k) acc[k] = Combine<kOp, A>(acc[k], A(p[k * count + r]));
      }
      for (int64_t k = 0; k < kRows; ++k) dst[o + k] = Finish<kOp, T, A>(acc[k], count);
    }
    for (; o < plan.outer; ++o) {
      const T* p = src + o * count;
      A acc = Identity<kOp, T, A>();
      for (int64_t r = 0; r < count; ++r) acc = Combine<kOp, A>(acc, A(p[r]));
      dst[o] = Finish<kOp, T, A>(acc, count);
    }
    return;
  }
  std::vector<A> acc(size_t(plan.inner));
  for (int64_t o = 0; o < plan.outer; ++o) {
    std::fill(acc.begin(), acc.end(), Identity<kOp, T, A>());
    const T* block = src + o * count * plan.inner;
    for (int64_t r = 0; r < count; ++r) {
      const T* row = block + r * plan.inner;
      for (int64_t i = 0; i < plan.inner; ++i) acc[i] = Combine<kOp, A>(acc[i], A(row[i]));
    }
    T* out = dst + o * plan.inner;
    for (int64_t i = 0; i < plan.inner; ++i) out[i] = Finish<kOp, T, A>(acc[i], count);
  }
}

template <Red kOp>
Outputs ReduceKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.dtype() != in.dtype()) return KernelError(ctx, "output dtype differs from input");
  CARVE_ASSIGN_OR_RETURN(ReducePlan plan, MakePlan(ctx, in, out.num_elements()));
  return DispatchAll(ctx, in.dtype(), [&]<typename T>() -> Outputs {
    Reduce<kOp, T>(plan, in.data<T>(), out.data<T>());
    return std::vector<NDArray>{out};
  });
}

// The index (row-major over the reduced axes) of the first extreme element,
// or the last one with select_last_index.
template <bool kMax>
Outputs ArgReduceKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(ReducePlan plan, MakePlan(ctx, in, out.num_elements()));
  if (plan.reduced() == 0) return KernelError(ctx, "cannot reduce an empty axis");
  const bool last = AttrBool(ctx, "select_last_index", false);
  std::vector<int64_t> result(size_t(plan.outputs()));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const T* src = in.data<T>();
    for (int64_t o = 0; o < plan.outputs(); ++o) {
      const T* p = src + plan.Base(o);
      C best = C(p[plan.Offset(0)]);
      int64_t best_r = 0;
      for (int64_t r = 1; r < plan.reduced(); ++r) {
        C v = C(p[plan.Offset(r)]);
        bool better = kMax ? (v > best || (last && v == best)) : (v < best || (last && v == best));
        if (better) {
          best = v;
          best_r = r;
        }
      }
      result[o] = best_r;
    }
    return absl::OkStatus();
  }));
  CARVE_RETURN_IF_ERROR(DispatchInteger(ctx, out.dtype(), [&]<typename I>() {
    for (size_t o = 0; o < result.size(); ++o) out.data<I>()[o] = static_cast<I>(result[o]);
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// variance(data, mean): sum((x - mean)^2) / (count - unbiased), where mean
// holds one value per output (mean(data, keepdims=True)) or a single value.
Outputs Variance(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& in = ctx.inputs[0];
  const NDArray& mean = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_ASSIGN_OR_RETURN(ReducePlan plan, MakePlan(ctx, in, out.num_elements()));
  if (mean.dtype() != in.dtype() ||
      (mean.num_elements() != out.num_elements() && mean.num_elements() != 1)) {
    return KernelError(ctx, "mean {} {} does not match the reduction", ShapeString(mean.shape()),
                       mean.dtype().ToString());
  }
  const int64_t divisor = plan.reduced() - (AttrBool(ctx, "unbiased", false) ? 1 : 0);
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const T* src = in.data<T>();
    const T* m = mean.data<T>();
    const bool scalar_mean = mean.num_elements() == 1;
    for (int64_t o = 0; o < plan.outputs(); ++o) {
      const C mu = C(m[scalar_mean ? 0 : o]);
      const T* p = src + plan.Base(o);
      C acc = 0;
      for (int64_t r = 0; r < plan.reduced(); ++r) {
        C d = C(p[plan.Offset(r)]) - mu;
        acc += d * d;
      }
      out.data<T>()[o] = T(acc / C(divisor));
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace

CARVE_REGISTER_KERNEL("sum", ReduceKernel<Red::kSum>);
CARVE_REGISTER_KERNEL("mean", ReduceKernel<Red::kMean>);
CARVE_REGISTER_KERNEL("prod", ReduceKernel<Red::kProd>);
CARVE_REGISTER_KERNEL("max", ReduceKernel<Red::kMax>);
CARVE_REGISTER_KERNEL("min", ReduceKernel<Red::kMin>);
CARVE_REGISTER_KERNEL("all", ReduceKernel<Red::kAll>);
CARVE_REGISTER_KERNEL("any", ReduceKernel<Red::kAny>);
CARVE_REGISTER_KERNEL("argmax", ArgReduceKernel<true>);
CARVE_REGISTER_KERNEL("argmin", ArgReduceKernel<false>);
CARVE_REGISTER_KERNEL("variance", Variance);

}  // namespace carve
