// TVM's ToANormalForm: every non-atomic expression (call, tuple, projection,
// constant, if, match, reference op, local function) is bound by a `let` to
// a variable of its own, once, so that evaluation order is explicit; the
// inverse of ToGraphNormalForm. An expression is bound in the innermost
// scope (function body, if branch, match clause, let body) that holds all
// its uses, as TVM's dependency-graph scopes place it, and bindings come in
// TVM's order (operands before their user, arguments before the callee), so
// the printed module is TVM's. Fresh variables are named `x` (printed %x,
// %x1, ...) and have no type annotation, as TVM's Var::GenSym.
#pragma once

#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

// `fn` in A-normal form. Types are not set: re-type the module.
const Function* ToANormalFormFunction(const Function* fn, Arena* arena);

// The pass `ToANormalForm` (every global function but Compiler functions,
// as TVM's; re-types).
PassPtr ToANormalForm();

}  // namespace carve
