#include "backends/placement.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "backends/backend.h"
#include "backends/partition.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "support/status_macros.h"

namespace carve {

absl::Status KeepModuleAfter::AfterPass(const Pass& pass, const Module& mod, int depth,
                                        bool changed) {
  if (!kept_ && pass.name() == pass_) kept_ = mod;
  return absl::OkStatus();
}

namespace {

// Span keys of the op calls of `mod` (all functions), with their op names.
absl::flat_hash_map<SpanKey, std::set<std::string>> OpsBySpan(const Module& mod) {
  absl::flat_hash_map<SpanKey, std::set<std::string>> out;
  for (const auto& entry : mod.Functions()) {
    PostOrderVisit(entry.second, [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      if (call == nullptr || !e->span().valid()) return;
      std::set<std::string>& ops = out[PrunedOps::Key(e)];
      if (call->op() != nullptr) ops.insert(std::string(call->op()->name));
    });
  }
  return out;
}

}  // namespace

PreparationWatch::PreparationWatch(std::string backend) { result_.backend = std::move(backend); }

absl::Status PreparationWatch::BeforePass(const Pass& pass, const Module& mod, int depth) {
  if (depth != 0 || done_) return absl::OkStatus();
  if (!started_) {
    started_ = true;
    for (const auto& entry : mod.Functions()) {
      PostOrderVisit(entry.second, [&](const Expr* e) {
        const Call* call = DynCast<Call>(e);
        if (call == nullptr || call->op() == nullptr || IsCompilerAnnotation(call)) return;
        ++result_.input_ops;
        if (!e->span().valid()) return;
        tracked_.push_back({PrunedOps::Key(e), std::string(call->op()->name)});
      });
    }
  }
  if (pass.name() != "MergeComposite") return absl::OkStatus();
  // The preparation is over: what is left under another op was rewritten.
  done_ = true;
  absl::flat_hash_map<SpanKey, std::set<std::string>> ops = OpsBySpan(mod);
  for (const Tracked& t : tracked_) {
    auto it = ops.find(t.span);
    if (t.gone || it == ops.end() || it->second.contains(t.op)) continue;
    ++result_.rewritten[{t.op, fmt::format("{}", fmt::join(it->second, ", "))}];
  }
  return absl::OkStatus();
}

absl::Status PreparationWatch::AfterPass(const Pass& pass, const Module& mod, int depth,
                                         bool changed) {
  if (depth != 0 || done_) return absl::OkStatus();
  result_.passes.push_back(pass.name());
  const PassInfo* info = PassRegistry::Global().Find(pass.name());
  result_.summaries.push_back(info != nullptr ? info->summary : "");
  if (!changed) return absl::OkStatus();
  absl::flat_hash_map<SpanKey, std::set<std::string>> ops = OpsBySpan(mod);
  for (Tracked& t : tracked_) {
    if (t.gone || ops.contains(t.span)) continue;
    t.gone = true;
    result_.removed.push_back({t.span, t.op, pass.name(), static_cast<int>(result_.passes.size())});
  }
  return absl::OkStatus();
}

absl::StatusOr<PrunedOps> PruneAndRecord(Module& mod, const std::vector<TargetSpecPtr>& backends) {
  // The partitions before pruning, with their backend.
  struct Before {
    std::string name;
    const Function* fn;
    int backend;
  };
  std::vector<Before> before;
  for (const auto& [gv, fn] : mod.Functions()) {
    std::string_view compiler = fn->GetStringAttr(attr::kCompiler);
    for (size_t b = 0; b < backends.size(); ++b) {
      if (backends[b]->name() != compiler) continue;
      before.push_back({std::string(gv->name()), fn, static_cast<int>(b)});
    }
  }
  const absl::flat_hash_set<const Function*> called = ReachableFromMain(mod);
  PruneLog log;
  CARVE_RETURN_IF_ERROR(PruneBackendPartitions(mod, backends, &log).status());
  absl::flat_hash_map<std::string, std::string> reasons;
  for (PrunedPartition& p : log) reasons.try_emplace(p.name, std::move(p.reason));
  PrunedOps pruned;
  for (const Before& p : before) {
    if (mod.Lookup(p.name) != nullptr) continue;
    // A partition no rule named went with the functions @main does not
    // reach (dnnl's RemoveUnusedFunctions): one @main never called (its
    // ops never ran), or one pruning left uncalled.
    auto it = reasons.find(p.name);
    const bool never_called = it == reasons.end() && !called.contains(p.fn);
    std::string reason = it != reasons.end() ? it->second
                         : never_called      ? "never called by @main, deleted as unused"
                                             : "removed after partitioning";
    PostOrderVisit(p.fn->body(), [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      if (call == nullptr || call->op() == nullptr || !e->span().valid()) return;
      pruned.Add(call, PrunedOps::Entry{p.backend, reason, p.name, nullptr, never_called});
    });
  }
  return pruned;
}

absl::StatusOr<PartitionResult> PartitionWithRecord(Module mod,
                                                    const std::vector<TargetSpecPtr>& backends,
                                                    BackendPartitionOptions options) {
  if (backends.empty()) return absl::InvalidArgumentError("no backend named");
  PassContext own;
  PassContext& ctx = options.context != nullptr ? *options.context : own;
  auto input = std::make_shared<KeepModuleAfter>();
  ctx.AddInstrument(input);
  auto prep = std::make_shared<PreparationWatch>(backends.front()->name());
  ctx.AddInstrument(prep);
  options.prune = false;
  options.context = &ctx;
  CARVE_ASSIGN_OR_RETURN(Module partitioned,
                         PartitionForBackends(std::move(mod), backends, options));
  CARVE_ASSIGN_OR_RETURN(PrunedOps pruned, PruneAndRecord(partitioned, backends));
  PlacementRecord record = PlacementRecord::Build(partitioned, backends, &pruned, input->kept());
  return PartitionResult{std::move(partitioned), std::move(record), prep->result(),
                         std::move(pruned)};
}

absl::StatusOr<PlacementRecord> RecordOfSteps(const Module& partitioned,
                                              const std::vector<TargetSpecPtr>& backends,
                                              const Module* annotator_input,
                                              const Module* before_pruning) {
  std::optional<PrunedOps> pruned;
  if (before_pruning != nullptr) {
    Module copy = *before_pruning;
    CARVE_ASSIGN_OR_RETURN(pruned, PruneAndRecord(copy, backends));
  }
  return PlacementRecord::Build(partitioned, backends, pruned ? &*pruned : nullptr,
                                annotator_input);
}

}  // namespace carve
