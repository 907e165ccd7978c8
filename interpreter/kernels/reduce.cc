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

struct ReducePlan {
  std::vector<int64_t> base;  // input offset of each output's first element
  std::vector<int64_t> roff;  // offset of each reduced position from base
  bool contiguous = false;    // roff[r] == r: each output reads one run
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

absl::StatusOr<ReducePlan> MakePlan(const KernelContext& ctx, const NDArray& in,
                                    int64_t out_elements) {
  CARVE_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(ctx, in.rank()));
  std::vector<int64_t> kept_axes, reduced_axes;
  for (size_t d = 0; d < in.rank(); ++d) (reduced[d] ? reduced_axes : kept_axes).push_back(d);
  const std::vector<int64_t> strides = RowMajorStrides(in.shape());
  ReducePlan plan;
  plan.base = Offsets(in.shape(), strides, kept_axes);
  plan.roff = Offsets(in.shape(), strides, reduced_axes);
  if (static_cast<int64_t>(plan.base.size()) != out_elements) {
    return KernelError(ctx, "output type {} does not match the reduction of {}",
                       TypeToString(ctx.out_type), ShapeString(in.shape()));
  }
  plan.contiguous = true;
  for (size_t r = 0; plan.contiguous && r < plan.roff.size(); ++r) {
    plan.contiguous = plan.roff[r] == static_cast<int64_t>(r);
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

template <Red kOp, typename A>
A Identity() {
  if constexpr (kOp == Red::kSum || kOp == Red::kMean || kOp == Red::kAny) return A(0);
  if constexpr (kOp == Red::kProd || kOp == Red::kAll) return A(1);
  if constexpr (kOp == Red::kMax) {
    return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::lowest();
  }
  if constexpr (kOp == Red::kMin) {
    return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::max();
  }
}

template <Red kOp, typename A>
A Combine(A acc, A x) {
  if constexpr (kOp == Red::kSum || kOp == Red::kMean) return A(acc + x);
  if constexpr (kOp == Red::kProd) return A(acc * x);
  if constexpr (kOp == Red::kMax) return x > acc ? x : acc;
  if constexpr (kOp == Red::kMin) return x < acc ? x : acc;
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

template <Red kOp>
Outputs ReduceKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.dtype() != in.dtype()) return KernelError(ctx, "output dtype differs from input");
  CARVE_ASSIGN_OR_RETURN(ReducePlan plan, MakePlan(ctx, in, out.num_elements()));
  const int64_t count = plan.roff.size();
  return DispatchAll(ctx, in.dtype(), [&]<typename T>() -> Outputs {
    using A = AccT<kOp, T>;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (size_t o = 0; o < plan.base.size(); ++o) {
      const T* p = src + plan.base[o];
      A acc = Identity<kOp, A>();
      if (plan.contiguous) {
        for (int64_t r = 0; r < count; ++r) acc = Combine<kOp, A>(acc, A(p[r]));
      } else {
        for (int64_t r = 0; r < count; ++r) acc = Combine<kOp, A>(acc, A(p[plan.roff[r]]));
      }
      dst[o] = Finish<kOp, T, A>(acc, count);
    }
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
  if (plan.roff.empty()) return KernelError(ctx, "cannot reduce an empty axis");
  const bool last = AttrBool(ctx, "select_last_index", false);
  std::vector<int64_t> result(plan.base.size());
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const T* src = in.data<T>();
    for (size_t o = 0; o < plan.base.size(); ++o) {
      const T* p = src + plan.base[o];
      C best = C(p[plan.roff[0]]);
      int64_t best_r = 0;
      for (size_t r = 1; r < plan.roff.size(); ++r) {
        C v = C(p[plan.roff[r]]);
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
  const int64_t divisor = int64_t(plan.roff.size()) - (AttrBool(ctx, "unbiased", false) ? 1 : 0);
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const T* src = in.data<T>();
    const T* m = mean.data<T>();
    const bool scalar_mean = mean.num_elements() == 1;
    for (size_t o = 0; o < plan.base.size(); ++o) {
      const C mu = C(m[scalar_mean ? 0 : o]);
      C acc = 0;
      for (int64_t r : plan.roff) {
        C d = C(src[plan.base[o] + r]) - mu;
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
