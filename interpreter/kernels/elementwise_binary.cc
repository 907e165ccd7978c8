// Binary elementwise kernels with NumPy broadcasting: arithmetic,
// comparisons, logical and bitwise ops (ops.md sections 2 and 3).
//
// Integer arithmetic wraps, as TVM's generated code does; it is computed in
// the unsigned type so that overflow is defined in C++. Integer division by
// zero is an error rather than a trap. float16 is computed in float and
// rounded once per element.
#include <cmath>
#include <type_traits>

#include "interpreter/kernel_inplace.h"
#include "interpreter/kernels/alloc_uninitialized.h"
#include "interpreter/kernels/broadcast.h"
#include "interpreter/kernels/kernel_util.h"
#include "interpreter/kernels/square_like_powf.h"

namespace carve {
namespace {

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

// Wrapping integer arithmetic (T integral, possibly signed).
template <typename T>
T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  // Promote small types to unsigned int first: uint16 * uint16 would
  // otherwise promote to (signed) int and could overflow.
  using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Unsigned<T>>;
  return static_cast<T>(static_cast<W>(static_cast<Unsigned<T>>(a)) *
                        static_cast<W>(static_cast<Unsigned<T>>(b)));
}

// Truncating division and remainder; the one overflowing case (min / -1)
// wraps. b != 0 is checked before the loop.
template <typename T>
T TruncDiv(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return WrapSub(T(0), a);
  }
  return static_cast<T>(a / b);
}
template <typename T>
T TruncMod(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}
// Division rounding toward -inf; the remainder has the sign of b.
template <typename T>
T FloorDiv(T a, T b) {
  T q = TruncDiv(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (TruncMod(a, b) != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
  }
  return q;
}
template <typename T>
T FloorMod(T a, T b) {
  T r = TruncMod(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
  }
  return r;
}

// a ** b for integers by squaring, wrapping; a negative exponent gives the
// truncated reciprocal (0 unless |a| == 1).
template <typename T>
T IntPow(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2 == 0) ? 1 : -1;
      return 0;  // includes 0 ** negative, which has no integer value
    }
  }
  T result = 1;
  T base = a;
  for (auto e = static_cast<Unsigned<T>>(b); e != 0; e >>= 1) {
    if (e & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
  }
  return result;
}

template <typename T>
constexpr bool IsNegative(T v) {
  if constexpr (std::is_signed_v<T>) {
    return v < 0;
  } else {
    return false;
  }
}

// Shifts with defined results for every amount: shifting by the bit width or
// more (or a negative amount) shifts everything out.
template <typename T>
T ShiftLeft(T a, T b) {
  constexpr int kBits = sizeof(T) * 8;
  if (IsNegative(b) || b >= kBits) return 0;
  return static_cast<T>(static_cast<Unsigned<T>>(a) << b);
}
template <typename T>
T ShiftRight(T a, T b) {
  constexpr int kBits = sizeof(T) * 8;
  if (IsNegative(b) || b >= kBits) return IsNegative(a) ? T(-1) : T(0);
  return static_cast<T>(a >> b);  // arithmetic for signed types (C++20)
}

enum class BinOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kFloorMod,
  kTruncDiv,
  kTruncMod,
  kPow,
  kMax,
  kMin,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kEqual,
  kNotEqual,
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
  kBitAnd,
  kBitOr,
  kBitXor,
  kShiftLeft,
  kShiftRight,
};

constexpr bool IsComparison(BinOp op) { return op >= BinOp::kLess && op <= BinOp::kNotEqual; }
constexpr bool IsLogical(BinOp op) { return op >= BinOp::kLogicalAnd && op <= BinOp::kLogicalXor; }
constexpr bool IsBitwise(BinOp op) { return op >= BinOp::kBitAnd; }
constexpr bool IsDivision(BinOp op) {
  return op == BinOp::kDiv || op == BinOp::kFloorDiv || op == BinOp::kFloorMod ||
         op == BinOp::kTruncDiv || op == BinOp::kTruncMod;
}

