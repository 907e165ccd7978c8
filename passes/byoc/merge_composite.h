// MergeComposite: replaces the matches of a target's pattern table by calls
// of `Composite` function literals (TVM v0.16 src/relay/transforms/
// merge_composite.cc; tvm-reference 3.1). A thin layer over
// patterns/partition.h's PartitionComposites: the patterns apply in table
// order (earlier entries win; later ones cannot match inside earlier
// composites but can take composite calls as inputs), each composite gets
// PartitionedFromPattern and Composite="<target>.<name>", and an entry's
// check sees the typed root. Unlike TVM, the function is not re-typed after
// each pattern: rebuilt nodes keep their types and composites are built
// typed (parameters annotated with their argument's type, the root's type as
// return type), which is what the module InferType after the pass yields.
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"
#include "passes/byoc/target.h"

namespace carve {

// Applies `table` to one (typed) function.
absl::StatusOr<const Function*> MergeCompositeFunction(const Function* fn,
                                                       std::span<const CompositeRule> table,
                                                       Arena* arena);

// The pass over the concatenated tables of `targets`, in order.
PassPtr MergeComposite(std::vector<TargetSpecPtr> targets);

}  // namespace carve
