#include "passes/rewrite_util.h"

namespace carve {

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
