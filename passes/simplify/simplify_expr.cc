#include "passes/simplify/simplify_expr.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "passes/rewrite/rewrite_util.h"
#include "patterns/builders.h"
#include "support/status_macros.h"

namespace carve {
namespace {

const TensorType* TensorOf(const Expr* e) { return DynCast<TensorType>(e->checked_type()); }

// A new op call carrying `type` (rules keep the graph typed).
const Expr* Typed(const Expr* e, const Type* type) {
  e->set_checked_type(type);
  return e;
}

AttrValue Ints(std::span<const Dim> dims) {
  std::vector<AttrValue> items;
  for (const Dim& d : dims) items.push_back(AttrValue::Int(d.value));
  return AttrValue::Array(items);
}

// Any of the reshape-like ops applied to `p`.
Pattern ReshapeLike(const Pattern& p) {
  return IsOp("reshape")(p) | IsOp("expand_dims")(p) | IsOp("squeeze")(p) |
         IsOp("nn.batch_flatten")(p);
}

// TVM's EliminateIdentityRewrite: the other operand is zeros()/ones(),
// zeros_like/ones_like, or a constant with a single element (TVM's IsScalar:
// every extent 1) equal to `value`; and the op's result has x's type (the
// operand does not broadcast x to a bigger shape).
bool IsIdentityOperand(const RewriteContext& ctx, double value) {
  const Expr* x = ctx.Capture("x");
  const Expr* operand = ctx.Capture("c");
  if (x == nullptr || operand == nullptr || x->checked_type() != ctx.pre()->checked_type()) {
    return false;
  }
  const Constant* c = DynCast<Constant>(operand);
  if (c == nullptr) return true;  // zeros/ones or *_like: matched by the pattern
  const NDArray& data = c->data();
  return data.num_elements() == 1 && data.GetAsDouble(0) == value;
}

absl::StatusOr<const Expr*> SimplifyReshape(const RewriteContext& ctx) {
  const TensorType* out = TensorOf(ctx.pre());
  const Expr* x = ctx.Capture("x");
  if (out == nullptr || !out->is_static() || x == nullptr) return ctx.post();
  if (x->checked_type() == out) return x;
  // The new shape is the result's literal shape: a 0 in it is an empty
  // axis, which reshape reads as "copy the input dim" unless allowzero is
  // set (random-program finding F-4: dropping it made an ill-typed module).
  // TVM v0.16 builds the reshape with allowzero at its default whatever the
  // shape; carve sets it exactly when the shape has a 0, so every other
  // rewrite prints as before.
  const bool has_zero = std::any_of(out->shape().begin(), out->shape().end(),
                                    [](const Dim& d) { return d.value == 0; });
  const Attrs* attrs = has_zero ? OpAttrs("reshape", {{"newshape", Ints(out->shape())},
                                                      {"allowzero", AttrValue::Bool(true)}})
                                : OpAttrs("reshape", {{"newshape", Ints(out->shape())}});
  const Call* reshape = ctx.builder().MakeCall(GetOp("reshape"), {x}, attrs);
  return Typed(reshape, out);
}

// transpose(x, a) has dims x[a[i]]; None means reversed.
std::vector<int64_t> Axes(const Call* transpose, size_t rank) {
  std::optional<std::vector<int64_t>> axes = transpose->attrs()->GetInts("axes");
  std::vector<int64_t> out;
  if (!axes.has_value() || axes->empty()) {
    for (size_t i = 0; i < rank; ++i) out.push_back(static_cast<int64_t>(rank - 1 - i));
    return out;
  }
  for (int64_t a : *axes) out.push_back(a < 0 ? a + static_cast<int64_t>(rank) : a);
  return out;
}

absl::StatusOr<const Expr*> SimplifyTranspose(const RewriteContext& ctx) {
  const Expr* x = ctx.Capture("x");
  const Call* inner = DynCast<Call>(ctx.Capture("inner"));
  const Call* outer = DynCast<Call>(ctx.post());
  const TensorType* in = x == nullptr ? nullptr : TensorOf(x);
  if (in == nullptr || inner == nullptr || outer == nullptr) return ctx.post();
  std::vector<int64_t> a = Axes(inner, in->rank());
  std::vector<int64_t> b = Axes(outer, in->rank());
  std::vector<AttrValue> composed;
  bool identity = true;
  for (size_t i = 0; i < b.size(); ++i) {
    int64_t axis = a[b[i]];
    identity = identity && axis == static_cast<int64_t>(i);
    composed.push_back(AttrValue::Int(axis));
  }
  if (identity) return x;
  const Call* t = ctx.builder().MakeCall(
      GetOp("transpose"), {x}, OpAttrs("transpose", {{"axes", AttrValue::Array(composed)}}));
  return Typed(t, ctx.pre()->checked_type());
}

absl::StatusOr<const Expr*> SimplifyCast(const RewriteContext& ctx) {
  const Expr* x = ctx.Capture("x");
  return x != nullptr && x->checked_type() == ctx.pre()->checked_type() ? x : ctx.post();
}

// TVM's SimplifyRSqrt: n / sqrt(x) -> n * rsqrt(x) (EliminateIdentity then
// drops a numerator of 1).
absl::StatusOr<const Expr*> SimplifyRSqrt(const RewriteContext& ctx) {
  const Expr* x = ctx.Capture("x");
  const Expr* n = ctx.Capture("n");
  if (x == nullptr || n == nullptr) return ctx.post();
  const Call* rsqrt = ctx.builder().MakeCall(GetOp("rsqrt"), {x}, nullptr);
  rsqrt->set_checked_type(x->checked_type());
  const Call* product = ctx.builder().MakeCall(GetOp("multiply"), {n, rsqrt}, nullptr);
  return Typed(product, ctx.pre()->checked_type());
}

// The scalar a zeros/ones/full operand stands for (TVM's FullElementwise),
// nullptr when `e` is none of them.
const Expr* FillValue(const Expr* e, DataType dtype, IRBuilder& b) {
  const Call* call = DynCast<Call>(e);
  if (call == nullptr || call->op() == nullptr) return nullptr;
  std::string_view name = call->op()->name;
  double value;
  if ((name == "zeros" || name == "ones") && call->args().empty()) {
    value = name == "zeros" ? 0 : 1;
  } else if ((name == "zeros_like" || name == "ones_like") && call->args().size() == 1) {
    value = name == "zeros_like" ? 0 : 1;
  } else if ((name == "full" && call->args().size() == 1) ||
             (name == "full_like" && call->args().size() == 2)) {
    const Constant* fill = DynCast<Constant>(call->args().back());
    if (fill == nullptr || fill->data().num_elements() != 1 || fill->data().rank() != 0) {
      return nullptr;
    }
    return fill;
  } else {
    return nullptr;
  }
  const Constant* c = b.MakeConstant(NDArray::Scalar(dtype, value));
  c->set_checked_type(TensorTy(dtype, std::span<const Dim>{}));
  return c;
}

// TVM's FullElementwise: a broadcast op with a zeros/ones/full operand that
// does not broadcast the other operand x takes the fill value as a scalar.
absl::StatusOr<const Expr*> FullElementwise(const RewriteContext& ctx) {
  const Call* post = Cast<Call>(ctx.post());
  const Call* pre = Cast<Call>(ctx.pre());
  const OpInfo* op = post->op();
  const TensorType* out = TensorOf(pre);
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
    return Typed(ctx.builder().MakeCall(post->callee(), args, post->attrs(), post->span()), out);
  }
  return ctx.post();
}

RewriteRule Identity(std::string name, std::string_view op, double value) {
  std::string fill = value == 0 ? "zeros" : "ones";
  Pattern operand = IsConstant() | IsCall(IsOp(fill), {}) | IsOp(fill + "_like")(Wildcard());
  return RewriteRule{std::move(name), IsOp(op)(Capture("x"), Capture("c", operand)),
                     [value](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
                       return IsIdentityOperand(ctx, value) ? ctx.Capture("x") : ctx.post();
                     }};
}

RewriteRule Concretize(std::string_view like, std::string_view init) {
  return RewriteRule{
      std::string("ConcretizeLike:") + std::string(like), IsOp(like)(Capture("x")),
      [init](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
        const TensorType* t = TensorOf(ctx.pre());
        if (t == nullptr || !t->is_static()) return ctx.post();
        const Call* call = ctx.builder().MakeCall(
            GetOp(init), std::span<const Expr* const>{},
            OpAttrs(init, {{"shape", Ints(t->shape())},
                           {"dtype", AttrValue::Str(t->dtype().ToString())}}));
        return Typed(call, t);
      }};
}

}  // namespace

