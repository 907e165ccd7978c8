// SimplifyExpr's cast and clip rules: SimplifySameCast,
// SimplifyConsecutiveCast, SimplifyClipAndConsecutiveCast, SimplifyClip.
#include <cfloat>
#include <cmath>
#include <vector>

#include "passes/rewrite/rewrite_util.h"
#include "passes/simplify/simplify_expr_rules.h"
#include "patterns/builders.h"
#include "support/status_macros.h"

namespace carve::simplify {
namespace {

DataType DTypeOf(const Expr* e) {
  const TensorType* t = TensorTypeOf(e);
  return t == nullptr ? DataType::Void() : t->dtype();
}

Pattern AnyCast(const Pattern& data) {
  return IsOp("cast_like")(data, Wildcard()) | IsOp("cast")(data);
}

// TVM's IsWidenCast: casting `from` to `to` loses nothing (same kind and at
// least as many bits, or up the int -> uint -> float order with at least as
// many bits; never across bfloat16).
bool IsWidenCast(DataType from, DataType to) {
  if (from.code == to.code && from.bits <= to.bits) return true;
  if (from.code == DataType::kBFloat || to.code == DataType::kBFloat) return false;
  return from.code < to.code && from.bits <= to.bits;
}

// The range of `dtype` (TVM's min_value / max_value); [0, 0] for other kinds.
std::pair<double, double> Range(DataType dtype) {
  if (dtype.code == DataType::kInt) {
    const double half = std::ldexp(1.0, dtype.bits - 1);
    return {-half, half - 1};
  }
  if (dtype.code == DataType::kUInt) return {0, std::ldexp(1.0, dtype.bits) - 1};
  if (dtype.code == DataType::kFloat) {
    double max = dtype.bits == 16 ? 65504.0 : dtype.bits == 32 ? double(FLT_MAX) : DBL_MAX;
    return {-max, max};
  }
  if (dtype.code == DataType::kBFloat) return {-3.38953139e38, 3.38953139e38};
  return {0, 0};
}

// [lo, hi] covers all of dtype's range (TVM's CheckDataTypeMaxMinValue mode 0).
bool CoversDType(DataType dtype, double lo, double hi) {
  auto [min, max] = Range(dtype);
  return hi >= max && lo <= min;
}

// [lo, hi] lies inside dtype's range (mode 1).
bool InsideDType(DataType dtype, double lo, double hi) {
  auto [min, max] = Range(dtype);
  return hi <= max && lo >= min;
}

absl::StatusOr<const Expr*> MakeCast(IRBuilder& b, const Expr* x, DataType dtype) {
  return TypedOpCall(b, "cast", {x}, OpAttrs("cast", {{"dtype", AttrValue::Str(dtype.ToString())}}));
}

bool IsCallOf(const Expr* e, const OpInfo* op) {
  const Call* call = DynCast<Call>(e);
  return call != nullptr && op != nullptr && call->op() == op;
}

}  // namespace

// cast(x, dtype(x)) | cast_like(x, like of x's dtype) -> x
RewriteRule SimplifySameCast() {
  return {"SimplifySameCast", AnyCast(Capture("x")),
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            const Call* pre = Cast<Call>(ctx.pre());
            return DTypeOf(pre->args()[0]) == DTypeOf(pre) ? ctx.Capture("x") : ctx.post();
          }};
}

// cast(cast(x, t1), t2) -> cast(x, t2) when x -> t1 widens.
RewriteRule SimplifyConsecutiveCast() {
  return {"SimplifyConsecutiveCast", AnyCast(Capture("cast1", AnyCast(Capture("x")))),
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            const Expr* x = ctx.Capture("x");
            if (!IsWidenCast(DTypeOf(x), DTypeOf(ctx.Capture("cast1")))) return ctx.post();
            return MakeCast(ctx.builder(), x, DTypeOf(ctx.pre()));
          }};
}

// clip(x, lo, hi) then casts: a cast to a type whose range holds [lo, hi]
// changes no value, so it goes; a final cast restores the chain's dtype
// when the last kept op has another.
RewriteRule SimplifyClipAndConsecutiveCast() {
  Pattern chain = Recursive("casts", [](const Pattern& self) {
    return IsOp("cast")(self | Capture("clip", IsOp("clip")(Wildcard())));
  });
  return {"SimplifyClipAndConsecutiveCast", chain,
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            static const OpInfo* const kCast = FindOp("cast");
            const Expr* clip = ctx.Capture("clip");
            if (clip == nullptr) return ctx.post();
            const Attrs* attrs = Cast<Call>(clip)->attrs();
            const double lo = attrs->GetFloat("a_min"), hi = attrs->GetFloat("a_max");
            // The casts that change values, outermost first.
            std::vector<const Call*> kept;
            const Expr* e = ctx.post();
            while (e != clip && IsCallOf(e, kCast)) {
              const Call* cast = Cast<Call>(e);
              if (!InsideDType(DTypeOf(cast), lo, hi)) kept.push_back(cast);
              e = cast->args()[0];
            }
            if (e != clip) return ctx.post();
            const DataType last = kept.empty() ? DTypeOf(clip) : DTypeOf(kept.front());
            const Expr* out = clip;
            for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
              CARVE_ASSIGN_OR_RETURN(out, TypedOpCall(ctx.builder(), "cast", {out}, (*it)->attrs()));
            }
            if (last != DTypeOf(ctx.pre())) {
              CARVE_ASSIGN_OR_RETURN(out, MakeCast(ctx.builder(), out, DTypeOf(ctx.pre())));
            }
            return out;
          }};
}

// clip(x, lo, hi) -> x when [lo, hi] covers the whole range of x's dtype,
// unless x is a call of an op in `keep_after` (a pass option: a backend
// whose legalization reads clip(op(...)) asks for it in its recipe).
RewriteRule SimplifyClip(absl::flat_hash_set<const OpInfo*> keep_after) {
  return {"SimplifyClip", IsOp("clip")(Capture("x")),
          [keep_after = std::move(keep_after)](
              const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            const Expr* x = ctx.Capture("x");
            const auto* call = DynCast<Call>(x);
            if (call != nullptr && keep_after.contains(call->op())) return ctx.post();
            const Attrs* attrs = Cast<Call>(ctx.post())->attrs();
            if (CoversDType(DTypeOf(ctx.pre()), attrs->GetFloat("a_min"), attrs->GetFloat("a_max"))) {
              return x;
            }
            return ctx.post();
          }};
}

}  // namespace carve::simplify