// One element: `a op b` for compute type C (float for Half). Returns C, or
// bool for comparisons.
template <BinOp kOp, typename C>
inline auto Apply(C a, C b) {
  constexpr bool kInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;
  if constexpr (IsComparison(kOp)) {
    if constexpr (kOp == BinOp::kLess) return a < b;
    if constexpr (kOp == BinOp::kLessEqual) return a <= b;
    if constexpr (kOp == BinOp::kGreater) return a > b;
    if constexpr (kOp == BinOp::kGreaterEqual) return a >= b;
    if constexpr (kOp == BinOp::kEqual) return a == b;
    if constexpr (kOp == BinOp::kNotEqual) return a != b;
  } else if constexpr (IsLogical(kOp)) {
    bool x = a != C(0), y = b != C(0);
    if constexpr (kOp == BinOp::kLogicalAnd) return C(x && y);
    if constexpr (kOp == BinOp::kLogicalOr) return C(x || y);
    if constexpr (kOp == BinOp::kLogicalXor) return C(x != y);
  } else if constexpr (kOp == BinOp::kMax) {
    return a < b ? b : a;
  } else if constexpr (kOp == BinOp::kMin) {
    return b < a ? b : a;
  } else if constexpr (kInt) {
    if constexpr (kOp == BinOp::kAdd) return WrapAdd(a, b);
    if constexpr (kOp == BinOp::kSub) return WrapSub(a, b);
    if constexpr (kOp == BinOp::kMul) return WrapMul(a, b);
    if constexpr (kOp == BinOp::kDiv || kOp == BinOp::kTruncDiv) return TruncDiv(a, b);
    if constexpr (kOp == BinOp::kTruncMod) return TruncMod(a, b);
    if constexpr (kOp == BinOp::kFloorDiv) return FloorDiv(a, b);
    if constexpr (kOp == BinOp::kFloorMod) return FloorMod(a, b);
    if constexpr (kOp == BinOp::kPow) return IntPow(a, b);
    if constexpr (kOp == BinOp::kBitAnd) return C(a & b);
    if constexpr (kOp == BinOp::kBitOr) return C(a | b);
    if constexpr (kOp == BinOp::kBitXor) return C(a ^ b);
    if constexpr (kOp == BinOp::kShiftLeft) return ShiftLeft(a, b);
    if constexpr (kOp == BinOp::kShiftRight) return ShiftRight(a, b);
  } else if constexpr (std::is_same_v<C, bool>) {
    // bool arithmetic is uint1 arithmetic: it wraps modulo 2.
    if constexpr (kOp == BinOp::kAdd || kOp == BinOp::kSub || kOp == BinOp::kBitXor) return a != b;
    if constexpr (kOp == BinOp::kMul || kOp == BinOp::kBitAnd) return a && b;
    if constexpr (kOp == BinOp::kBitOr) return a || b;
    if constexpr (kOp == BinOp::kPow) return a || !b;
  } else {  // floating point
    if constexpr (kOp == BinOp::kAdd) return a + b;
    if constexpr (kOp == BinOp::kSub) return a - b;
    if constexpr (kOp == BinOp::kMul) return a * b;
    if constexpr (kOp == BinOp::kDiv) return a / b;
    if constexpr (kOp == BinOp::kTruncDiv) return std::trunc(a / b);
    if constexpr (kOp == BinOp::kTruncMod) return std::fmod(a, b);
    if constexpr (kOp == BinOp::kFloorDiv) return std::floor(a / b);
    if constexpr (kOp == BinOp::kFloorMod) return a - std::floor(a / b) * b;
    if constexpr (kOp == BinOp::kPow) return std::pow(a, b);
  }
}

// Which (op, dtype) pairs exist: bitwise ops need integers or bool; shifts
// and the integer-only arithmetic need integers; everything else takes any
// dtype.
template <BinOp kOp, typename T>
constexpr bool Supported() {
  if constexpr (kOp == BinOp::kShiftLeft || kOp == BinOp::kShiftRight) {
    return std::is_integral_v<T> && !std::is_same_v<T, bool>;
  } else if constexpr (IsBitwise(kOp)) {
    return std::is_integral_v<T>;
  } else if constexpr (IsDivision(kOp)) {
    return !std::is_same_v<T, bool>;
  } else {
    return true;
  }
}

