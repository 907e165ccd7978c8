// SimplifyExpr's arithmetic rules: SimplifyAdd, SimplifyRSqrt,
// EliminateIdentity, FullElementwise, SwitchAddMultiply,
// SimplifyAdjacentMultiplyOrAdd, SimplifyDQArg{Max,Min,Sort} and
// SimplifyBinomial.
#include <cmath>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "passes/fold/fold_constant.h"
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

// TVM's FoldConstantExpr on a typed call of constants: the constant it
// computes, with the installed evaluator; the call itself when none is
// installed (it is still correct, FoldConstant folds it later).
absl::StatusOr<const Expr*> Fold(IRBuilder& b, const Expr* e) {
  const Call* call = DynCast<Call>(e);
  ConstantEvaluator evaluate = GetConstantEvaluator();
  if (call == nullptr || evaluate == nullptr) return e;
  std::vector<NDArray> args;
  for (const Expr* arg : call->args()) {
    const Constant* c = DynCast<Constant>(arg);
    if (c == nullptr) return e;
    args.push_back(c->data());
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> out, evaluate(call, args));
  if (out.size() != 1) return e;
  const Constant* c = b.MakeConstant(std::move(out[0]));
  c->set_checked_type(call->checked_type());
  return c;
}

// The zeros/ones operand EliminateIdentity and FullElementwise accept.
Pattern Filled(std::string_view fill) {
  return IsCall(IsOp(fill), {}) | IsOp(fmt::format("{}_like", fill))(Wildcard());
}

// TVM's EliminateIdentityRewrite: x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1
// -> x, when the other operand is zeros/ones (or *_like) or a constant of
// one element equal to the identity, and the op's result has x's type (the
// operand does not broadcast x to a bigger shape).
absl::StatusOr<const Expr*> EliminateIdentityRewrite(const RewriteContext& ctx) {
  static const OpInfo* const kAdd = FindOp("add");
  static const OpInfo* const kSubtract = FindOp("subtract");
  const Expr* x = ctx.Capture("x");
  const Call* pre = Cast<Call>(ctx.pre());
  const Call* post = Cast<Call>(ctx.post());
  // x's type as the call saw it, on whichever side x is.
  const Expr* pre_x = post->args()[1] == x ? pre->args()[1] : pre->args()[0];
  if (pre_x->checked_type() != pre->checked_type()) return ctx.post();
  const Expr* operand = ctx.Capture("zero") != nullptr ? ctx.Capture("zero") : ctx.Capture("one");
  if (const Constant* c = DynCast<Constant>(operand)) {
    // The identity follows the op (TVM's CheckConstant).
    const double identity = post->op() == kAdd || post->op() == kSubtract ? 0 : 1;
    const NDArray& data = c->data();
    if (data.num_elements() != 1 || data.GetAsDouble(0) != identity) return ctx.post();
  }
  return x;
}

// The scalar a zeros/ones/full operand stands for (TVM's FullElementwise),
// nullptr when `e` is none of them.
const Expr* FillValue(const Expr* e, DataType dtype, IRBuilder& b) {
  static const OpInfo* const kZeros = FindOp("zeros");
  static const OpInfo* const kOnes = FindOp("ones");
  static const OpInfo* const kZerosLike = FindOp("zeros_like");
  static const OpInfo* const kOnesLike = FindOp("ones_like");
  static const OpInfo* const kFull = FindOp("full");
  static const OpInfo* const kFullLike = FindOp("full_like");
  const Call* call = DynCast<Call>(e);
  if (call == nullptr || call->op() == nullptr) return nullptr;
  const OpInfo* op = call->op();
  if ((op == kZeros || op == kOnes) && call->args().empty()) {
    return TypedScalar(b, dtype, op == kZeros ? 0 : 1);
  }
  if ((op == kZerosLike || op == kOnesLike) && call->args().size() == 1) {
    return TypedScalar(b, dtype, op == kZerosLike ? 0 : 1);
  }
  if ((op == kFull && call->args().size() == 1) || (op == kFullLike && call->args().size() == 2)) {
    const Constant* fill = DynCast<Constant>(call->args().back());
    if (fill == nullptr || fill->data().num_elements() != 1 || fill->data().rank() != 0) {
      return nullptr;
    }
    return fill;
  }
  return nullptr;
}

