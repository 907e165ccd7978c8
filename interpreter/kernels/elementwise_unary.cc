// Unary elementwise kernels (ops.md section 4, plus atan and the FastMath
// variants). Transcendental functions run on Eigen's vectorised array
// paths; float16 is widened to float, computed, and rounded once.
//
// The fast_* ops are TVM's approximations of exp/tanh/erf, computed with
// TOPI's formulas for the dtypes TVM approximates (fast_math.h) and exactly
// for the others.
#include <cmath>
#include <type_traits>

#include "interpreter/kernels/fast_math.h"
#include "interpreter/kernels/kernel_util.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace carve {
namespace {

enum class UnOp {
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kErf,
  kTanh,
  kSigmoid,
  kSin,
  kCos,
  kTan,
  kAtan,
  kLog2,
  kLog10,
  kSinh,
  kCosh,
  kAsin,
  kAcos,
  kAsinh,
  kAcosh,
  kAtanh,
  kFastExp,   // fast_math.h for float32, exp otherwise
  kFastTanh,  // fast_math.h for float32, tanh otherwise
  kFastErf,   // fast_math.h for float32 and float16, erf otherwise
  // Defined for every numeric dtype (identity on integers where it rounds).
  kNegative,
  kAbs,
  kFloor,
  kCeil,
  kRound,
  kTrunc,
  kSign,
};

constexpr bool FloatOnly(UnOp op) { return op < UnOp::kNegative; }

// True when TVM evaluates fast op kOp on dtype T with its approximation.
template <UnOp kOp, typename T>
constexpr bool kApproximated = (kOp == UnOp::kFastExp || kOp == UnOp::kFastTanh ||
                                kOp == UnOp::kFastErf) &&
                               (std::is_same_v<T, float> ||
                                (kOp == UnOp::kFastErf && std::is_same_v<T, Half>));

// `x` is an Eigen array expression of a float type, computing op kOp on
// tensors of dtype T.
template <UnOp kOp, typename T, typename X>
auto FloatExpr(const X& x) {
  using S = typename X::Scalar;
  if constexpr (kApproximated<kOp, T>) {
    static_assert(std::is_same_v<S, float>);
    if constexpr (kOp == UnOp::kFastExp)
      return x.unaryExpr([](float v) { return fast_math::FastExp(v); });
    if constexpr (kOp == UnOp::kFastTanh)
      return x.unaryExpr([](float v) { return fast_math::FastTanh(v); });
    if constexpr (kOp == UnOp::kFastErf)
      return x.unaryExpr([](float v) { return fast_math::FastErf(v); });
  }
  if constexpr (kOp == UnOp::kFastExp && !kApproximated<kOp, T>) return x.exp();
  if constexpr (kOp == UnOp::kFastTanh && !kApproximated<kOp, T>) return x.tanh();
  if constexpr (kOp == UnOp::kFastErf && !kApproximated<kOp, T>) return x.erf();
  if constexpr (kOp == UnOp::kExp) return x.exp();
  if constexpr (kOp == UnOp::kLog) return x.log();
  if constexpr (kOp == UnOp::kSqrt) return x.sqrt();
  if constexpr (kOp == UnOp::kRsqrt) return x.rsqrt();
  if constexpr (kOp == UnOp::kErf) return x.erf();
  if constexpr (kOp == UnOp::kTanh) return x.tanh();
  // TVM's sigmoid, 1 / (1 + exp(-x)): Eigen's logistic() is a rational
  // approximation that reaches exactly 1 from x = 15.7 on, where this is
  // 1 - 2^-23 up to x = 16.6 (a GRU update gate there keeps 1e-7 of the
  // new state, ONNX's test_gru_seq_length).
  if constexpr (kOp == UnOp::kSigmoid) return S(1) / (S(1) + (-x).exp());
  if constexpr (kOp == UnOp::kSin) return x.sin();
  if constexpr (kOp == UnOp::kCos) return x.cos();
  if constexpr (kOp == UnOp::kTan) return x.tan();
  if constexpr (kOp == UnOp::kAtan) return x.atan();
  if constexpr (kOp == UnOp::kLog2) return x.log() * S(1.0 / std::log(2.0));
  if constexpr (kOp == UnOp::kLog10) return x.log10();
  if constexpr (kOp == UnOp::kSinh) return x.unaryExpr([](S v) { return std::sinh(v); });
  if constexpr (kOp == UnOp::kCosh) return x.unaryExpr([](S v) { return std::cosh(v); });
  if constexpr (kOp == UnOp::kAsin) return x.unaryExpr([](S v) { return std::asin(v); });
  if constexpr (kOp == UnOp::kAcos) return x.unaryExpr([](S v) { return std::acos(v); });
  if constexpr (kOp == UnOp::kAsinh) return x.unaryExpr([](S v) { return std::asinh(v); });
  if constexpr (kOp == UnOp::kAcosh) return x.unaryExpr([](S v) { return std::acosh(v); });
  if constexpr (kOp == UnOp::kAtanh) return x.unaryExpr([](S v) { return std::atanh(v); });
  if constexpr (kOp == UnOp::kNegative) return -x;
  if constexpr (kOp == UnOp::kAbs) return x.abs();
  if constexpr (kOp == UnOp::kFloor) return x.floor();
  if constexpr (kOp == UnOp::kCeil) return x.ceil();
  if constexpr (kOp == UnOp::kRound) return x.round();  // half away from zero
  if constexpr (kOp == UnOp::kTrunc) return x.unaryExpr([](S v) { return std::trunc(v); });
  if constexpr (kOp == UnOp::kSign) return x.sign();
}

// Integer versions: negation and abs wrap (abs(INT_MIN) == INT_MIN, as in
// two's complement hardware); rounding ops are the identity.
template <UnOp kOp, typename T>
T IntApply(T v) {
  using U = std::make_unsigned_t<T>;
  if constexpr (kOp == UnOp::kNegative) {
    return static_cast<T>(U(0) - static_cast<U>(v));
  } else if constexpr (kOp == UnOp::kAbs) {
    if constexpr (std::is_signed_v<T>) {
      return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v;
    } else {
      return v;
    }
  } else if constexpr (kOp == UnOp::kSign) {
    if constexpr (std::is_signed_v<T>) {
      return static_cast<T>((v > 0) - (v < 0));
    } else {
      return static_cast<T>(v > 0);
    }
  } else {
    return v;  // floor, ceil, round, trunc
  }
}

template <UnOp kOp>
absl::StatusOr<std::vector<NDArray>> UnaryKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.dtype() != in.dtype() || out.num_elements() != in.num_elements()) {
    return KernelError(ctx, "output type {} does not match the input", TypeToString(ctx.out_type));
  }
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, in.dtype(), [&]<typename T>() -> absl::Status {
    if constexpr (kIsFloat<T>) {
      using C = ComputeT<T>;
      auto x = FlatMap<const T>(in).template cast<C>();
      FlatMap<T>(out) = FloatExpr<kOp, T>(x).template cast<T>();
      return absl::OkStatus();
    } else if constexpr (FloatOnly(kOp)) {
      return KernelError(ctx, "expects a floating-point tensor, got {}", in.dtype().ToString());
    } else {
      const T* src = in.data<T>();
      T* dst = out.data<T>();
      for (int64_t i = 0, n = in.num_elements(); i < n; ++i) dst[i] = IntApply<kOp>(src[i]);
      return absl::OkStatus();
    }
  }));
  return std::vector<NDArray>{std::move(out)};
}

