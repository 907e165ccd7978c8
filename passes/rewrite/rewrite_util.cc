#include "passes/rewrite/rewrite_util.h"

namespace carve {

const TensorType* TensorTypeOf(const Expr* e) {
  return e == nullptr ? nullptr : DynCast<TensorType>(e->checked_type());
}

const Attrs* OpAttrs(std::string_view op, std::initializer_list<AttrEntry> fields) {
  const Attrs* attrs = DefaultAttrs(FindOp(op)->attrs);
  for (const AttrEntry& f : fields) attrs = WithField(attrs, f.key, f.value);
  return attrs;
}

const Call* MakeOpCall(IRBuilder& builder, std::string_view op,
                       std::initializer_list<const Expr*> args, const Attrs* attrs, Span span) {
  return builder.MakeCall(GetOp(op), args, attrs, span);
}

const Expr* ExpandBiasToMatchAxis(IRBuilder& builder, const Expr* bias, int64_t ndim,
                                  int64_t axis, Span span) {
  int64_t pad = ndim - axis - 1;
  if (pad <= 0) return bias;
  return MakeOpCall(
      builder, "expand_dims", {bias},
      OpAttrs("expand_dims", {{"axis", AttrValue::Int(1)}, {"num_newaxis", AttrValue::Int(pad)}}),
      span);
}

const Expr* TypedMutator::RebuildTyped(const Expr* e) {
  const Expr* out = Rebuild(e);
  if (out != e && out->checked_type() == nullptr) out->set_checked_type(e->checked_type());
  return out;
}

const Expr* TypedMutator::RewrapLetChain(const std::vector<KeptLet>& kept, const Expr* body) {
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    const Let* l = it->first;
    if (it->second == l->value() && body == l->body()) {
      body = l;
      continue;
    }
    const Let* rebuilt = builder().MakeLet(l->var(), it->second, body, l->span());
    rebuilt->set_checked_type(l->checked_type());
    body = rebuilt;
  }
  return body;
}

}  // namespace carve