// True when some element of `b` is zero (integer division guard).
template <typename T>
bool HasZero(const NDArray& b) {
  const T* p = b.data<T>();
  for (int64_t i = 0, n = b.num_elements(); i < n; ++i) {
    if (p[i] == T(0)) return true;
  }
  return false;
}

// out[i] = a[..] op b[..] over every broadcast run; the branches let the
// compiler vectorise the contiguous and scalar-operand runs. `out` may be
// `a` when a has the output's shape (in place: element i reads a[i] before
// writing out[i], so no pointer is restrict).
template <BinOp kOp, typename T, typename R>
void BinaryLoop(const BroadcastPlan& plan, const T* a, const T* b, R* out) {
  using C = ComputeT<T>;
  auto f = [](T x, T y) -> R { return static_cast<R>(Apply<kOp, C>(C(x), C(y))); };
  plan.ForEachRun([&](int64_t o, const int64_t* off, int64_t n, const int64_t* s) {
    const T* pa = a + off[0];
    const T* pb = b + off[1];
    R* po = out + o;
    if (s[0] == 1 && s[1] == 1) {
      for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
    } else if (s[0] == 1 && s[1] == 0) {
      const T y = *pb;
      if constexpr (kOp == BinOp::kPow && std::is_same_v<T, float>) {
        // x ** 2 (layer norms' variance): powf's bits, mostly without powf.
        if (y == 2.0f) {
          nn_kernels::SquareLikePowf(pa, po, n);
          return;
        }
      }
      for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], y);
    } else if (s[0] == 0 && s[1] == 1) {
      const T x = *pa;
      for (int64_t i = 0; i < n; ++i) po[i] = f(x, pb[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i * s[0]], pb[i * s[1]]);
    }
  });
}

template <BinOp kOp>
absl::StatusOr<std::vector<NDArray>> BinaryKernel(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& a = ctx.inputs[0];
  const NDArray& b = ctx.inputs[1];
  if (a.dtype() != b.dtype()) {
    return KernelError(ctx, "dtype mismatch: {} and {}", a.dtype().ToString(),
                       b.dtype().ToString());
  }
  // BinaryLoop writes every element (the broadcast plan runs over the whole
  // output), so it is not zero-filled first.
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
  DataType want = IsComparison(kOp) ? DataType::Bool() : a.dtype();
  if (out.dtype() != want) {
    return KernelError(ctx, "output dtype {} does not match {}", out.dtype().ToString(),
                       want.ToString());
  }
  auto plan = BroadcastPlan::Make(out.shape(), {a.shape(), b.shape()});
  if (!plan.ok()) return KernelError(ctx, "{}", std::string(plan.status().message()));
  CARVE_RETURN_IF_ERROR(DispatchAll(ctx, a.dtype(), [&]<typename T>() -> absl::Status {
    if constexpr (!Supported<kOp, T>()) {
      return UnsupportedDType(ctx, a.dtype());
    } else {
      if constexpr (IsDivision(kOp) && std::is_integral_v<T>) {
        if (HasZero<T>(b)) return KernelError(ctx, "integer division by zero");
      }
      using R = std::conditional_t<IsComparison(kOp), bool, T>;
      BinaryLoop<kOp, T, R>(*plan, a.data<T>(), b.data<T>(), out.data<R>());
      return absl::OkStatus();
    }
  }));
  return std::vector<NDArray>{std::move(out)};
}

