// Short English descriptions of expressions and patterns for explanations
// ("expected a constant, got the variable %w"). Not the DSL printer (that is
// grammar/pattern_printer.h): these are one-line, lossy and human-oriented.
#pragma once

#include <string>

#include "ir/expr.h"
#include "patterns/pattern.h"

namespace carve {

// "a call of nn.relu", "the variable %w", "a constant of type float32 and
// shape (3, 3)", "a tuple of 2 fields", ...
std::string DescribeExpr(const Expr* e);

// "a call of nn.relu", "a constant", "any expression", "the operator add",
// "a variable named %x", ...
std::string DescribePattern(const PatternNode* p);

}  // namespace carve
