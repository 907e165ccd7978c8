// TVM's ToGraphNormalForm: every `let` whose value is not a function is
// dropped and its variable replaced by the value, so later passes see a
// dataflow graph. Backends need it: TVM v0.16's AnnotateTarget marks a
// let-bound value as the start of a region and never ends it, so
// PartitionGraph leaves that region's input a free variable of @main and the
// ops that computed it never run (backends/partition.h, LetBoundLoss).
// Lets binding functions (closures, which may be recursive) stay, where TVM
// keeps them too when they are recursive.
#pragma once

#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

// `fn` in graph-normal form (the value shared, not copied). Relay is pure, so
// the result computes the same. Types are not set: re-type the module.
const Function* InlineLets(const Function* fn, Arena* arena);

// The pass `ToGraphNormalForm` (every optimizable function; re-types).
PassPtr ToGraphNormalForm();

}  // namespace carve
