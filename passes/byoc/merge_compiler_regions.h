// MergeCompilerRegions: grows the regions AnnotateTarget made (one per op)
// into maximal regions per target, then removes the compiler_begin /
// compiler_end pairs that became internal (TVM v0.16 src/relay/transforms/
// merge_compiler_regions.cc; tvm-reference 3.4). Its parts are TVM's: the
// region set (AnnotatedRegionSet), RegionMerger (the walk below, which
// decides and performs the merges in the set) and InternalAnnotationRemover
// (TVM's MergeAnnotations rewriter). docs/passes.md walks through them.
//
// Algorithm. Regions are visited in TVM's order: a post-order walk of the
// function that, at a region's first compiler_end, first visits the
// producers of the region's inputs. At each region R, every direct producer
// region P with R's target is merged into R unless P also reaches R along
// another path; such a merge would make the merged region both feed and
// consume that path (a cycle). Producers of other targets, and every region
// upstream of R along other paths, are recorded in R's restriction set:
//
//   restrict(R) = U over inputs x of R:
//                   x in a region P:  restrict(P), plus P unless P merges into R
//                   x outside regions: every region upstream of x (through
//                                      operators, tuples, ifs, let-bound vars)
//
// and a same-target producer merges iff it is not in restrict(R). Restriction
// sets hold region ids resolved through union-find, so a merge renames
// nothing. A region stays in a set only while some unvisited region still
// reads from it (the only time it can be tested), so the sets hold the live
// frontier of the graph: work is O(E * W) for E region edges and a frontier of
// W live regions, near-linear on real networks, where TVM's pass copies sets
// of every ancestor (O(R^2)) and rewrites all of them at every merge.
//
// Where this differs from TVM: TVM propagates restrictions only along
// region-to-region edges (and through an `if`), so a path that leaves the
// target through a node outside every region (a tuple with
// include_non_call_ops=False, a let-bound variable, a call of a local
// function) is missed, and the merge creates a cycle that PartitionGraph
// turns into invalid code. Here every path counts. The sets are memoized and
// pruned, so a region that grows by a merge after a downstream set recorded
// it can leave that set short; the merger notes when that happens (rare),
// checks its result for a region cycle (region_verify.h, linear) and, if it
// finds one, merges again testing each merge by an exact walk upstream. So
// merged regions are acyclic. Regions in different function literals never
// merge. On the graphs TVM handles correctly the regions are the same.
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
