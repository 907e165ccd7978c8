// Short English descriptions of expressions and patterns for explanations
// ("expected a constant, got the variable %w"). Not the DSL printer (that is
// grammar/pattern_printer.h): these are one-line, lossy and human-oriented.
#pragma once

#include <functional>
#include <string>

#include "ir/expr.h"
#include "patterns/pattern.h"

namespace carve {

// "a call of nn.relu", "the variable %w", "a constant of type float32 and
// shape (3, 3)", "a tuple of 2 fields", ...
std::string DescribeExpr(const Expr* e);

// How messages refer to a node: a handle users can look up (`%12`, `%w`,
// as the printer names it) and optionally a role ("a parameter") that
// replaces the generic description of a variable. An empty handle means
// "no name": the node is described in words.
struct NodeRef {
  std::string handle;
  std::string role;
};
using NodeNamer = std::function<NodeRef(const Expr*)>;

// With a namer: "%w (a parameter)", "%12 (a call of add with 2 args)";
// without one, or for nodes it has no handle for, DescribeExpr(e).
std::string DescribeExpr(const Expr* e, const NodeNamer& namer);

// "a call of nn.relu", "a constant", "any expression", "the operator add",
// "a variable named %x", ...
std::string DescribePattern(const PatternNode* p);

}  // namespace carve
