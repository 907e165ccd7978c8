// The placement record of a whole backend flow (passes/byoc/placement_record.h):
// the partitioning of backends/partition.h, with the ops each backend's
// region-level rule sent back to the host after partitioning and the rule's
// reason with its numbers, as the backend's prune hook states it
// (BackendDescriptor::prune): dnnl's "partition without a compute op",
// tensorrt's scalar input or differing batch sizes, nnapi's cost and minimum.
// `carve partition --report`, `carve why --backend` and `carve viz` all read
// the record this produces, so they agree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/partition.h"
#include "ir/module.h"
#include "passes/pass.h"
#include "passes/byoc/partition_report.h"
#include "passes/byoc/placement_record.h"
#include "passes/byoc/target.h"

namespace carve {

// Keeps the module as it was after the first run of the pass named `pass`:
// with "MergeComposite", the module AnnotateTarget judged, which
// PlacementRecord::Build reads the rules' verdicts from.
class KeepModuleAfter : public PassInstrument {
 public:
  explicit KeepModuleAfter(std::string pass = "MergeComposite") : pass_(std::move(pass)) {}
  absl::Status AfterPass(const Pass& pass, const Module& mod, int depth, bool changed) override;
  const Module* kept() const { return kept_ ? &*kept_ : nullptr; }

 private:
  std::string pass_;
  std::optional<Module> kept_;
};

// Watches the preparation passes of a partition pipeline (BackendPipeline:
// the top-level passes before MergeComposite) and records, for the op calls
// of the module the pipeline received, which pass removed each call that is
// gone (no call with its source span left) and which calls became other
// ops keeping their span: the PreparedAway of `backend`
// (passes/byoc/partition_report.h) that the report, `why` and `viz` read.
class PreparationWatch : public PassInstrument {
 public:
  explicit PreparationWatch(std::string backend);
  absl::Status BeforePass(const Pass& pass, const Module& mod, int depth) override;
  absl::Status AfterPass(const Pass& pass, const Module& mod, int depth, bool changed) override;
  // Complete once MergeComposite has started.
  const PreparedAway& result() const { return result_; }

 private:
  struct Tracked {
    SpanKey span;
    std::string op;
    bool gone = false;
  };
  bool started_ = false;
  bool done_ = false;
  std::vector<Tracked> tracked_;
  PreparedAway result_;
};

// PruneBackendPartitions on `mod` (partitioned for `backends`, before
// pruning), returning which ops the pruning inlined back and why.
absl::StatusOr<PrunedOps> PruneAndRecord(Module& mod, const std::vector<TargetSpecPtr>& backends);

// PartitionForBackends (with `options`' params, mod_name and context;
// pruning always) on `mod` (typed), returning the partitioned module, its
// placement record and what the preparation passes removed.
struct PartitionResult {
  Module module;
  PlacementRecord record;
  // What the first backend's preparation passes removed or rewrote.
  PreparedAway prepared;
  // The ops of partitions removed after partitioning, by a region-level
  // rule or (never_called) as unused: `why` and `viz` name a node that is
  // gone by it.
  PrunedOps pruned;
};
absl::StatusOr<PartitionResult> PartitionWithRecord(Module mod,
                                                    const std::vector<TargetSpecPtr>& backends,
                                                    BackendPartitionOptions options = {});

// The record of `partitioned` when the flow ran pass by pass (the REPL's
// `partition` steps): `annotator_input` is the module after MergeComposite
// and `before_pruning` the one PruneBackendPartitions received (pruned again
// on a copy to learn the rules' reasons); either may be null, and the record
// then knows less (docs/why.md).
absl::StatusOr<PlacementRecord> RecordOfSteps(const Module& partitioned,
                                              const std::vector<TargetSpecPtr>& backends,
                                              const Module* annotator_input,
                                              const Module* before_pruning);

}  // namespace carve
