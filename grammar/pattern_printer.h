// Prints patterns, rewrite templates and whole pattern libraries in the `.pat`
// DSL (grammar/pattern_parser.h). The output parses back to equal patterns
// (PatternEqual, sharing included) for every pattern the DSL can express:
// captures print as `?x` / `p as ?x` at their first occurrence and `?x`
// after; an alternation `p | f(p, ...)` prints as the optional call
// `f?(p, ...)`; earlier named patterns print by name; a recursive reference
// prints as the name of the pattern it refers to.
//
// What the DSL cannot express is an error: `is_expr` of anything but a
// scalar constant, invalid patterns, and sub-patterns shared without a
// capture or a name (print them as named patterns first).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "patterns/library.h"
#include "patterns/pattern.h"
#include "patterns/template.h"

namespace carve {

// One pattern as a definition body (`nn.relu(?x) where rank(?x) == 4`).
// Recursive references to `p` itself print as `name`.
absl::StatusOr<std::string> PrintPattern(const Pattern& p, std::string_view name = "");

// A rewrite template (`nn.bias_add(?c, ?b)`).
std::string PrintTemplate(const Template& t);

// A whole library: patterns, rules, backends, in that order, one item per
// line (definitions keep their order within each kind).
absl::StatusOr<std::string> PrintPatternLibrary(const PatternLibrary& library);

}  // namespace carve
