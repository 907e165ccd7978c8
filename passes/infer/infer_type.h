// InferType: TVM's type inference for Relay, filling the checked_type cache of
// every expression node.
//
// Semantics (TVM v0.16, src/relay/transforms/type_infer.cc):
//   - Variables take their annotation. Parameters without one (the composite
//     functions MergeComposite creates: `fn (%FunctionVar_0_0, ...)`) and
//     unannotated let-bound function literals get their types from how they
//     are called, through unification, wherever the call is.
//   - Op calls: arity check ("nn.conv2d expects 2 arguments, got 3"), then the
//     op's type relation; its failures read "<op>: <message>".
//   - Calls of globals use the callee's signature. All signatures are known
//     before any body is typed, so forward references and (mutual) recursion
//     work; a global without a full signature is typed from its body first, in
//     dependency order (recursive ones need a return type annotation).
//   - Let-bound function literals may call themselves through their variable.
//   - If: a bool scalar condition and branches of equal type. Let: the
//     annotation equals the value's type. Function: a declared return type
//     equals the body's type. Tuples, projections (index range checked).
//   - Functions with a `Compiler` attribute are typed like any other.
//
// Every node is typed once, iteratively (a million-node chain or let chain is
// fine), and a checked_type already present is overwritten. Errors carry the
// span of the offending node and both types in TVM's text; independent errors
// (one per function at least) are reported together.
#pragma once

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/module.h"

namespace carve {

// Types every function of `mod` and sets checked_type on all of their nodes
// (the module's structure is unchanged). InvalidArgument with all diagnostics
// when the module does not type-check; nodes whose type could not be inferred
// then have a null checked_type.
absl::Status InferType(Module& mod);

// The functions of a module in which a node below the function itself may
// lack an annotation that FillMissingTypeAnnotations writes: a variable
// without type, a function literal without return type.
using UnannotatedFunctions = absl::flat_hash_set<const Function*>;

// InferType that also adds such functions to `*unannotated` (when not
// null), so that filling annotations need not scan the others.
absl::Status InferType(Module& mod, UnannotatedFunctions* unannotated);

// Types one expression and sets checked_type on its nodes. Free variables
// need annotations. Globals are resolved in `mod` (their declared signatures,
// or the types a previous InferType(mod) gave them).
absl::StatusOr<const Type*> InferExprType(const Expr* e, const Module* mod = nullptr);

}  // namespace carve
