// MergeCompilerRegions: grows the regions AnnotateTarget made (one per op)
// into maximal regions per target, then removes the compiler_begin /
// compiler_end pairs that became internal (TVM v0.16 src/relay/transforms/
// merge_compiler_regions.cc; tvm-reference 3.4). Its parts are TVM's: the
// region set (AnnotatedRegionSet), RegionMerger (decides and performs the
// merges in the set) and InternalAnnotationRemover (TVM's MergeAnnotations
// rewriter). docs/passes.md walks through them.
//
// RegionMerger is TVM's algorithm. Regions are visited in TVM's order: a
// post-order walk of the function that, at a region's first compiler_end,
// first visits the producers of the region's inputs. Then region R gets a
// restriction set, the regions it must not merge with:
//
//   restrict(R) = U over R's parent regions P (producers of R's inputs):
//                   restrict(P), plus P when P has another target
//
// and each parent of R's target merges into R unless restrict(R) holds it.
// Where TVM renames a merged region in every set, the sets hold ids
// resolved through the set's union-find; where TVM keeps every set, a
// region leaves the sets once no undecided region reads it (it can no
// longer be tested), so the sets hold the live frontier of the graph and
// big graphs take near-linear time.
//
// Where this differs from TVM (tests in tests/passes_byoc/
// merge_compiler_regions_test.cc); the first two where TVM's result has two
// regions that depend on each other, which PartitionGraph turns into
// functions that call each other's results:
//   - Paths through nodes outside every region count: an input computed
//     outside regions (a tuple with include_non_call_ops=False, a let-bound
//     variable, a call of a local function, an if) adds every region
//     upstream of it, with their sets. TVM looks only through an if, and
//     there takes the sets of the regions it finds, not the regions.
//   - A set is a snapshot: a region that grows upstream by a merge after a
//     downstream set recorded it leaves that set short (TVM's too). The
//     merger checks its result for a region cycle (region_verify.h, linear)
//     and, if it finds one (rare), merges again testing each merge by an
//     exact walk upstream.
//   - Regions in different function literals never merge (TVM pulls an
//     outer op into a closure's region).
// Elsewhere the regions are TVM's: an emulation of TVM's sets (no
// pruning, no deviation) gave the same output on all of
// scripts/compare-outputs.sh, and failed exactly the deviation tests.
#pragma once

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/byoc/annotated_region_set.h"
#include "passes/pass.h"

namespace carve {

// Merges the regions of one annotated function.
absl::StatusOr<const Function*> MergeCompilerRegionsFunction(const Function* fn, Arena* arena);

// The pass: MergeCompilerRegionsFunction on every optimizable function, then
// InferType.
PassPtr MergeCompilerRegions();

}  // namespace carve
