// The acyclicity test PartitionGraph runs when its own walk cannot show
// that the regions are acyclic (functions with lets or ifs, and the other
// shapes partition_graph.cc lists): the yes/no answer of FindRegionCycle
// (passes/byoc/region_verify.h), without building the cycle's description.
// FindRegionCycle keeps its colours in a hash table and copies each
// vertex's dependencies into a vector of its own; this test colours plain
// nodes in their scratch byte and regions in an array, and keeps every
// pending dependency on one stack: at 100k ops it costs half as much.
// PartitionGraph calls FindRegionCycle only when this answers yes, for the
// message.
#pragma once

#include "ir/expr.h"
#include "passes/byoc/annotated_region_set.h"

namespace carve {

// Whether FindRegionCycle(set, set.root()) finds a cycle: the graph of
// set.root() with every region contracted to one vertex, edges from each
// vertex to what it depends on (passes/byoc/dataflow_deps.h, lets as recorded by
// the set), searched from the root and from every region, has a cycle.
// Linear time. Uses (and clears) the scratch byte of the nodes it visits.
bool HasRegionCycle(const AnnotatedRegionSet& set);

}  // namespace carve
