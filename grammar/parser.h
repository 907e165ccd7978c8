// The Relay text parser: TVM v0.16's text format (tvm-reference.md 1) to
// carve IR. Recursive descent over the streaming lexer (grammar/lexer.h),
// with TVM's operator precedence, scoping and literal rules, and carve's
// fixes (string escapes, dotted variable names, repeatable projections).
//
// References (`ref`, `ref_read`, `ref_write`) parse as in TVM. Not supported,
// rejected with a clear error: ADTs (`type`, `extern type`, `match`,
// constructors).
//
// Errors are collected, several per run (panic-mode recovery at `;`, `}` and
// the next `def`), and returned as one InvalidArgument status carrying every
// diagnostic with its span and notes (support/diagnostics.h). The parser never
// crashes, aborts or recurses without bound: nesting deeper than
// kMaxNestingDepth is an error, and let / `%N` chains, infix chains, call and
// projection chains are parsed iteratively.
//
// The parser builds IR only; it does not run type inference.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "support/source.h"

namespace carve {

struct ParseOptions {
  // Require the `#[version = "0.0.5"]` header (TVM's `relay.parse` does).
  bool require_version = true;
};

// Expressions, types and attribute values nested deeper than this are
// rejected ("expression nested too deeply").
inline constexpr int kMaxNestingDepth = 1000;

// Parses a module. The text is registered with SourceManager::Global() under
// `source_name`, and every node's span points into it.
//
// The text holds `def`s, or else one bare expression (as TVM's
// `mod["main"].astext()` prints): a `fn` literal becomes @main itself; any
// other expression becomes the body of a parameterless @main whose
// parameters are the expression's `free_var` declarations (a fn literal
// preceded by `free_var`s is wrapped the same way).
//
// `%N` graph bindings are DAG names (no Let node), valid from their binding
// to the end of the enclosing `def`; binding a number twice in one `def` is an
// error. A `meta[...]` reference needs the `#[metadata]` section at the end
// of the text.
absl::StatusOr<Module> ParseModule(std::string_view source_name, std::string text,
                                   const ParseOptions& options = {});
// The same on a text held as SourceText (e.g. a mapped file), which is kept
// as it is for diagnostics instead of being copied.
absl::StatusOr<Module> ParseModule(std::string_view source_name, SourceText text,
                                   const ParseOptions& options = {});

// Reads and parses a file; "-" reads standard input.
absl::StatusOr<Module> ParseModuleFile(const std::string& path);

// Parses one expression into `module`'s arena (as TVM's `parse_expr`): the
// version header is optional, free variables must be declared with
// `free_var`, `@name` refers to `module`'s functions, and no type inference
// runs. The module is not otherwise changed.
absl::StatusOr<const Expr*> ParseExpr(std::string_view source_name, std::string text,
                                      Module& module);

}  // namespace carve
