// SimplifyExpr's Concretize*Like rules (TVM's ConcretizeLikeRewrite family):
// an op that takes its result shape from a `like` operand becomes the op
// that takes the shape as an attribute, when the result shape is static. The
// dependency on the like operand goes, which lets more ops fuse.
#include <string>
#include <vector>

#include "fmt/format.h"
#include "passes/rewrite/rewrite_util.h"
#include "passes/simplify/simplify_expr_rules.h"
#include "patterns/builders.h"

namespace carve::simplify {
namespace {

AttrValue Ints(std::span<const Dim> dims) {
  std::vector<AttrValue> items;
  for (const Dim& d : dims) items.push_back(AttrValue::Int(d.value));
  return AttrValue::Array(items);
}

// Builds the concrete call from the matched call's operands (the rebuilt
// ones) and its static result type.
using Concretizer = std::function<absl::StatusOr<const Expr*>(
    IRBuilder& b, const Call* call, const TensorType* result)>;

// The rule for `like` (a unary or binary op): applies `make` when the result
// is a tensor of static shape.
RewriteRule ConcretizeRule(std::string_view like, Concretizer make) {
  const int inputs = FindOp(like)->num_inputs;
  Pattern pattern = inputs == 1 ? IsOp(like)(Wildcard()) : IsOp(like)(Wildcard(), Wildcard());
  return RewriteRule{
      fmt::format("Concretize:{}", like), pattern,
      [make = std::move(make)](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
        const TensorType* t = TensorTypeOf(ctx.pre());
        if (t == nullptr || !t->is_static()) return ctx.post();
        return make(ctx.builder(), Cast<Call>(ctx.post()), t);
      }};
}

// zeros_like / ones_like -> zeros / ones(shape, dtype).
Concretizer Init(std::string_view init) {
  return [init](IRBuilder& b, const Call*, const TensorType* t) {
    return TypedOpCall(b, init, {},
                       OpAttrs(init, {{"shape", Ints(t->shape())},
                                      {"dtype", AttrValue::Str(t->dtype().ToString())}}));
  };
}

}  // namespace

RewriteRule ConcretizeZerosLike() { return ConcretizeRule("zeros_like", Init("zeros")); }
RewriteRule ConcretizeOnesLike() { return ConcretizeRule("ones_like", Init("ones")); }

// full_like(data, fill) -> full(fill, shape, dtype)
RewriteRule ConcretizeFullLike() {
  return ConcretizeRule("full_like", [](IRBuilder& b, const Call* call, const TensorType* t) {
    return TypedOpCall(b, "full", {call->args()[1]},
                       OpAttrs("full", {{"shape", Ints(t->shape())},
                                        {"dtype", AttrValue::Str(t->dtype().ToString())}}));
  });
}

// reshape_like(data, like) -> reshape(data, newshape=<result shape>)
RewriteRule ConcretizeReshapeLike() {
  return ConcretizeRule("reshape_like", [](IRBuilder& b, const Call* call, const TensorType* t) {
    return TypedOpCall(b, "reshape", {call->args()[0]},
                       OpAttrs("reshape", {{"newshape", Ints(t->shape())}}));
  });
}

// collapse_sum_like(data, like) -> collapse_sum_to(data, <shape as an int32
// constant>, shape=<result shape>), the form TVM builds.
RewriteRule ConcretizeCollapseSumLike() {
  return ConcretizeRule(
      "collapse_sum_like", [](IRBuilder& b, const Call* call, const TensorType* t) {
        const int64_t rank = static_cast<int64_t>(t->rank());
        NDArray shape = NDArray::Empty(DataType::Int(32), {rank});
        for (int64_t i = 0; i < rank; ++i) shape.SetFromDouble(i, double(t->shape()[i].value));
        const Constant* c = b.MakeConstant(std::move(shape));
        c->set_checked_type(TensorTy(DataType::Int(32), {rank}));
        return TypedOpCall(b, "collapse_sum_to", {call->args()[0], c},
                           OpAttrs("collapse_sum_to", {{"shape", Ints(t->shape())}}));
      });
}

// broadcast_to_like(data, like) -> broadcast_to(data, shape=<result shape>)
RewriteRule ConcretizeBroadcastToLike() {
  return ConcretizeRule(
      "broadcast_to_like", [](IRBuilder& b, const Call* call, const TensorType* t) {
        return TypedOpCall(b, "broadcast_to", {call->args()[0]},
                           OpAttrs("broadcast_to", {{"shape", Ints(t->shape())}}));
      });
}

// cast_like(data, like) -> cast(data, dtype(like)), whatever the shapes
// (TVM's ConcretizeCastLikeRewrite needs no static shape).
RewriteRule ConcretizeCastLike() {
  return RewriteRule{
      "Concretize:cast_like", IsOp("cast_like")(Capture("data"), Wildcard()),
      [](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
        const TensorType* t = TensorTypeOf(ctx.pre());
        if (t == nullptr) return ctx.post();
        return TypedOpCall(ctx.builder(), "cast", {ctx.Capture("data")},
                           OpAttrs("cast", {{"dtype", AttrValue::Str(t->dtype().ToString())}}));
      }};
}

}  // namespace carve::simplify