std::vector<RewriteRule> SimplifyExprRules() {
  Pattern x = Capture("x");
  Pattern inner_transpose = Capture("inner", IsOp("transpose")(x));
  return {
      // reshape-like(reshape-like(x)) -> reshape(x, newshape=<result shape>)
      {"SimplifyReshape", ReshapeLike(ReshapeLike(x)), SimplifyReshape},
      // transpose(transpose(x, a), b) -> transpose(x, a.b) | x
      {"SimplifyTranspose", IsOp("transpose")(inner_transpose), SimplifyTranspose},
      // cast(x, dtype(x)) -> x
      {"SimplifyCast", IsOp("cast")(x), SimplifyCast},
      // n / sqrt(x) -> n * rsqrt(x)
      {"SimplifyRSqrt", IsOp("divide")(Capture("n"), IsOp("sqrt")(x)), SimplifyRSqrt},
      // x + 0 | 0 + x -> x (add is commutative in the registry)
      Identity("EliminateIdentity:add", "add", 0),
      // x - 0 -> x
      Identity("EliminateIdentity:subtract", "subtract", 0),
      // x * 1 | 1 * x -> x
      Identity("EliminateIdentity:multiply", "multiply", 1),
      // x / 1 -> x
      Identity("EliminateIdentity:divide", "divide", 1),
      // op(x, zeros()) -> op(x, 0f) and the like, when x keeps its shape
      {"FullElementwise", IsCallAnyArgs(Wildcard()), FullElementwise},
      // zeros_like(x) -> zeros(shape(x), dtype(x)); ones_like likewise
      Concretize("zeros_like", "zeros"),
      Concretize("ones_like", "ones"),
  };
}

absl::StatusOr<const Function*> SimplifyExprFunction(const Function* fn, Arena* arena) {
  static const std::vector<RewriteRule> kRules = SimplifyExprRules();
  CARVE_ASSIGN_OR_RETURN(RewriteResult result, RewriteExpr(kRules, fn, arena));
  return Cast<Function>(result.expr);
}

PassPtr SimplifyExpr() {
  return MakeFunctionPass(
      "SimplifyExpr", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return SimplifyExprFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
