// Structural equality of expressions and modules modulo variable names (TVM's
// `tvm.ir.structural_equal` with map_free_vars=true), with a first-difference
// report for tests and `carve equal`.
//
// Semantics, following TVM v0.16 (src/node/structural_equal.cc and the
// SEqualReduce methods of the Relay nodes):
//   - Variables are equal when they correspond: a binding site (function
//     parameter, let variable) maps its lhs var to its rhs var, and every later
//     use must respect that mapping; free variables are mapped on first
//     encounter. The mapping is a bijection, so `fn (%x, %y) { %x }` and
//     `fn (%a, %b) { %b }` differ.
//   - Globals compare by name, operators by identity, constants by dtype,
//     shape and bytes, call attributes entry by entry (AttrValue equality,
//     floats within 1e-9), function attributes as a dictionary (order-free).
//   - Types (variable annotations, function return types) compare by pointer
//     (types are interned); `_` equals `_`, type variables correspond through
//     the enclosing function's type parameters. `checked_type` is ignored.
//   - DAG sharing is significant, as in TVM: calls, non-empty tuples, lets,
//     ifs, functions and variables are "graph nodes", and the correspondence of
//     graph nodes is a bijection. So `%0 = f(%x); g(%0, %0)` and
//     `g(f(%x), f(%x))` differ (one node on the left would have to map to two
//     on the right). Constants, projections and `()` are values: sharing them
//     or not makes no difference.
//
// Comparison is iterative (a million-node chain is fine) and linear: every
// graph-node pair is compared once, value pairs are memoized.
#pragma once

#include <optional>
#include <string>

#include "ir/expr.h"
#include "ir/module.h"
#include "support/source.h"

namespace carve {

struct EqualOptions {
  // Ignore variable type annotations, function return types and function type
  // parameters (compare the computations only).
  bool ignore_types = false;
};

// Where and why two structures first differ. Paths name the route from the
// root: `@main.body.args[1].attrs.padding`, `@main.params[0].type`,
// `<root>.value.fields[2]` for expressions compared without a module. Very
// deep paths elide their middle segments.
struct StructuralDiff {
  std::string lhs_path;
  std::string rhs_path;
  std::string message;  // e.g. "attribute padding differs: [1, 1] vs [0, 0]"
  Span lhs_span;        // the innermost differing nodes (may be invalid)
  Span rhs_span;
};

// The first difference between two expressions; nullopt when they are equal.
std::optional<StructuralDiff> StructuralDiffExprs(const Expr* a, const Expr* b,
                                                  const EqualOptions& options = {});

// The first difference between two modules: the set of defined global names
// first (the first name, in sorted order, defined on one side only), then each
// function, in name order.
std::optional<StructuralDiff> StructuralDiffModules(const Module& a, const Module& b,
                                                    const EqualOptions& options = {});

// True when the expressions are equal modulo variable names.
bool StructuralEqual(const Expr* a, const Expr* b, const EqualOptions& options = {});

// True when the modules are equal (see StructuralDiffModules).
bool StructuralEqual(const Module& a, const Module& b, const EqualOptions& options = {});

}  // namespace carve
