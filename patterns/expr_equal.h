// Structural equality for `is_expr` patterns (TVM's StructuralEqual without
// free-variable mapping): variables match only themselves, globals by name,
// ops by identity, constants by dtype, shape and bytes, calls by callee,
// attributes and args. Iterative and linear in the size of the DAG.
#pragma once

#include "ir/expr.h"

namespace carve {

bool ExprStructurallyEqual(const Expr* a, const Expr* b);

}  // namespace carve
