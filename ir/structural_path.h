// Paths into an expression tree, as StructuralDiff reports them:
// `@main.body.args[1].attrs.padding`. A path is a list of steps from a root;
// each step names the field of a node that leads to a child.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace carve {

// The child fields of expression nodes, spelled as carve's accessors.
enum class PathField : uint8_t {
  kCallee,  // .callee
  kArg,     // .args[i]
  kField,   // .fields[i]
  kTuple,   // .tuple
  kVar,     // .var
  kValue,   // .value
  kBody,    // .body
  kCond,    // .cond
  kThen,    // .then_branch
  kElse,    // .else_branch
  kParam,   // .params[i]
  kRef,     // .ref (ref_read, ref_write)
  kData,    // .data (match)
  kClause,  // .clauses[i].rhs
  kPatternVar,  // .clauses[i].lhs (a variable the pattern binds)
};

struct PathStep {
  PathField field = PathField::kBody;
  int32_t index = 0;  // for the indexed fields
};

// `root` followed by the steps and then `suffix` (e.g. ".attrs.padding").
// Paths longer than 64 steps keep their first and last steps and elide the
// middle ("...(N steps)..."), so a diff deep in a million-node chain stays
// readable.
std::string RenderPath(std::string_view root, std::span<const PathStep> steps,
                       std::string_view suffix);

}  // namespace carve
