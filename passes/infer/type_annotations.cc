#include "passes/infer/type_annotations.h"

#include <vector>

#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "passes/rewrite/rewrite_util.h"
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
    if (const Var* v = DynCast<Var>(e); v != nullptr && NeedsAnnotation(v)) return AnnotatedVar(v);
    const Expr* post = RebuildTyped(e);
    if (Isa<Match>(e)) return AnnotatePatterns(Cast<Match>(post));
    const Function* fn = DynCast<Function>(post);
    if (fn == nullptr || !NeedsAnnotation(fn)) return post;
    const Function* typed =
        builder().MakeFunction(fn->params(), fn->body(), fn->body()->checked_type(), fn->attrs(),
                               fn->type_params(), fn->span(), fn->virtual_device());
    typed->set_checked_type(e->checked_type());
    return typed;
  }

 private:
  const Var* AnnotatedVar(const Var* v) {
    const Var* annotated = builder().MakeVarLike(v, v->checked_type());
    annotated->set_checked_type(v->checked_type());
    return annotated;
  }

  // The variables a match binds get their types as TVM's InferType gives
  // them; they are the same nodes as their (rewritten) uses in the clauses.
  const Expr* AnnotatePatterns(const Match* match) {
    bool changed = false;
    std::vector<Clause> clauses(match->clauses().begin(), match->clauses().end());
    for (Clause& clause : clauses) {
      const AdtPattern* lhs = AnnotatePattern(clause.lhs);
      changed = changed || lhs != clause.lhs;
      clause.lhs = lhs;
    }
    if (!changed) return match;
    const Match* out =
        MakeMatch(builder().arena(), match->data(), clauses, match->complete(), match->span());
    out->set_checked_type(match->checked_type());
    return out;
  }

  const AdtPattern* AnnotatePattern(const AdtPattern* pattern) {
    if (pattern->kind() == AdtPattern::Kind::kVar) {
      const Var* v = pattern->var();
      const Expr* used = Mutated(v);  // the annotated node the clause reads
      const Var* out = used != v ? Cast<Var>(used) : NeedsAnnotation(v) ? AnnotatedVar(v) : v;
      return out == v ? pattern : MakePattern(builder().arena(), AdtPattern::Bind(out));
    }
    std::vector<const AdtPattern*> fields;
    bool changed = false;
    for (const AdtPattern* f : pattern->fields()) {
      fields.push_back(AnnotatePattern(f));
      changed = changed || fields.back() != f;
    }
    if (!changed) return pattern;
    return MakePattern(builder().arena(), pattern->kind() == AdtPattern::Kind::kTuple
                                              ? AdtPattern::TupleOf(fields)
                                              : AdtPattern::Of(pattern->constructor(), fields));
  }
};

struct Scan {
  bool untyped = false;         // some node has no checked type
  bool missing = false;         // some annotation TVM would fill is missing
  bool missing_inside = false;  // ... other than the function's own return type
};

Scan ScanFunction(const Function* fn) {
  Scan scan;
  PostOrderVisit(fn, [&scan, fn](const Expr* e) {
    if (e->checked_type() == nullptr) {
      scan.untyped = scan.untyped || (!Isa<OpExpr>(e) && !Isa<GlobalVar>(e));
      return;
    }
    bool missing = NeedsAnnotation(e);
    if (const Match* match = DynCast<Match>(e)) {  // the variables it binds
      for (const Clause& clause : match->clauses()) {
        ForEachPatternVar(clause.lhs, [&missing](const Var* v) { missing |= NeedsAnnotation(v); });
      }
    }
    if (missing) {
      scan.missing = true;
      scan.missing_inside = scan.missing_inside || e != fn;
    }
  });
  return scan;
}

// ScanFunction's result for a typed function whose nodes below it all have
// their annotations (`untyped` is not known, and left false).
Scan ScanOwnReturnType(const Function* fn) {
  Scan scan;
  scan.missing = NeedsAnnotation(fn);
  return scan;
}

// Writes the missing annotations of `fn` (bound to `gv`); true when any was.
// A function that lacks only its return type (the common case of a
// hand-written @main) gets a new function node over the same body: no
// whole-body mutator, whose memo table would cost as much as the graph.
bool Annotate(Module& mod, const GlobalVar* gv, const Function* fn, const Scan& scan) {
  if (!scan.missing) return false;
  if (!scan.missing_inside) {
    const Function* typed = IRBuilder(mod.arena()).MakeFunction(
        fn->params(), fn->body(), fn->body()->checked_type(), fn->attrs(), fn->type_params(),
        fn->span(), fn->virtual_device());
    typed->set_checked_type(fn->checked_type());
    mod.Add(gv, typed);
    return true;
  }
  Annotator annotator(mod.arena());
  const Expr* out = annotator.Mutate(fn);
  if (out == fn) return false;
  mod.Add(gv, Cast<Function>(out));
  return true;
}

}  // namespace

absl::StatusOr<bool> FillMissingTypeAnnotations(Module& mod) {
  bool changed = false;
  for (const auto& [gv, fn] : mod.Functions()) changed |= Annotate(mod, gv, fn, ScanFunction(fn));
  return changed;
}

absl::StatusOr<bool> InferTypeAndAnnotate(Module& mod) {
  UnannotatedFunctions unannotated;
  CARVE_RETURN_IF_ERROR(InferType(mod, &unannotated));
  bool changed = false;
  for (const auto& [gv, fn] : mod.Functions()) {
    // The typer saw every node: where it met no unannotated one, only the
    // function's own return type can be missing, and no scan is needed.
    Scan scan = unannotated.contains(fn) ? ScanFunction(fn) : ScanOwnReturnType(fn);
    changed |= Annotate(mod, gv, fn, scan);
  }
  return changed;
}

absl::StatusOr<bool> RetypeIfNeeded(Module& mod) {
  bool untyped = false;
  std::vector<std::pair<const GlobalVar*, Scan>> scans;
  for (const auto& [gv, fn] : mod.Functions()) {
    scans.emplace_back(gv, ScanFunction(fn));
    untyped = untyped || scans.back().second.untyped;
  }
  if (untyped) return InferTypeAndAnnotate(mod);
  bool changed = false;
  for (const auto& [gv, scan] : scans) changed |= Annotate(mod, gv, mod.Lookup(gv->name()), scan);
  return changed;
}

}  // namespace carve