// A broadcast op with a zeros/ones/full operand that does not broadcast the
// other operand x takes the fill value as a scalar.
absl::StatusOr<const Expr*> FullElementwiseRewrite(const RewriteContext& ctx) {
  const Call* post = Cast<Call>(ctx.post());
  const Call* pre = Cast<Call>(ctx.pre());
  const OpInfo* op = post->op();
  const TensorType* out = TensorTypeOf(pre);
  if (op == nullptr || op->pattern != OpPattern::kBroadcast || post->args().size() != 2 ||
      out == nullptr) {
    return ctx.post();
  }
  for (size_t side = 0; side < 2; ++side) {
    size_t other = 1 - side;
    if (pre->args()[other]->checked_type() != out) continue;
    const Expr* value = FillValue(post->args()[side], out->dtype(), ctx.builder());
    if (value == nullptr) continue;
    std::vector<const Expr*> args(2);
    args[side] = value;
    args[other] = post->args()[other];
    const Call* call = ctx.builder().MakeCall(post->callee(), args, post->attrs(), post->span());
    call->set_checked_type(out);
    return call;
  }
  return ctx.post();
}

// The first element of constant `e` as a double, for SimplifyBinomial; only
// int32, float32 and float64 results read it (TVM reads no other dtype and
// keeps 1).
double BinomialCoefficient(const Expr* e, DataType dtype) {
  const Constant* c = DynCast<Constant>(e);
  if (c == nullptr || c->data().num_elements() < 1) return 1;
  if (dtype == DataType::Int(32) || dtype == DataType::Float(32) ||
      dtype == DataType::Float(64)) {
    return c->data().GetAsDouble(0);
  }
  return 1;
}

}  // namespace

// x + x -> x * 2. One pattern node for both operands, so that the matcher
// (which binds a shared node once) rejects x + y itself: every add matched
// and handed to the rewrite cost SimplifyExpr 3.6x its time on a chain of
// adds.
RewriteRule SimplifyAdd() {
  Pattern x = Capture("x");
  return {"SimplifyAdd", IsOp("add")(x, x),
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            const Expr* x = ctx.Capture("x");
            const Expr* two = TypedScalar(ctx.builder(), DTypeOf(ctx.pre()), 2);
            return TypedOpCall(ctx.builder(), "multiply", {x, two});
          }};
}

// n / sqrt(x) -> n * rsqrt(x) (EliminateIdentity then drops a numerator of 1)
RewriteRule SimplifyRSqrt() {
  return {"SimplifyRSqrt", IsOp("divide")(Capture("n"), IsOp("sqrt")(Capture("x"))),
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            CARVE_ASSIGN_OR_RETURN(const Expr* rsqrt,
                                   TypedOpCall(ctx.builder(), "rsqrt", {ctx.Capture("x")}));
            return TypedOpCall(ctx.builder(), "multiply", {ctx.Capture("n"), rsqrt});
          }};
}

// add and multiply are commutative in the registry, so 0 + x and 1 * x
// match too.
RewriteRule EliminateIdentity() {
  Pattern x = Capture("x");
  Pattern zero = Capture("zero", IsConstant() | Filled("zeros"));
  Pattern one = Capture("one", IsConstant() | Filled("ones"));
  return {"EliminateIdentity",
          IsOp("add")(x, zero) | IsOp("multiply")(x, one) | IsOp("subtract")(x, zero) |
              IsOp("divide")(x, one),
          EliminateIdentityRewrite};
}

RewriteRule FullElementwise() {
  Pattern fill = IsOp("full")(IsConstant()) | IsOp("full_like")(Wildcard(), IsConstant()) |
                 Filled("ones") | Filled("zeros");
  return {"FullElementwise", IsCall(Wildcard(), {fill, Wildcard()}) |
                                 IsCall(Wildcard(), {Wildcard(), fill}),
          FullElementwiseRewrite};
}

// (x + c1) * c2 -> x * c2 + (c1 * c2): FoldScaleAxis folds mul-add chains.
RewriteRule SwitchAddMultiply() {
  Pattern x = Capture("x"), c1 = Capture("c1", IsConstant()), c2 = Capture("c2", IsConstant());
  return {"SwitchAddMultiply", (x + c1) * c2,
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            const Expr* x = ctx.Capture("x");
            if (Isa<Constant>(x)) return ctx.post();
            IRBuilder& b = ctx.builder();
            CARVE_ASSIGN_OR_RETURN(const Expr* c,
                                   TypedOpCall(b, "multiply", {ctx.Capture("c1"), ctx.Capture("c2")}));
            CARVE_ASSIGN_OR_RETURN(c, Fold(b, c));
            CARVE_ASSIGN_OR_RETURN(const Expr* scaled,
                                   TypedOpCall(b, "multiply", {x, ctx.Capture("c2")}));
            return TypedOpCall(b, "add", {scaled, c});
          }};
}

