// The local (non-recursive) parts of structural comparison: how two nodes'
// own fields (attributes, constant data) differ, and which nodes are graph
// nodes. Internal to ir/structural_equal.cc, split out to keep that file
// about the walk.
#ifndef CARVE_IR_STRUCTURAL_EQUAL_LOCAL_H_
#define CARVE_IR_STRUCTURAL_EQUAL_LOCAL_H_

#include <optional>
#include <string>

#include "ir/expr.h"

namespace carve::structural_equal_internal {

// Lowercase node-kind names for "expressions differ: a call vs a variable".
const char* KindName(ExprKind kind);

// TVM's graph nodes: their lhs/rhs correspondence is a bijection, which makes
// DAG sharing significant. Everything else is compared as a value.
bool IsGraphNode(const Expr* e);

// `%name` of a variable.
std::string VarName(const Expr* v);

// What a local comparison found: the path suffix below the node and a message.
struct LocalDiff {
  std::string suffix;
  std::string message;
};

// Call attributes (a schema instance, a dictionary or null) and function
// attributes (a dictionary). Null and the empty dictionary both mean "none".
std::optional<LocalDiff> AttrsDiff(const Attrs* a, const Attrs* b);

// dtype, then shape, then the first differing element.
std::optional<LocalDiff> ConstantDiff(const Constant* a, const Constant* b);

}  // namespace carve::structural_equal_internal

#endif  // CARVE_IR_STRUCTURAL_EQUAL_LOCAL_H_