// isnan / isinf / isfinite: bool outputs; integers are always finite.
enum class FpClass { kNan, kInf, kFinite };

template <FpClass kClass>
absl::StatusOr<std::vector<NDArray>> ClassifyKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (!out.dtype().is_bool() || out.num_elements() != in.num_elements()) {
    return KernelError(ctx, "output type {} does not match the input", TypeToString(ctx.out_type));
  }
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, in.dtype(), [&]<typename T>() {
    const T* src = in.data<T>();
    bool* dst = out.data<bool>();
    for (int64_t i = 0, n = in.num_elements(); i < n; ++i) {
      if constexpr (kIsFloat<T>) {
        const ComputeT<T> v = ComputeT<T>(src[i]);
        if constexpr (kClass == FpClass::kNan) dst[i] = std::isnan(v);
        if constexpr (kClass == FpClass::kInf) dst[i] = std::isinf(v);
        if constexpr (kClass == FpClass::kFinite) dst[i] = std::isfinite(v);
      } else {
        dst[i] = kClass == FpClass::kFinite;
      }
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

// ~x for integers, !x for bool.
absl::StatusOr<std::vector<NDArray>> BitwiseNot(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, in.dtype(), [&]<typename T>() -> absl::Status {
    if constexpr (kIsFloat<T>) {
      return KernelError(ctx, "expects an integer or bool tensor, got {}", in.dtype().ToString());
    } else {
      const T* src = in.data<T>();
      T* dst = out.data<T>();
      for (int64_t i = 0, n = in.num_elements(); i < n; ++i) {
        if constexpr (std::is_same_v<T, bool>) {
          dst[i] = !src[i];
        } else {
          dst[i] = static_cast<T>(~src[i]);
        }
      }
      return absl::OkStatus();
    }
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace

CARVE_REGISTER_KERNEL("sinh", UnaryKernel<UnOp::kSinh>);
CARVE_REGISTER_KERNEL("cosh", UnaryKernel<UnOp::kCosh>);
CARVE_REGISTER_KERNEL("asin", UnaryKernel<UnOp::kAsin>);
CARVE_REGISTER_KERNEL("acos", UnaryKernel<UnOp::kAcos>);
CARVE_REGISTER_KERNEL("asinh", UnaryKernel<UnOp::kAsinh>);
CARVE_REGISTER_KERNEL("acosh", UnaryKernel<UnOp::kAcosh>);
CARVE_REGISTER_KERNEL("atanh", UnaryKernel<UnOp::kAtanh>);
CARVE_REGISTER_KERNEL("isnan", ClassifyKernel<FpClass::kNan>);
CARVE_REGISTER_KERNEL("isinf", ClassifyKernel<FpClass::kInf>);
CARVE_REGISTER_KERNEL("isfinite", ClassifyKernel<FpClass::kFinite>);
CARVE_REGISTER_KERNEL("bitwise_not", BitwiseNot);
CARVE_REGISTER_KERNEL("exp", UnaryKernel<UnOp::kExp>);
CARVE_REGISTER_KERNEL("fast_exp", UnaryKernel<UnOp::kFastExp>);
CARVE_REGISTER_KERNEL("log", UnaryKernel<UnOp::kLog>);
CARVE_REGISTER_KERNEL("log2", UnaryKernel<UnOp::kLog2>);
CARVE_REGISTER_KERNEL("log10", UnaryKernel<UnOp::kLog10>);
CARVE_REGISTER_KERNEL("sqrt", UnaryKernel<UnOp::kSqrt>);
CARVE_REGISTER_KERNEL("rsqrt", UnaryKernel<UnOp::kRsqrt>);
CARVE_REGISTER_KERNEL("erf", UnaryKernel<UnOp::kErf>);
CARVE_REGISTER_KERNEL("fast_erf", UnaryKernel<UnOp::kFastErf>);
CARVE_REGISTER_KERNEL("tanh", UnaryKernel<UnOp::kTanh>);
CARVE_REGISTER_KERNEL("fast_tanh", UnaryKernel<UnOp::kFastTanh>);
CARVE_REGISTER_KERNEL("sigmoid", UnaryKernel<UnOp::kSigmoid>);
CARVE_REGISTER_KERNEL("sin", UnaryKernel<UnOp::kSin>);
CARVE_REGISTER_KERNEL("cos", UnaryKernel<UnOp::kCos>);
CARVE_REGISTER_KERNEL("tan", UnaryKernel<UnOp::kTan>);
CARVE_REGISTER_KERNEL("atan", UnaryKernel<UnOp::kAtan>);
CARVE_REGISTER_KERNEL("negative", UnaryKernel<UnOp::kNegative>);
CARVE_REGISTER_KERNEL("abs", UnaryKernel<UnOp::kAbs>);
CARVE_REGISTER_KERNEL("floor", UnaryKernel<UnOp::kFloor>);
CARVE_REGISTER_KERNEL("ceil", UnaryKernel<UnOp::kCeil>);
CARVE_REGISTER_KERNEL("round", UnaryKernel<UnOp::kRound>);
CARVE_REGISTER_KERNEL("trunc", UnaryKernel<UnOp::kTrunc>);
CARVE_REGISTER_KERNEL("sign", UnaryKernel<UnOp::kSign>);

}  // namespace carve