// x * c1 * c2 -> x * (c1 * c2); x + c1 + c2 -> x + (c1 + c2)
RewriteRule SimplifyAdjacentMultiplyOrAdd() {
  Pattern x = Capture("x"), c1 = Capture("c1", IsConstant()), c2 = Capture("c2", IsConstant());
  return {"SimplifyAdjacentMultiplyOrAdd", (x * c1 * c2) | (x + c1 + c2),
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            const Expr* x = ctx.Capture("x");
            if (Isa<Constant>(x)) return ctx.post();
            IRBuilder& b = ctx.builder();
            std::string_view op = Cast<Call>(ctx.post())->op()->name;
            CARVE_ASSIGN_OR_RETURN(const Expr* c,
                                   TypedOpCall(b, op, {ctx.Capture("c1"), ctx.Capture("c2")}));
            CARVE_ASSIGN_OR_RETURN(c, Fold(b, c));
            return TypedOpCall(b, op, {x, c}, Cast<Call>(ctx.post())->attrs());
          }};
}

// arg_op(qnn.dequantize(x, scale, zero_point)) -> arg_op(x): dequantizing
// is monotonic, so the order of the values does not change.
RewriteRule SimplifyDQArg(std::string_view arg_op) {
  return {fmt::format("SimplifyDQArg:{}", arg_op),
          IsOp(arg_op)(IsOp("qnn.dequantize")(Capture("x"), Wildcard(), Wildcard())),
          [arg_op = std::string(arg_op)](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            return TypedOpCall(ctx.builder(), arg_op, {ctx.Capture("x")},
                               Cast<Call>(ctx.post())->attrs());
          }};
}

// a*x*x + b*x*y + c*y*y (any order of the three terms, the coefficients
// where TVM's pattern allows them, each 1 when absent) ->
// a * ((x + p*y) * (x + q*y)) with p, q the roots of a*t^2 - b*t + c
// scaled as TVM's: (b +- sqrt(b^2 - 4ac)) / 2a. Left alone when the
// discriminant is negative.
RewriteRule SimplifyBinomial() {
  Pattern x = Capture("x"), y = Capture("y");
  Pattern a = Capture("a", IsConstant()), b = Capture("b", IsConstant()),
          c = Capture("c", IsConstant());
  auto mul = [](const Pattern& l, const Pattern& r) { return IsOp("multiply")(l, r); };
  auto add = [](const Pattern& l, const Pattern& r) { return IsOp("add")(l, r); };
  Pattern x_sq = mul(a, mul(x, x)) | mul(x, mul(a, x)) | mul(x, x);
  Pattern xy = mul(b, mul(x, y)) | mul(x, mul(b, y)) | mul(y, mul(b, x)) | mul(x, y);
  Pattern y_sq = mul(c, mul(y, y)) | mul(y, mul(c, y)) | mul(y, y);
  Pattern pattern =
      add(add(xy, x_sq), y_sq) | add(add(xy, y_sq), x_sq) | add(add(x_sq, y_sq), xy);
  return {"SimplifyBinomial", pattern,
          [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
            const DataType dtype = DTypeOf(ctx.pre());
            const Expr* x = ctx.Capture("x");
            const Expr* y = ctx.Capture("y");
            double a = BinomialCoefficient(ctx.Capture("a"), dtype);
            double b = BinomialCoefficient(ctx.Capture("b"), dtype);
            double c = BinomialCoefficient(ctx.Capture("c"), dtype);
            if (c == 1 && a > 1) {
              std::swap(x, y);
              // TVM moves a through a float here.
              std::swap(a, c);
              c = static_cast<float>(c);
            }
            const double discriminant = b * b - 4 * a * c;
            if (discriminant < 0) return ctx.pre();
            const bool same = discriminant < 10e-5;
            const double root = std::sqrt(discriminant);
            IRBuilder& builder = ctx.builder();
            auto multiplicand = [&](double value) -> absl::StatusOr<const Expr*> {
              CARVE_ASSIGN_OR_RETURN(
                  const Expr* scaled,
                  TypedOpCall(builder, "multiply", {y, TypedScalar(builder, dtype, value)}));
              return TypedOpCall(builder, "add", {x, scaled});
            };
            CARVE_ASSIGN_OR_RETURN(const Expr* first, multiplicand((b + root) / (2 * a)));
            const Expr* second = first;
            if (!same) {
              CARVE_ASSIGN_OR_RETURN(second, multiplicand((b - root) / (2 * a)));
            }
            CARVE_ASSIGN_OR_RETURN(const Expr* product,
                                   TypedOpCall(builder, "multiply", {first, second}));
            return TypedOpCall(builder, "multiply", {TypedScalar(builder, dtype, a), product});
          }};
}

}  // namespace carve::simplify
