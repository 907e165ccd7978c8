// PartitionGraph: lifts every annotated region into a global function for its
// target (TVM v0.16 src/relay/transforms/partition_graph.cc; tvm-reference
// 3.5). The pass runs, as TVM's Sequential does:
//   1. FlattenNestedTuples: compiler_end(tuple) becomes a tuple of ends;
//   2. RemoveDefaultAnnotations: `default` annotations are dropped;
//   3. the partitioning proper, per global function:
//        - one function per region, named `tvmgen_<mod_name>_<target>_<func>_<id>`
//          (non-alphanumerics in the whole name become `_`), ids from the
//          function's AnnotatedRegionSet (so with TVM's gaps);
//        - parameters `<target>_<id>_i<k>`, k the input's position in the
//          region, one per distinct input value, typed as the compiler_begin;
//        - one output: the body is that value (return type its type); several:
//          a tuple (no return type, as TVM) read back with projections;
//        - with bind_constants, inputs that are constants (or tuples of
//          constants) are bound into the body and dropped from the call;
//        - attributes Compiler, Primitive=1, Inline=1, global_symbol (the order
//          TVM prints them in);
//        - the target's partition hook (`relay.ext.<target>.optimize`), if any;
//      functions that already carry `Compiler` are renamed the same way;
//   4. InferType, once.
// The new functions are typed from the annotated graph's types as they are
// built; nothing is re-typed per region. Regions that depend on each other in
// a cycle are a FailedPrecondition naming the cycle.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "passes/byoc/annotated_region_set.h"
#include "passes/pass.h"

namespace carve {

// Options of PartitionGraph (TVM's Python signature).
struct PartitionGraphOptions {
  std::string mod_name = "default";
  bool bind_constants = true;
};

// The prefix of partitioned function names: "tvmgen_<mod_name>" ("tvmgen"
// for an empty name). InvalidArgument when `mod_name` has characters other
// than letters, digits and `_`.
absl::StatusOr<std::string> MangleModuleName(std::string_view mod_name);

// TVM's SanitizeName: every non-alphanumeric character becomes `_`.
std::string SanitizeName(std::string_view name);

// Steps 1 and 2 on every function of `mod`; return whether they changed it.
absl::StatusOr<bool> FlattenNestedTuples(Module& mod);
absl::StatusOr<bool> RemoveDefaultAnnotations(Module& mod);
// FlattenNestedTuples then RemoveDefaultAnnotations, in one walk.
absl::StatusOr<bool> PrepareForPartitioning(Module& mod);
// Both steps on one function (the function itself when nothing changes).
const Function* PrepareFunctionForPartitioning(const Function* fn, Arena* arena);

// The whole pass on `mod`.
// `input_annotated`: `mod` is known to carry every annotation InferType fills
// (PassContext::input_annotated), so the result needs no scan. `handoff`:
// region sets an earlier pass kept (MergeCompilerRegions), used instead of a
// walk for the functions they describe.
absl::StatusOr<bool> PartitionModule(Module& mod, const PartitionGraphOptions& options,
                                     bool input_annotated = false,
                                     RegionSetHandoff* handoff = nullptr);

// The pass.
PassPtr PartitionGraph(PartitionGraphOptions options = {});
PassPtr FlattenNestedTuplesPass();
PassPtr RemoveDefaultAnnotationsPass();

}  // namespace carve
