#include "passes/type_annotations.h"

#include <vector>

#include "ir/visit.h"
#include "passes/infer_type.h"
#include "passes/rewrite_util.h"
#include "support/status_macros.h"

namespace carve {
namespace {

bool NeedsAnnotation(const Expr* e) {
  if (const Var* v = DynCast<Var>(e)) {
    return v->annotation() == nullptr && v->checked_type() != nullptr;
  }
  if (const Function* fn = DynCast<Function>(e)) {
    return fn->ret_type() == nullptr && fn->body()->checked_type() != nullptr;
  }
  return false;
}

class Annotator : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    if (const Var* v = DynCast<Var>(e); v != nullptr && NeedsAnnotation(v)) {
      const Var* annotated = builder().MakeVar(v->name(), v->checked_type(), v->span());
      annotated->set_checked_type(v->checked_type());
      return annotated;
    }
    const Expr* post = RebuildTyped(e);
    const Function* fn = DynCast<Function>(post);
    if (fn == nullptr || !NeedsAnnotation(fn)) return post;
    const Function* typed =
        builder().MakeFunction(fn->params(), fn->body(), fn->body()->checked_type(), fn->attrs(),
                               fn->type_params(), fn->span());
    typed->set_checked_type(e->checked_type());
    return typed;
  }
};

// True when some node of `fn` lacks an annotation TVM would fill.
bool AnyMissing(const Function* fn) {
  bool missing = false;
  PostOrderVisit(fn, [&](const Expr* e) { missing = missing || NeedsAnnotation(e); });
  return missing;
}

}  // namespace

absl::StatusOr<bool> FillMissingTypeAnnotations(Module& mod) {
  bool changed = false;
  for (const auto& [gv, fn] : mod.Functions()) {
    if (!AnyMissing(fn)) continue;
    Annotator annotator(mod.arena());
    const Expr* out = annotator.Mutate(fn);
    if (out == fn) continue;
    mod.Add(gv, Cast<Function>(out));
    changed = true;
  }
  return changed;
}

absl::StatusOr<bool> InferTypeAndAnnotate(Module& mod) {
  CARVE_RETURN_IF_ERROR(InferType(mod));
  return FillMissingTypeAnnotations(mod);
}

}  // namespace carve
