// The partition report of `carve partition --report`: for each backend, what
// was offloaded and what stayed on the host, and why. Stable text (sorted,
// no timings) for golden files:
//
//   backend dnnl: 120 of 140 ops offloaded (85.7%) in 3 regions
//     offloaded ops:
//       nn.conv2d              40
//     composites:
//       dnnl.conv2d_bias_relu  40
//     not offloaded:
//       nn.max_pool2d           3  failed check: where clause: `?.layout == "NCHW"` is false (...)
//       nn.softmax              2  unsupported op
//     regions:
//       tvmgen_default_dnnl_main_0  80 ops  2 inputs  1 output
//     boundary tensors: 5 inputs, 3 outputs (1.2 MiB)
//     region breaks: 2 host ops between offloaded regions (nn.softmax 2)
//
// Regions are listed by name in natural order (support/natural_order.h:
// tvmgen_default_dnnl_main_2 before _10), in the text and the JSON.
// Ops are operator calls, counted inside composites; annotations are not
// ops. The reason of each op a backend does not run is its verdict in the
// placement record (passes/byoc/placement_record.h, docs/why.md): unsupported
// op, the failed clause of a rule, the closest composite's mismatch, claimed
// by / offloaded to another backend, in another backend's composite, or
// pruned by a region-level rule with its numbers. A region break is a host
// op that reads from an offloaded region and feeds one.
//
// Given a LetBoundLoss (TVM's flow left let-bound region inputs free in
// @main, backends/partition.h), the ops that never run are counted in each
// backend's total and listed as "not offloaded" with the reason "lost to a
// let-bound region (never runs)", partitions @main does not call are not
// counted as offloaded, and a last section names the free inputs and the
// remedy (ToGraphNormalForm first).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "passes/byoc/placement_record.h"
#include "passes/byoc/target.h"

namespace carve {

// Ops a partitioned module never runs because let-bound region inputs were
// left free in @main (found by backends/partition.h's FindLetBoundLoss).
struct LetBoundLoss {
  // "%dnnl_1_i0 (the value of let %a)", in @main's order.
  std::vector<std::string> free_inputs;
  std::map<std::string, int> ops;  // op name -> count
  // Where the free inputs are: let-bound values (ToGraphNormalForm first
  // fixes them) and regions in match clauses (TVM's AnnotateTarget has no
  // rule for match; no pass fixes them).
  bool in_lets = false;
  bool in_clauses = false;
  int total() const;
  // "add 12, nn.dense 6"
  std::string OpsText() const;
  // The first three free inputs, "and N more" after them.
  std::string FreeInputsText() const;
};

// What the first backend's preparation passes (the passes before
// MergeComposite: FoldConstant, SimplifyInference, FoldScaleAxis, a
// backend's own rewrites) did to the op calls of the module they received:
// the calls they removed (folded into a constant, simplified away, or
// rewritten without keeping the span), each with the pass after which no
// call with its span was left, and the calls they rewrote into other ops
// keeping the span (nn.batch_norm into add). Found by backends/placement.h's
// PreparationWatch; `partition --report`, `why --backend` and `viz` read it,
// as they read the placement record, so they agree.
struct PreparedAway {
  struct Removed {
    SpanKey span;      // of the call in the module the preparation received
    std::string op;    // "add"
    std::string pass;  // the pass after which it was gone: "FoldConstant"
    int step = 0;      // that pass's position among the preparation passes, from 1
  };
  std::string backend;                 // whose preparation ran
  // Op calls (not annotations) in the module the preparation received: the
  // file the user gave, where the report's totals count the prepared module.
  int input_ops = 0;
  std::vector<std::string> passes;     // the preparation passes, in order
  std::vector<std::string> summaries;  // their one-line summaries (same order)
  std::vector<Removed> removed;        // in the received module's post-order
  // (op, the ops its span holds after the preparation: "add" or
  // "add, multiply") -> count.
  std::map<std::pair<std::string, std::string>, int> rewritten;

  bool empty() const { return removed.empty() && rewritten.empty(); }
  // The removed call with `span`, or nullptr.
  const Removed* Find(const SpanKey& span) const;
  // "folded, simplified or rewritten away by dnnl's preparation pass
  // FoldConstant (step 4 of 12: <the pass's summary>)"
  std::string Text(const Removed& r) const;
};

// The report for a module PartitionGraph produced (typed) and its placement
// record (passes/byoc/placement_record.h: the reasons come from there); `lost`
// when FindLetBoundLoss found ops lost to lets; `prepared` (optional) what
// the preparation passes removed or rewrote before partitioning (listed in a
// section of their own, not counted in the backends' totals).
std::string RenderPartitionReport(const Module& mod, const PlacementRecord& record,
                                  const LetBoundLoss* lost = nullptr,
                                  const PreparedAway* prepared = nullptr);
// Same, with a record built from `mod` alone (no pruning facts: ops a
// region-level rule sent back read "kept on the host").
std::string RenderPartitionReport(const Module& mod, const std::vector<TargetSpecPtr>& backends,
                                  const LetBoundLoss* lost = nullptr);

// `carve partition --report=json`: the same statistics and the whole record
// as one JSON object (schema "carve-partition-report/1", docs/backends.md).
std::string RenderPartitionReportJson(const Module& mod, const PlacementRecord& record,
                                      const LetBoundLoss* lost = nullptr,
                                      const PreparedAway* prepared = nullptr);

// The global functions @main calls, directly or through others, and @main.
absl::flat_hash_set<const Function*> ReachableFromMain(const Module& mod);

}  // namespace carve
