// Verification of annotated regions: no two regions may depend on each other.
//
// Within one function the expression graph is a DAG (nodes are immutable), but
// regions group nodes, and a grouping can be cyclic: region A feeds a node
// outside A that feeds A again. PartitionGraph would turn such regions into
// functions that call each other's results before they exist. TVM's
// MergeCompilerRegions can produce them (tvm-reference 3.4); carve's cannot,
// and `--verify-each` checks every pass's output with this.
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "ir/expr.h"
#include "ir/module.h"
#include "passes/byoc/annotated_region_set.h"

namespace carve {

// A dependency cycle through the regions of `set` (built from `root`), as a
// readable path in dataflow order ("region 0 (dnnl) -> tanh at 4:3 ->
// region 0 (dnnl)"), or nullopt when the regions are acyclic. Linear time.
std::optional<std::string> FindRegionCycle(const AnnotatedRegionSet& set, const Expr* root);

// Checks every global function that holds annotations: well-formed regions
// (AnnotatedRegionSet::Create) without cycles. FailedPrecondition naming the
// function and the cycle otherwise.
absl::Status VerifyRegionsAcyclic(const Module& mod);

// A short description of a node for messages: the op name or node kind and,
// when known, its source position ("nn.relu at model.relay:4:7").
std::string DescribeNode(const Expr* e);

}  // namespace carve
