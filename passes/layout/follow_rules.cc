// The rules of ops whose result follows an input's layout with at most a
// layout attribute rewritten: unary elementwise ops (TVM's
// ElemwiseArbitraryLayout), numpy-style broadcasts (BinaryBroadcastLayout)
// and the ops with a `layout` attribute (PoolInferCorrectLayout,
// ResizeInferCorrectLayout).
#include "ir/layout.h"
#include "ir/op_rules.h"
#include "passes/layout/layout_names.h"
#include "passes/layout/layout_rewriter.h"

namespace carve::layout {

const Expr* LayoutRewriter::AdaptElemwise(const Call* call) {
  const Alt* alt = FindAlt(call->args()[0]);
  if (alt == nullptr) return nullptr;
  Alt copy = *alt;
  return RemakeUnary(call, call->attrs(), copy.old_layout, copy.new_layout);
}

// A pool (or image.resize2d) without out_layout whose `layout` is its
// input's old layout takes the input's new layout. A pool also takes a
// blocked one (PoolInferCorrectLayout takes any); a resize does not (TVM's
// ResizeInferCorrectLayout follows only a layout of as many axes; the
// resizes are the ops of this rule with a `method`).
const Expr* LayoutRewriter::AdaptPool(const Call* call) {
  const Alt* alt = FindAlt(call->args()[0]);
  if (alt == nullptr || call->attrs() == nullptr) return nullptr;
  std::string layout = AttrOrDefault(call, "layout");
  bool resize = DefaultAttrs(call->op()->attrs)->Find("method") != nullptr;
  bool follows = IsPlainLayout(alt->new_layout, layout.size()) ||
                 (!resize && IsBlocked(alt->new_layout) &&
                  BijectiveLayout::Make(layout, alt->new_layout).ok());
  if (!AttrOrDefault(call, "out_layout").empty() || layout != alt->old_layout || !follows) {
    return nullptr;
  }
  Alt copy = *alt;
  const Attrs* attrs = WithField(call->attrs(), "layout", AttrValue::Str(copy.new_layout));
  return RemakeUnary(call, attrs, layout, copy.new_layout);
}

// TVM's BinaryBroadcastLayout with the rewriter's transforms, on inputs
// 0 and 1 (a qnn op's other inputs are read as they are). An operand
// without a defined layout takes the other's trailing axes; the result
// takes the new layout of the operand with more primal axes, and the other
// operand is renamed like it (TryTransformLike), its sub-axis factors set
// to 1 where it has extent 1 (AdjustSubordinateFactors), expanded with
// expand_dims and transformed to that.
const Expr* LayoutRewriter::AdaptBroadcast(const Call* call) {
  const Expr* a[2] = {call->args()[0], call->args()[1]};
  std::optional<Alt> lay[2] = {FindLayout(a[0]), FindLayout(a[1])};
  if (!lay[0].has_value() && !lay[1].has_value()) return nullptr;
  const TensorType* type[2];
  std::string old_l[2], now[2];
  const Alt known = lay[0].has_value() ? *lay[0] : *lay[1];
  for (int i = 0; i < 2; ++i) {
    type[i] = DynCast<TensorType>(a[i]->checked_type());
    if (type[i] == nullptr) return nullptr;
    if (lay[i].has_value()) {
      old_l[i] = lay[i]->old_layout;
      now[i] = lay[i]->new_layout;
      continue;
    }
    if (type[i]->rank() > known.old_layout.size()) return nullptr;
    old_l[i] = now[i] = Suffix(known.old_layout, type[i]->rank());
  }
  int large = PrimalCount(now[0]) >= PrimalCount(now[1]) ? 0 : 1;
  int old_large = old_l[0].size() >= old_l[1].size() ? 0 : 1;
  int small = 1 - large;
  if (old_l[small].size() > old_l[large].size()) return nullptr;
  std::string ret = now[old_large];
  std::string target = AdjustSubordinateFactors(
      TryTransformLike(old_l[small], old_l[large], now[large]), old_l[small], type[small]->shape());
  std::vector<const Expr*> args(2);
  args[large] = Mutated(a[large]);
  args[small] = TransformBroadcastOperand(Mutated(a[small]), type[small], now[small], target);
  std::string old_out = old_l[old_large];
  if (args[small] == Mutated(a[small]) && ret == old_out) {
    // Nothing moves: the call is rebuilt as it is, its layout defined.
    if (IsPlainLayout(ret, RankOf(call))) known_[call] = ret;
    return nullptr;
  }
  AppendRealized(call, 2, args);
  return Record(call, Remake(call, args, call->attrs(), old_out, ret), old_out, ret);
}

}  // namespace carve::layout
