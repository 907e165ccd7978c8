#include "passes/rewrite_util.h"

namespace carve {

const Expr* TypedMutator::RebuildTyped(const Expr* e) {
  const Expr* out = Rebuild(e);
  if (out != e && out->checked_type() == nullptr) out->set_checked_type(e->checked_type());
  return out;
}

}  // namespace carve
