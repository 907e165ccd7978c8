// IR helpers the bindings share.
#pragma once

#include <vector>

#include "handles.h"

namespace carve::python {

// The variables of `expr` in TVM's order (first use; a binder at its let,
// function or match): every one, those bound inside `expr`, and the free ones.
struct ExprVars {
  std::vector<const Var*> all;
  std::vector<const Var*> bound;
  std::vector<const Var*> free;
};
ExprVars VarsOf(const Expr* expr);
// TVM's IRModule.from_expr: a Function becomes @main; another expression
// becomes the body of @main with its free variables as parameters.
Module ModuleFromExpr(const ExprHandle& expr);
// Moves a module onto the build arena (keeping its old arena alive), so that
// functions built from Python can be added to it.
void RebaseOntoBuildArena(ModuleHandle& handle);

}  // namespace carve::python
