// CanonicalizeOps: bias_add -> add(x, expand_dims(bias)), as TVM's
// canonicalize_ops.cc (ExpandBiasToMatchAxis).
#include "passes/simplify/cleanup_passes.h"

#include <vector>
#include "ir/op_rules.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve {
namespace {

class BiasAddCanonicalizer : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    if (SimplifyRuleOf(e) != SimplifyRule::kBiasAdd) return post;
    const Call* call = Cast<Call>(post);
    const auto* data_type = DynCast<TensorType>(Cast<Call>(e)->args()[0]->checked_type());
    if (data_type == nullptr) return post;  // untyped: leave it
    int64_t rank = static_cast<int64_t>(data_type->rank());
    int64_t axis = call->attrs()->GetInt("axis", 1);
    if (axis < 0) axis += rank;
    const Expr* bias = call->args()[1];
    int64_t pad = rank - axis - 1;
    if (pad > 0) {
      const Expr* expanded = ExpandBiasToMatchAxis(builder(), bias, rank, axis, call->span());
      // Typed here so that a pass running right after (ConvertLayout) reads
      // the bias rank without a re-inference.
      if (const auto* bias_type = DynCast<TensorType>(bias->checked_type())) {
        std::vector<Dim> shape(bias_type->shape().begin(), bias_type->shape().end());
        shape.insert(shape.end(), static_cast<size_t>(pad), Dim{1, false});
        expanded->set_checked_type(TensorTy(bias_type->dtype(), shape));
      }
      bias = expanded;
    }
    const Call* add = builder().MakeCall(GetOp("add"), {call->args()[0], bias}, nullptr,
                                         call->span());
    add->set_checked_type(e->checked_type());
    return add;
  }
};

}  // namespace

absl::StatusOr<const Function*> CanonicalizeOpsFunction(const Function* fn, Arena* arena) {
  BiasAddCanonicalizer canonicalizer(arena);
  return Cast<Function>(canonicalizer.Mutate(fn));
}

PassPtr CanonicalizeOps() {
  return MakeFunctionPass(
      "CanonicalizeOps", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return CanonicalizeOpsFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
