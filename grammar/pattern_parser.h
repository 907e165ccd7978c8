// The `.pat` pattern DSL (patterns.md section 2): patterns written in Relay's
// own expression syntax, parsed with the Relay lexer (grammar/lexer.h).
//
// File grammar (`x,*` = comma list; `?` optional):
//
//   file      := item*
//   item      := 'pattern' NAME '=' def ';'
//              | 'rule' NAME '=' def '=>' template ';'
//              | 'backend' NAME '{' member* '}'
//   member    := 'ops' OPNAME,+ ';'
//              | 'op' OPNAME (('where' | 'if') pred)? ';'  (`?` is the call)
//              | 'op' OPNAME '(' args ')' (('where' | 'if') pred)? ';'
//                                        (argument patterns; the predicate may
//                                         test their captures)
//              | 'composite' NAME '=' def ';'             (named BACKEND.NAME)
//   def       := alt ('where' pred)?
//   alt       := postfix ('|' postfix)*                   (ordered choice)
//   postfix   := primary ( '(' args ')'                   call, args pairwise
//                        | '?' '(' args ')'               optional call: a | callee(a, ...)
//                        | '.' INT | '.' '_'              projection, fixed / any index
//                        | 'as' '?' NAME                  capture
//                        | ':' constraint )*              type, dtype or shape
//   args      := '...' (',' attr)* | (def,* (',' attr)*)?   attr := KEY '=' value
//   primary   := '_' | '?' NAME | 'const' | 'var' ('(' STRING ')')?
//              | INT | FLOAT | 'True' | 'False'           scalar constant (is_expr)
//              | OPNAME | PATTERN_NAME                    op / earlier named pattern
//              | '(' ')' | '(' '...' ')' | '(' def ')' | '(' def ',' def,* ')'
//              | 'if' '(' def ')' '{' def '}' 'else' '{' def '}'
//              | 'let' postfix '=' def ';' alt
//              | 'fn' '(' ('...' | def,*) ')' '{' def '}'
//              | 'dominates' '(' def ',' def ',' def ')'
//              | 'has_attr' '(' def (',' attr)* ')'      op attr maps, function attrs
//   constraint:= 'Tensor' '[' '(' dim,* ')' ',' (DTYPE | '_') ']'   dim := INT | '_' | '?'
//              | DTYPE | '(' tuple type ')'
//   pred      := conj ('or' conj)* ; conj := neg ('and' neg)* ; neg := 'not' neg | cmp | '(' pred
//   ')' cmp       := term (('=='|'!='|'<'|'<='|'>'|'>=') term | 'in' '[' term,* ']')
//              | capture 'is' ('const'|'var'|'call'|'tuple'|'fn')
//   term      := capture '.' KEY | 'dtype' '(' capture ')' | 'rank' '(' capture ')'
//              | 'shape' '(' capture ')' ('[' INT ']')? | literal | WORD (a string)
//   capture   := '?' NAME | '?'
//   template  := Relay call syntax over captures: OPNAME '(' template,* (',' attr)* ')',
//                '?' NAME, literals, tuples, projections `t.0`
//
// Semantics: `?x` is a captured wildcard and a second `?x` is the same node
// (so it must bind the same expression); `p as ?x` captures p. A named
// pattern used twice is one shared node (TVM's sharing semantics). A pattern
// may refer to itself (a recursive pattern). Captures of referenced patterns
// are visible to `where` clauses and templates, but cannot be re-bound. `:
// Tensor[(1, _), float32]` with a `_` dim is a shape and a dtype constraint,
// without one an exact type; `: Tensor[(..), _]` a shape constraint only.
//
// Errors are `file:line:col` diagnostics (several per run, with recovery at
// `;` and `}`): unknown ops suggest the nearest one, unknown attributes of an
// op are rejected, and so are unbound captures in replacements.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "patterns/library.h"
#include "patterns/pattern.h"

namespace carve {

// Parses a whole `.pat` text. The text is registered with the global
// SourceManager as `source_name`.
absl::StatusOr<PatternLibrary> ParsePatternFile(std::string_view source_name, std::string text);

// Reads and parses a `.pat` file.
absl::StatusOr<PatternLibrary> LoadPatternFile(const std::string& path);

// Parses one pattern (a `def`: alternation with an optional where clause),
// e.g. the PATTERN argument of `carve match`. Named patterns of `library`
// (optional) may be referenced.
absl::StatusOr<Pattern> ParsePattern(std::string_view source_name, std::string text,
                                     const PatternLibrary* library = nullptr);

}  // namespace carve