// The in-place variant: arithmetic (not comparisons, logical or bitwise
// ops) on floating-point tensors whose left operand has the result's shape.
template <BinOp kOp>
bool BinaryInPlace(const KernelContext& ctx, NDArray& a) {
  if (ctx.inputs.size() != 2 || !ResultFitsInPlace(ctx, a)) return false;
  const NDArray& b = ctx.inputs[1];
  if (a.dtype() != b.dtype() || !a.dtype().is_float()) return false;
  auto plan = BroadcastPlan::Make(a.shape(), {a.shape(), b.shape()});
  if (!plan.ok()) return false;
  return DispatchFloat(ctx, a.dtype(), [&]<typename T>() {
           BinaryLoop<kOp, T, T>(*plan, a.data<T>(), b.data<T>(), a.data<T>());
           return absl::OkStatus();
         }).ok();
}

}  // namespace

CARVE_REGISTER_KERNEL("add", BinaryKernel<BinOp::kAdd>);
CARVE_REGISTER_KERNEL("subtract", BinaryKernel<BinOp::kSub>);
CARVE_REGISTER_KERNEL("multiply", BinaryKernel<BinOp::kMul>);
CARVE_REGISTER_KERNEL("divide", BinaryKernel<BinOp::kDiv>);
CARVE_REGISTER_KERNEL("floor_divide", BinaryKernel<BinOp::kFloorDiv>);
CARVE_REGISTER_KERNEL("floor_mod", BinaryKernel<BinOp::kFloorMod>);
CARVE_REGISTER_KERNEL("trunc_divide", BinaryKernel<BinOp::kTruncDiv>);
CARVE_REGISTER_KERNEL("trunc_mod", BinaryKernel<BinOp::kTruncMod>);
CARVE_REGISTER_KERNEL("mod", BinaryKernel<BinOp::kTruncMod>);
CARVE_REGISTER_KERNEL("power", BinaryKernel<BinOp::kPow>);
CARVE_REGISTER_KERNEL("maximum", BinaryKernel<BinOp::kMax>);
CARVE_REGISTER_KERNEL("minimum", BinaryKernel<BinOp::kMin>);
CARVE_REGISTER_KERNEL("less", BinaryKernel<BinOp::kLess>);
CARVE_REGISTER_KERNEL("less_equal", BinaryKernel<BinOp::kLessEqual>);
CARVE_REGISTER_KERNEL("greater", BinaryKernel<BinOp::kGreater>);
CARVE_REGISTER_KERNEL("greater_equal", BinaryKernel<BinOp::kGreaterEqual>);
CARVE_REGISTER_KERNEL("equal", BinaryKernel<BinOp::kEqual>);
CARVE_REGISTER_KERNEL("not_equal", BinaryKernel<BinOp::kNotEqual>);
CARVE_REGISTER_KERNEL("logical_and", BinaryKernel<BinOp::kLogicalAnd>);
CARVE_REGISTER_KERNEL("logical_or", BinaryKernel<BinOp::kLogicalOr>);
CARVE_REGISTER_KERNEL("logical_xor", BinaryKernel<BinOp::kLogicalXor>);
CARVE_REGISTER_KERNEL("bitwise_and", BinaryKernel<BinOp::kBitAnd>);
CARVE_REGISTER_KERNEL("bitwise_or", BinaryKernel<BinOp::kBitOr>);
CARVE_REGISTER_KERNEL("bitwise_xor", BinaryKernel<BinOp::kBitXor>);
CARVE_REGISTER_KERNEL("left_shift", BinaryKernel<BinOp::kShiftLeft>);
CARVE_REGISTER_KERNEL("right_shift", BinaryKernel<BinOp::kShiftRight>);
CARVE_REGISTER_INPLACE_KERNEL("add", BinaryInPlace<BinOp::kAdd>);
CARVE_REGISTER_INPLACE_KERNEL("subtract", BinaryInPlace<BinOp::kSub>);
CARVE_REGISTER_INPLACE_KERNEL("multiply", BinaryInPlace<BinOp::kMul>);
CARVE_REGISTER_INPLACE_KERNEL("divide", BinaryInPlace<BinOp::kDiv>);
CARVE_REGISTER_INPLACE_KERNEL("maximum", BinaryInPlace<BinOp::kMax>);
CARVE_REGISTER_INPLACE_KERNEL("minimum", BinaryInPlace<BinOp::kMin>);

}  // namespace carve
