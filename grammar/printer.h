// The Relay text printer: TVM v0.16's `astext()` output, byte for byte
// wherever carve's IR holds the same information.
//
// Output is in graph normal form exactly as TVM's RelayTextPrinter writes it:
// atoms (vars, globals, constants, ops) are always inlined; every other node
// is bound to `%N = ...;` unless it is the single-use tail of a scope (or a
// single-use let value); `%N` numbers run across the whole print in the order
// TVM allocates them. Differences from TVM, all for text that re-parses:
//  - by default `annotation.compiler_begin/end` attributes print inline
//    (`compiler="dnnl"`) instead of as `meta[relay.attrs.CompilerAttrs][i]`
//    (PrintOptions::meta_attrs selects TVM's form, and so does a module
//    whose text wrote them that way: Module::meta_compiler_attrs);
//  - variable and global names are restricted to characters carve's parser
//    reads (others become `_`);
//  - a node shared between two global functions, or a Var bound twice, is
//    printed again / renamed instead of referring to an out-of-scope name.
//
// Printing is iterative: a million-node chain (calls, lets, or nested
// functions and ifs) prints without deep C++ recursion.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "ir/expr.h"
#include "ir/module.h"
#include "ir/type.h"

namespace carve {

struct PrintOptions {
  // Append TVM's `/* ty=... */` comment (from Expr::checked_type()) after
  // calls, vars, constants, tuples, projections and function literals.
  bool show_types = false;
  // Write the `#[metadata]` section holding the tensors referenced as
  // `meta[relay.Constant][i]`; when false, TVM's "metadata section has been
  // omitted" comment takes its place.
  bool show_metadata = true;
  // Start with `#[version = "0.0.5"]`.
  bool header = true;
  // Print the attributes of `annotation.compiler_begin/end` calls as TVM
  // does: `meta[relay.attrs.CompilerAttrs][i]` (one index per call, numbered
  // when the call's text is built, as TVM's GetMetaNode), with each object
  // listed in the `#[metadata]` section. When false they print inline
  // (`compiler="dnnl"`). Like TVM (whose PrintCallAttrs uses meta references
  // only with show_meta_data), ignored when show_metadata is false.
  bool meta_attrs = false;
};

// The whole module: functions sorted by name, separated by a blank line.
std::string PrintModule(const Module& mod, const PrintOptions& options = {});

// PrintModule's text in pieces of about `chunk` bytes (the last may be
// shorter), each passed to `write` as it is rendered, so that the whole text
// is never held in memory: each line of a definition's body is rendered as
// soon as it is finished. The pieces joined are PrintModule's text.
void PrintModuleTo(const Module& mod, const PrintOptions& options,
                   const std::function<void(std::string_view)>& write,
                   size_t chunk = size_t{1} << 20);

// One expression (TVM's `expr.astext()`): `free_var %x: T;` lines declare the
// free variables, then the expression in graph normal form. No trailing
// newline after the expression (as TVM).
std::string PrintExpr(const Expr* expr, const PrintOptions& options = {});

// A type in Relay syntax (`Tensor[(1, 3), float32]`, `(T1, T2)`, ...).
std::string PrintType(const Type* type);

}  // namespace carve
