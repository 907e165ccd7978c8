// AnnotateTarget: marks every operator with the target that will run it, by
// wrapping its inputs in `compiler_begin` and its uses in `compiler_end`
// (TVM v0.16 src/relay/transforms/annotate_target.cc; tvm-reference 3.2).
//
// For each call, in post order:
//   - the candidate targets are those of `targets` (in priority order) whose
//     single-op rules accept the typed call, or, for a call of a `Composite`
//     function literal, the target named by the composite's prefix before the
//     first `.`; `default` always comes last and the first candidate wins;
//   - every argument that was itself annotated gets a new `compiler_end` for
//     its own target (one per consumer edge), then a `compiler_begin` for the
//     call's target; graph inputs (variables, constants, zero-argument calls,
//     empty tuples) get only the `compiler_begin`.
// With include_non_call_ops, tuples and projections take the common target
// of their inputs (else `default`) and are wrapped like calls; let values are
// annotated like arguments (function literals are left alone); let bodies,
// function bodies, if conditions and branches get a `compiler_end` only, so
// the if itself stays on the host. Without it, tuples, projections and calls
// of local variables only close their inputs with `compiler_end`.
// Composite function bodies are never entered. Re-running the pass keeps the
// annotations of earlier runs except `default` ones, so a second run can
// claim more ops for another target; re-running with the same target is a
// no-op.
//
// Differences from TVM: argument order is always preserved (TVM can reorder
// the arguments of a call that mixes kept and new annotations).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"
#include "passes/byoc/target.h"

namespace carve {

struct RegionSetSizeHint;

// Annotates one function (which must be typed: rules may read types). With
// `size_hint`, also says how large the region set of the result is expected
// to be (see RegionSetSizeHint, annotated_region_set.h): the pass hands it to
// MergeCompilerRegions.
absl::StatusOr<const Function*> AnnotateTargetFunction(const Function* fn,
                                                       const std::vector<TargetSpecPtr>& targets,
                                                       bool include_non_call_ops, Arena* arena,
                                                       RegionSetSizeHint* size_hint = nullptr);

// The pass: AnnotateTargetFunction on every optimizable function, then
// InferType. `targets` must not be empty.
PassPtr AnnotateTarget(std::vector<TargetSpecPtr> targets, bool include_non_call_ops = true);

}  // namespace carve
