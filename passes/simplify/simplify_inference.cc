// SimplifyInference: batch_norm / layer_norm / instance_norm unpacked into
// arithmetic and dropout removed, node for node as TVM's pass builds them
// (operand order and constants matter: the printed result is compared with
// TVM's).
#include "passes/simplify/simplify_inference.h"

#include <vector>

#include "ir/op_rules.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve {
namespace {

class InferenceSimplifier : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    if (const auto* item = DynCast<TupleGetItem>(post)) {
      return RewriteItem(Cast<TupleGetItem>(e)->tuple(), item, post);
    }
    if (const auto* call = DynCast<Call>(post)) {
      const TensorType* data_type =
          TensorTypeOf(Cast<Call>(e)->args().empty() ? nullptr : Cast<Call>(e)->args()[0]);
      if (data_type == nullptr) return post;
      SimplifyRule rule = SimplifyRuleOf(call);
      if (rule == SimplifyRule::kLayerNorm) return LayerNorm(call, data_type);
      if (rule == SimplifyRule::kInstanceNorm) return InstanceNorm(call, data_type);
    }
    return post;
  }

 private:
  // The span of the call being unpacked: the ops it becomes keep it, so the
  // placement record (passes/byoc/placement_record.h) and `carve why` can
  // trace them back to the node the user wrote.
  Span span_;

  // Only field 0 (the normalised value) has an arithmetic form; `.1`/`.2` of
  // a batch_norm (running statistics) keep the call alive.
  // `original_tuple` is the projected expression before mutation: the data
  // type comes from there (TVM's ty_map_), since a rebuilt operand is untyped.
  const Expr* RewriteItem(const Expr* original_tuple, const TupleGetItem* item, const Expr* post) {
    if (item->index() != 0) return post;
    SimplifyRule rule = SimplifyRuleOf(item->tuple());
    if (rule == SimplifyRule::kDropout) return Cast<Call>(item->tuple())->args()[0];
    if (rule != SimplifyRule::kBatchNorm) return post;
    const Call* bn = Cast<Call>(item->tuple());
    const auto* original = DynCast<Call>(original_tuple);
    if (original == nullptr || original->args().size() != 5) return post;
    const TensorType* data_type = TensorTypeOf(original->args()[0]);
    if (data_type == nullptr) return post;
    return BatchNorm(bn, data_type);
  }

  const Call* Op(std::string_view name, std::initializer_list<const Expr*> args,
                 const Attrs* attrs = nullptr) {
    return MakeOpCall(builder(), name, args, attrs, span_);
  }

  const Expr* ExpandToAxis(const Expr* bias, int64_t ndim, int64_t axis) {
    return ExpandBiasToMatchAxis(builder(), bias, ndim, axis, span_);
  }

  static int64_t NormalizeAxis(int64_t axis, int64_t ndim) { return axis < 0 ? axis + ndim : axis; }

  // The epsilon scalar: TVM narrows the double attribute to float first.
  const Expr* Epsilon(DataType dtype, const Attrs* attrs) {
    return builder().MakeScalar(dtype, static_cast<float>(attrs->GetFloat("epsilon", 1e-5)));
  }

  const Expr* BatchNorm(const Call* bn, const TensorType* data_type) {
    span_ = bn->span();
    const Attrs* attrs = bn->attrs();
    auto args = bn->args();
    const Expr* var_add_eps = Op("add", {args[4], Epsilon(data_type->dtype(), attrs)});
    const Expr* scale =
        Op("divide", {builder().MakeScalar(data_type->dtype(), 1.0), Op("sqrt", {var_add_eps})});
    if (attrs->GetInt("scale", 1) != 0) scale = Op("multiply", {scale, args[1]});
    const Expr* shift = Op("multiply", {Op("negative", {args[3]}), scale});
    if (attrs->GetInt("center", 1) != 0) shift = Op("add", {shift, args[2]});
    int64_t ndim = static_cast<int64_t>(data_type->rank());
    int64_t axis = NormalizeAxis(attrs->GetInt("axis", 1), ndim);
    scale = ExpandToAxis(scale, ndim, axis);
    shift = ExpandToAxis(shift, ndim, axis);
    return Op("add", {Op("multiply", {args[0], scale}), shift});
  }

  // (data - mean) / sqrt(variance + eps) over `axes`, keepdims.
  const Expr* Normalize(const Expr* data, std::vector<int64_t> axes, const Expr* epsilon) {
    std::vector<AttrValue> items;
    for (int64_t a : axes) items.push_back(AttrValue::Int(a));
    AttrValue axis_value = AttrValue::Array(items);
    const Attrs* mean_attrs = WithField(DefaultAttrs(FindOp("mean")->attrs), "axis", axis_value);
    mean_attrs = WithField(mean_attrs, "keepdims", AttrValue::Bool(true));
    const Attrs* var_attrs = WithField(DefaultAttrs(FindOp("variance")->attrs), "axis", axis_value);
    var_attrs = WithField(var_attrs, "keepdims", AttrValue::Bool(true));
    const Expr* mean = Op("mean", {data}, mean_attrs);
    const Expr* var = Op("variance", {data, mean}, var_attrs);
    const Expr* denom = Op("sqrt", {Op("add", {var, epsilon})});
    return Op("divide", {Op("subtract", {data, mean}), denom});
  }

  // Shared tail of layer_norm and instance_norm: scale by gamma, shift by
  // beta, each broadcast to `axis`.
  const Expr* ScaleAndCenter(const Call* call, const Expr* out, int64_t ndim, int64_t axis) {
    if (call->attrs()->GetInt("scale", 1) != 0) {
      out = Op("multiply", {out, ExpandToAxis(call->args()[1], ndim, axis)});
    }
    if (call->attrs()->GetInt("center", 1) != 0) {
      out = Op("add", {out, ExpandToAxis(call->args()[2], ndim, axis)});
    }
    return out;
  }

  const Expr* LayerNorm(const Call* call, const TensorType* data_type) {
    span_ = call->span();
    int64_t ndim = static_cast<int64_t>(data_type->rank());
    int64_t written_axis = call->attrs()->GetInt("axis", -1);
    // TVM reduces over the axis as written (possibly negative).
    const Expr* out =
        Normalize(call->args()[0], {written_axis}, Epsilon(data_type->dtype(), call->attrs()));
    return ScaleAndCenter(call, out, ndim, NormalizeAxis(written_axis, ndim));
  }

  const Expr* InstanceNorm(const Call* call, const TensorType* data_type) {
    span_ = call->span();
    int64_t ndim = static_cast<int64_t>(data_type->rank());
    int64_t axis = NormalizeAxis(call->attrs()->GetInt("axis", 1), ndim);
    std::vector<int64_t> reduced;
    for (int64_t i = 1; i < ndim; ++i) {
      if (i != axis) reduced.push_back(i);
    }
    const Expr* out =
        Normalize(call->args()[0], reduced, Epsilon(data_type->dtype(), call->attrs()));
    return ScaleAndCenter(call, out, ndim, axis);
  }
};

}  // namespace

absl::StatusOr<const Function*> SimplifyInferenceFunction(const Function* fn, Arena* arena) {
  InferenceSimplifier simplifier(arena);
  return Cast<Function>(simplifier.Mutate(fn));
}

PassPtr SimplifyInference() {
  return MakeFunctionPass(
      "SimplifyInference", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return SimplifyInferenceFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
