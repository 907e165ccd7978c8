// IR helpers the bindings share.
#pragma once

#include <vector>

#include "handles.h"

namespace carve::python {

// The free variables of `expr` in order of first use (post order).
std::vector<const Var*> FreeVars(const Expr* expr);
// TVM's IRModule.from_expr: a Function becomes @main; another expression
// becomes the body of @main with its free variables as parameters.
Module ModuleFromExpr(const ExprHandle& expr);
// Moves a module onto the build arena (keeping its old arena alive), so that
// functions built from Python can be added to it.
void RebaseOntoBuildArena(ModuleHandle& handle);

}  // namespace carve::python
