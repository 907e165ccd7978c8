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
  int total() const;
  // "add 12, nn.dense 6"
  std::string OpsText() const;
  // The first three free inputs, "and N more" after them.
  std::string FreeInputsText() const;
};

// The report for a module PartitionGraph produced (typed) and its placement
// record (passes/byoc/placement_record.h: the reasons come from there); `lost`
// when FindLetBoundLoss found ops lost to lets.
std::string RenderPartitionReport(const Module& mod, const PlacementRecord& record,
                                  const LetBoundLoss* lost = nullptr);
// Same, with a record built from `mod` alone (no pruning facts: ops a
// region-level rule sent back read "kept on the host").
std::string RenderPartitionReport(const Module& mod, const std::vector<TargetSpecPtr>& backends,
                                  const LetBoundLoss* lost = nullptr);

// `carve partition --report=json`: the same statistics and the whole record
// as one JSON object (schema "carve-partition-report/1", docs/backends.md).
std::string RenderPartitionReportJson(const Module& mod, const PlacementRecord& record,
                                      const LetBoundLoss* lost = nullptr);

// The global functions @main calls, directly or through others, and @main.
absl::flat_hash_set<const Function*> ReachableFromMain(const Module& mod);

}  // namespace carve
