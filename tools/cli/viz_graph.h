// The graph model behind `carve viz`: the nodes of a (partitioned) module
// with the target each runs on, the clusters they sit in (offloaded regions
// and composites, by name), edges labelled with tensor shapes, and for host
// ops the reason they stayed on the host. Writers (viz_writers.h) turn it
// into DOT, SVG, HTML or an indented tree; everything here is deterministic
// (node ids in evaluation order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "grammar/pattern_node_names.h"
#include "passes/byoc/partition_report.h"
#include "passes/byoc/placement_record.h"
#include "passes/byoc/target.h"

namespace carve::viz {

struct Cluster {
  std::string name;    // region function (`tvmgen_default_dnnl_main_0`) or composite
  bool region = false;  // an offloaded function (else a composite)
  std::string target;  // "" on the host
  int parent = -1;     // enclosing cluster
};

struct Node {
  std::string name;    // the name `carve fmt` prints for it (%3, %x), may be ""
  std::string label;   // op name, "input", "const", "tuple", ".1", or a summary box
  std::string target;  // "" on the host
  std::string reason;  // why a host op stayed on the host ("" when not known)
  std::string type;    // checked type as text
  std::string attrs;   // "k=v, ..." of a call
  int cluster = -1;    // innermost cluster
  int ops = 0;         // summary boxes: ops inside
  bool is_op = false;  // an operator call (counted in summaries)
};

struct Edge {
  int from = 0;
  int to = 0;
  std::string label;  // tensor shape, or boundary bytes in summaries
  int64_t bytes = 0;  // size of the tensor (0 when not static)
};

// Names of op calls by source span.
using SpanNames = absl::flat_hash_map<SpanKey, std::string>;

// An op call of FILE that the preparation passes removed before
// partitioning (PreparedAway, passes/byoc/partition_report.h): not in the
// graph, listed beside it with the pass that removed it.
struct RemovedOp {
  std::string name;    // its `%N` in FILE, may be ""
  std::string op;      // "add"
  std::string pass;    // "FoldConstant (step 4 of 12)"
  std::string reason;  // PreparedAway::Text, as `why` and the report say it
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<Cluster> clusters;
  std::vector<Edge> edges;
  std::vector<std::string> targets;  // backends in priority order (colours)
  int output = -1;                   // the node of @main's result
  bool summary = false;              // region-level view
  std::string removed_by;            // the backend whose preparation ran
  std::vector<RemovedOp> removed;    // drawn as a note beside the graph
  // Ops that never run because TVM's flow left a region's result unbound
  // (LetBoundLoss: they sit in partitions @main never calls, or in none):
  // drawn as a second note, in the words of the report's "lost to" section.
  std::vector<std::string> lost;  // title line, then detail lines
};

// The note's lines for `loss` (empty without one): "lost to let-bound
// regions: 45 ops never run", the ops by name, the free inputs of @main.
std::vector<std::string> LostNote(const LetBoundLoss* loss);

// The ops `prepared` lists as removed, named by `input_names`.
std::vector<RemovedOp> RemovedOps(const PreparedAway& prepared, const SpanNames& input_names);

// The graph of @main of `names.module()` (typed), with regions and
// composites expanded as clusters. With `record` (the placement record of
// the module `names` printed, passes/byoc/placement_record.h), host ops get the
// reason each backend did not take them: the same record `partition
// --report` and `why --backend` read.
//
// With `input_names` (the `%N` names of the op calls of the module that was
// partitioned, by source span: InputNames()), op nodes carry those names,
// the ones `carve why FILE --backend B --at %N` and `carve fmt FILE` use,
// rather than the partitioned module's; nodes the partitioning made (region
// calls, tuples) then have no name.
absl::StatusOr<Graph> BuildGraph(const NodeNames& names,
                                 const std::vector<TargetSpecPtr>& backends,
                                 const PlacementRecord* record = nullptr,
                                 const SpanNames* input_names = nullptr);

// The `%N` names of the op calls of `names.module()`, by source span (the
// first in post-order when several share one).
SpanNames InputNames(const NodeNames& names);

// The nodes within `depth` edges (either direction) of the node printed as
// `name`; error when no node has that name (saying which pass removed it
// when it is one of g.removed).
absl::StatusOr<Graph> Around(const Graph& g, const std::string& name, int depth);

// One box per offloaded region (its op count), host ops kept, constants,
// inputs and composites left out; edges between distinct boxes carry the summed boundary
// tensor size. When that leaves more than `max_boxes` boxes, each chain of
// host ops (each the only box reading the one before) becomes one box too,
// "N host ops: op, ...", named by its first and last node.
Graph Summarize(const Graph& g, size_t max_boxes = SIZE_MAX);

// "1.2 MiB"-style sizes.
std::string FormatBytes(int64_t bytes);

}  // namespace carve::viz
