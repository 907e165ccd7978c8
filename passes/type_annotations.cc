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

struct Scan {
  bool untyped = false;  // some node has no checked type
  bool missing = false;  // some annotation TVM would fill is missing
};

Scan ScanFunction(const Function* fn) {
  Scan scan;
  PostOrderVisit(fn, [&scan](const Expr* e) {
    if (e->checked_type() == nullptr) {
      scan.untyped = scan.untyped || (!Isa<OpExpr>(e) && !Isa<GlobalVar>(e));
      return;
    }
    scan.missing = scan.missing || NeedsAnnotation(e);
  });
  return scan;
}

bool AnyMissing(const Function* fn) { return ScanFunction(fn).missing; }

// Writes the missing annotations of `fn` (bound to `gv`); true when any was.
bool Annotate(Module& mod, const GlobalVar* gv, const Function* fn) {
  Annotator annotator(mod.arena());
  const Expr* out = annotator.Mutate(fn);
  if (out == fn) return false;
  mod.Add(gv, Cast<Function>(out));
  return true;
}

absl::StatusOr<bool> Fill(Module& mod, const std::vector<const GlobalVar*>& functions) {
  bool changed = false;
  for (const GlobalVar* gv : functions) changed |= Annotate(mod, gv, mod.Lookup(gv->name()));
  return changed;
}

}  // namespace

absl::StatusOr<bool> FillMissingTypeAnnotations(Module& mod) {
  bool changed = false;
  for (const auto& [gv, fn] : mod.Functions()) {
    if (AnyMissing(fn)) changed |= Annotate(mod, gv, fn);
  }
  return changed;
}

absl::StatusOr<bool> InferTypeAndAnnotate(Module& mod) {
  CARVE_RETURN_IF_ERROR(InferType(mod));
  return FillMissingTypeAnnotations(mod);
}

absl::StatusOr<bool> RetypeIfNeeded(Module& mod) {
  bool untyped = false;
  std::vector<const GlobalVar*> missing;
  for (const auto& [gv, fn] : mod.Functions()) {
    Scan scan = ScanFunction(fn);
    untyped = untyped || scan.untyped;
    if (scan.missing) missing.push_back(gv);
  }
  if (untyped) return InferTypeAndAnnotate(mod);
  return Fill(mod, missing);
}

}  // namespace carve
