// The remaining elementwise kernels (ops.md sections 3-5 and 15): clip,
// cast, where, logical_not, the constant producers (zeros/ones/full and the
// *_like ops), copy, and the identity annotations.
#include <algorithm>

#include "interpreter/kernel_inplace.h"
#include "interpreter/kernels/broadcast.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// C-style conversion of every element (see ConvertTo for the cases C++
// leaves undefined: float -> int saturates, NaN -> 0).
absl::Status CastInto(const KernelContext& ctx, const NDArray& in, NDArray& out) {
  return DispatchAll(ctx, in.dtype(), [&]<typename S>() {
    return DispatchAll(ctx, out.dtype(), [&]<typename D>() {
      const S* src = in.data<S>();
      D* dst = out.data<D>();
      for (int64_t i = 0, n = in.num_elements(); i < n; ++i) dst[i] = ConvertTo<D>(src[i]);
      return absl::OkStatus();
    });
  });
}

Outputs Cast(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.num_elements() != ctx.inputs[0].num_elements()) {
    return KernelError(ctx, "output type {} does not match the input shape {}",
                       TypeToString(ctx.out_type), ShapeString(ctx.inputs[0].shape()));
  }
  CARVE_RETURN_IF_ERROR(CastInto(ctx, ctx.inputs[0], out));
  return std::vector<NDArray>{std::move(out)};
}

// out = min(max(in, a_min), a_max) with the bounds converted to in's dtype
// first (truncating for integers, as TVM does); `out` may be `in` (in place).
absl::Status ClipInto(const KernelContext& ctx, const NDArray& in, NDArray& out) {
  double lo = AttrFloat(ctx, "a_min", -INFINITY);
  double hi = AttrFloat(ctx, "a_max", INFINITY);
  return DispatchNumeric(ctx, in.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    const C low = C(ConvertTo<T>(lo));
    const C high = C(ConvertTo<T>(hi));
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0, n = in.num_elements(); i < n; ++i) {
      C v = C(src[i]);
      v = v < low ? low : v;
      dst[i] = T(high < v ? high : v);
    }
    return absl::OkStatus();
  });
}

Outputs Clip(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(ClipInto(ctx, in, out));
  return std::vector<NDArray>{std::move(out)};
}

bool ClipInPlace(const KernelContext& ctx, NDArray& data) {
  if (ctx.inputs.size() != 1 || !ResultFitsInPlace(ctx, data)) return false;
  return ClipInto(ctx, data, data).ok();
}

// condition != 0 ? x : y, all three broadcast together.
Outputs Where(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& x = ctx.inputs[1];
  const NDArray& y = ctx.inputs[2];
  if (x.dtype() != y.dtype()) {
    return KernelError(ctx, "x and y dtypes differ: {} and {}", x.dtype().ToString(),
                       y.dtype().ToString());
  }
  NDArray cond = ctx.inputs[0];
  if (!cond.dtype().is_bool()) {  // normalise once so the loop reads bytes
    NDArray as_bool = NDArray::Empty(DataType::Bool(), cond.shape());
    CARVE_RETURN_IF_ERROR(CastInto(ctx, cond, as_bool));
    cond = as_bool;
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  auto plan = BroadcastPlan::Make(out.shape(), {cond.shape(), x.shape(), y.shape()});
  if (!plan.ok()) return KernelError(ctx, "{}", std::string(plan.status().message()));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, x.dtype(), [&]<typename T>() {
    const bool* c = cond.data<bool>();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    plan->ForEachRun([&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
      for (int64_t i = 0; i < n; ++i) {
        po[o + i] = c[off[0] + i * s[0]] ? px[off[1] + i * s[1]] : py[off[2] + i * s[2]];
      }
    });
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// Fills the output (whatever its dtype) with `value`.
absl::Status Fill(const KernelContext& ctx, NDArray& out, double value) {
  return DispatchAll(ctx, out.dtype(), [&]<typename T>() {
    std::fill_n(out.data<T>(), out.num_elements(), ConvertTo<T>(value));
    return absl::OkStatus();
  });
}

// zeros / ones (no inputs) and zeros_like / ones_like (one input, ignored
// but for its type, which the output type already carries).
template <int kValue>
Outputs Constant(const KernelContext& ctx) {
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(Fill(ctx, out, kValue));
  return std::vector<NDArray>{std::move(out)};
}

// full(fill_value): the rank-0 fill value, converted to the output dtype.
Outputs Full(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(T v, ReadScalar<T>(ctx, ctx.inputs[0], "fill_value"));
    std::fill_n(out.data<T>(), out.num_elements(), v);
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// !x, in x's dtype (normally bool).
Outputs LogicalNot(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, in.dtype(), [&]<typename T>() {
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0, n = in.num_elements(); i < n; ++i) {
      dst[i] = ConvertTo<T>(!ConvertTo<bool>(src[i]));
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// copy: a fresh buffer with the same contents.
Outputs Copy(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  return std::vector<NDArray>{ctx.inputs[0].Copy()};
}

// Annotations compute nothing: the output is the input (tensors are
// immutable, so sharing the buffer is safe).
Outputs Identity(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  return std::vector<NDArray>{ctx.inputs[0]};
}

}  // namespace

CARVE_REGISTER_KERNEL("cast", Cast);
CARVE_REGISTER_KERNEL("clip", Clip);
CARVE_REGISTER_INPLACE_KERNEL("clip", ClipInPlace);
CARVE_REGISTER_KERNEL("where", Where);
CARVE_REGISTER_KERNEL("zeros", Constant<0>);
CARVE_REGISTER_KERNEL("ones", Constant<1>);
CARVE_REGISTER_KERNEL("zeros_like", Constant<0>);
CARVE_REGISTER_KERNEL("ones_like", Constant<1>);
CARVE_REGISTER_KERNEL("full", Full);
CARVE_REGISTER_KERNEL("logical_not", LogicalNot);
CARVE_REGISTER_KERNEL("copy", Copy);
CARVE_REGISTER_KERNEL("annotation.compiler_begin", Identity);
CARVE_REGISTER_KERNEL("annotation.compiler_end", Identity);
CARVE_REGISTER_KERNEL("annotation.stop_fusion", Identity);
CARVE_REGISTER_KERNEL("stop_fusion", Identity);

}  // namespace carve
