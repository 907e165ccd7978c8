// Typing of references, as TVM v0.16's type_infer.cc has it: `ref(v)` has
// type ref(T) for v: T; `ref_read(r)` unifies r's type with ref(_) and has
// the cell's type; `ref_write(r, v)` unifies r's type with ref(T) and v's
// with T, and has type `()`.
#include "fmt/format.h"
#include "passes/infer/infer_expr.h"

namespace carve {

const Type* ExprTyper::TypeRefRead(const RefRead* e) {
  const Type* ref = TypeOf(e->ref());
  if (unifier_.Shallow(ref) == TypeUnifier::Poison()) return ref;  // reported already
  const IncompleteType* cell = unifier_.NewHole();
  if (unifier_.Unify(ref, RefTy(cell)) == nullptr) {
    return Error(e->span(),
                 fmt::format("ref_read: the operand must be a reference, got {}", Show(ref)));
  }
  return cell;
}

const Type* ExprTyper::TypeRefWrite(const RefWrite* e) {
  const Type* ref = TypeOf(e->ref());
  const IncompleteType* cell = unifier_.NewHole();
  if (unifier_.Shallow(ref) == TypeUnifier::Poison()) {
    unifier_.Unify(cell, TypeOf(e->value()));
  } else if (unifier_.Unify(ref, RefTy(cell)) == nullptr) {
    Error(e->span(),
          fmt::format("ref_write: the first operand must be a reference, got {}", Show(ref)));
  } else if (const Type* value = TypeOf(e->value()); unifier_.Unify(cell, value) == nullptr) {
    Error(e->span(), fmt::format("ref_write: the cell holds {} but the value has type {}",
                                 Show(cell), Show(value)));
  }
  return TupleTy({});
}

}  // namespace carve
