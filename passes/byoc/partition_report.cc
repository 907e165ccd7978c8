#include "passes/byoc/partition_report.h"

#include <cstddef>
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "passes/byoc/partition_report_rows.h"
#include "support/natural_order.h"

namespace carve {
namespace {

struct RegionInfo {
  std::string name;
  int ops = 0;
  size_t inputs = 0;
  size_t outputs = 0;
};

struct BackendStats {
  int offloaded = 0;
  std::map<std::string, int> offloaded_ops;
  std::map<std::string, int> composites;
  std::map<std::pair<std::string, std::string>, int> host;  // (op, reason) -> count
  std::vector<RegionInfo> regions;
  size_t inputs = 0;
  size_t outputs = 0;
  int64_t bytes = 0;
  bool dynamic = false;  // some boundary tensor has a dynamic shape (not in bytes)
  std::map<std::string, int> breaks;  // op -> count
  // Ops a rule rejected for want of a constant where they read a parameter
  // of @main, and those parameters.
  std::map<std::string, int> unbound_ops;
  std::set<std::string> unbound_params;
};

int64_t TypeBytes(const Type* t) {
  if (const auto* tt = DynCast<TensorType>(t)) {
    return tt->is_static() ? tt->num_elements() * tt->dtype().bytes() : 0;
  }
  int64_t total = 0;
  if (const auto* tuple = DynCast<TupleType>(t)) {
    for (const Type* f : tuple->fields()) total += TypeBytes(f);
  }
  return total;
}

bool IsOp(const Expr* e) {
  const Call* call = DynCast<Call>(e);
  return call != nullptr && call->op() != nullptr && !IsCompilerAnnotation(call);
}

// False when a tensor of `t` has a dynamic shape (TypeBytes counts it 0).
bool IsStatic(const Type* t) {
  if (const auto* tt = DynCast<TensorType>(t)) return tt->is_static();
  if (const auto* tuple = DynCast<TupleType>(t)) {
    for (const Type* f : tuple->fields()) {
      if (!IsStatic(f)) return false;
    }
  }
  return true;
}

std::string FormatBytes(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

class ReportBuilder {
 public:
  ReportBuilder(const Module& mod, const PlacementRecord& record, const LetBoundLoss* lost,
                const PreparedAway* prepared)
      : mod_(mod),
        backends_(record.backends()),
        lost_(lost),
        prepared_(prepared != nullptr && !prepared->empty() ? prepared : nullptr),
        stats_(backends_.size()),
        record_(record) {}

  // Collects the statistics; Text() and Json() render them.
  void Build() {
    absl::flat_hash_set<const Function*> reachable;
    if (lost_ != nullptr) reachable = ReachableFromMain(mod_);
    for (const auto& [gv, fn] : mod_.Functions()) {
      std::string_view compiler = fn->GetStringAttr(attr::kCompiler);
      int b = BackendIndex(compiler);
      // A partition nothing calls never runs: its ops are in `lost_`.
      if (lost_ != nullptr && !compiler.empty() && !reachable.contains(fn)) continue;
      if (b >= 0) {
        AddRegion(stats_[b], gv, fn);
      } else if (compiler.empty()) {
        AddHostFunction(fn);
      }
    }
    // Partitions by number (main_2 before main_10), not as text.
    for (BackendStats& s : stats_) {
      std::sort(s.regions.begin(), s.regions.end(), [](const RegionInfo& a, const RegionInfo& b) {
        return NaturalLess(a.name, b.name);
      });
    }
    ClassifyHost();
    if (lost_ != nullptr) {
      total_ops_ += lost_->total();
      for (BackendStats& s : stats_) {
        for (const auto& [name, n] : lost_->ops) {
          s.host[{name, lost_->in_clauses ? "lost to an unclosed region (never runs)"
                                           : "lost to a let-bound region (never runs)"}] += n;
        }
      }
    }
  }

  std::string Text() const {
    std::string out;
    for (size_t b = 0; b < backends_.size(); ++b) out += Render(b);
    if (prepared_ != nullptr) out += RenderPrepared();
    if (lost_ != nullptr) out += RenderLost();
    return out;
  }

  // The same statistics and the record (docs/backends.md "--report=json").
  std::string Json() const {
    std::string out = "{\"schema\": \"carve-partition-report/1\",\n \"backends\": [";
    for (size_t b = 0; b < backends_.size(); ++b) out += (b ? ",\n  " : "\n  ") + BackendJson(b);
    out += "\n ],\n \"preparation\": " + PreparedJson() + ",\n \"lost_to_let\": ";
    if (lost_ == nullptr) {
      out += "null";
    } else {
      out += fmt::format("{{\"ops\": {}, \"free_inputs\": [", CountsJson(lost_->ops));
      for (size_t i = 0; i < lost_->free_inputs.size(); ++i) {
        out += (i ? ", " : "") + JsonString(lost_->free_inputs[i]);
      }
      out += fmt::format("], \"in_lets\": {}, \"in_match_clauses\": {}}}", lost_->in_lets,
                         lost_->in_clauses);
    }
    std::string record = record_.ToJson();  // {"backends": [...],\n "ops": [...]}\n
    size_t ops = record.find("\"ops\"");
    out += ",\n " + record.substr(ops);
    return out;
  }

 private:
  int BackendIndex(std::string_view name) const {
    for (size_t i = 0; i < backends_.size(); ++i) {
      if (backends_[i]->name() == name) return static_cast<int>(i);
    }
    return -1;
  }

  void AddRegion(BackendStats& s, const GlobalVar* gv, const Function* fn) {
    RegionInfo region{std::string(gv->name())};
    PostOrderVisit(fn, [&](const Expr* e) {
      if (IsOp(e)) {
        ++region.ops;
        ++s.offloaded_ops[std::string(Cast<Call>(e)->op()->name)];
        offloaded_.insert(Cast<Call>(e));
      } else if (const Call* call = DynCast<Call>(e)) {
        std::string_view composite = CompositeName(call);
        if (!composite.empty()) ++s.composites[std::string(composite)];
      }
    });
    region.inputs = fn->params().size();
    const Tuple* tuple = DynCast<Tuple>(fn->body());
    region.outputs = tuple != nullptr ? tuple->fields().size() : 1;
    for (const Var* p : fn->params()) {
      s.bytes += TypeBytes(p->checked_type());
      s.dynamic = s.dynamic || !IsStatic(p->checked_type());
    }
    s.bytes += TypeBytes(fn->body()->checked_type());
    s.dynamic = s.dynamic || !IsStatic(fn->body()->checked_type());
    s.offloaded += region.ops;
    s.inputs += region.inputs;
    s.outputs += region.outputs;
    total_ops_ += region.ops;
    s.regions.push_back(std::move(region));
    partition_backend_[gv] = BackendIndex(fn->GetStringAttr(attr::kCompiler));
  }

  void AddHostFunction(const Function* fn) { host_functions_.push_back(fn); }

  // Every op's line comes from the placement record: the backend that runs
  // it, and for each other backend the reason it does not. Host ops are
  // counted after every partition is known (region breaks look at calls of
  // partitions).
  void ClassifyHost() {
    absl::flat_hash_set<const Call*> host_calls;
    for (const Function* fn : host_functions_) {
      PostOrderVisit(fn, [&](const Expr* e) {
        if (IsOp(e)) host_calls.insert(Cast<Call>(e));
      });
    }
    for (const Placement& p : record_.placements()) {
      bool counted = p.backend >= 0 ? offloaded_.contains(p.call) : host_calls.contains(p.call);
      if (!counted) continue;  // in a partition nothing calls (lost to a let)
      if (p.backend < 0) ++total_ops_;
      for (size_t b = 0; b < backends_.size(); ++b) {
        if (static_cast<int>(b) == p.backend) continue;
        ++stats_[b].host[{p.op, p.verdicts[b].Summary()}];
        if (!p.unbound_params.empty() && WantsConstant(p.verdicts[b])) {
          ++stats_[b].unbound_ops[p.op];
          stats_[b].unbound_params.insert(p.unbound_params.begin(), p.unbound_params.end());
        }
      }
    }
    for (const Function* fn : host_functions_) {
      std::vector<const Expr*> order = PostOrder(fn);
      for (size_t b = 0; b < backends_.size(); ++b) {
        absl::flat_hash_set<const Expr*> breaks = RegionBreaks(order, static_cast<int>(b));
        for (const Expr* e : order) {
          if (IsOp(e) && breaks.contains(e)) {
            ++stats_[b].breaks[std::string(Cast<Call>(e)->op()->name)];
          }
        }
      }
    }
  }

  // Host nodes on a path from one of backend b's partitions to another:
  // reachable from a partition's output and reaching a partition's input
  // through host nodes only.
  absl::flat_hash_set<const Expr*> RegionBreaks(const std::vector<const Expr*>& order, int b) {
    absl::flat_hash_set<const Expr*> from;
    for (const Expr* e : order) {
      if (IsPartitionCall(e, b)) continue;
      bool reached = false;
      ForEachChild(e, [&](const Expr* c) {
        reached = reached || IsPartitionCall(c, b) || from.contains(c);
      });
      if (reached) from.insert(e);
    }
    absl::flat_hash_set<const Expr*> to;
    absl::flat_hash_set<const Expr*> breaks;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Expr* e = *it;
      bool feeds = IsPartitionCall(e, b) || to.contains(e);
      if (!feeds) continue;
      if (from.contains(e) && !IsPartitionCall(e, b)) breaks.insert(e);
      ForEachChild(e, [&](const Expr* c) { to.insert(c); });
    }
    return breaks;
  }

  // True when `e` is (a projection of) a call of one of backend b's
  // partitions.
  bool IsPartitionCall(const Expr* e, int b) const {
    if (const TupleGetItem* item = DynCast<TupleGetItem>(e)) e = item->tuple();
    const Call* call = DynCast<Call>(e);
    if (call == nullptr) return false;
    const GlobalVar* gv = DynCast<GlobalVar>(call->callee());
    auto it = gv == nullptr ? partition_backend_.end() : partition_backend_.find(gv);
    return it != partition_backend_.end() && it->second == b;
  }

  // The hint for ops that stay on the host only because their weights are
  // still parameters: binding them makes them constants.
  static std::string UnboundHint(const BackendStats& s) {
    if (s.unbound_ops.empty()) return "";
    int ops = 0;
    std::vector<std::string> parts;
    for (const auto& [op, n] : s.unbound_ops) {
      ops += n;
      parts.push_back(fmt::format("{} {}", op, n));
    }
    std::vector<std::string> names(s.unbound_params.begin(), s.unbound_params.end());
    std::string shown = fmt::format("{}", fmt::join(names.begin(),
                                                    names.begin() + std::min<size_t>(names.size(), 3),
                                                    ", "));
    if (names.size() > 3) shown += fmt::format(" and {} more", names.size() - 3);
    return fmt::format(
        "  hint: {} op{} ({}) stay{} on the host for want of constant weights, which are "
        "parameters of @main here ({}): bind them with --params DIR (run --compare: --bind "
        "NAME,...)\n",
        ops, ops == 1 ? "" : "s", fmt::join(parts, ", "), ops == 1 ? "s" : "", shown);
  }

  // Regions without an op are TVM's too: AnnotateTarget gives a tuple the
  // backend of its fields, and when a host op (concatenate) reads the tuple,
  // PartitionGraph's FlattenTupleOutputs ends the region at each field, so
  // every field becomes a region of its own that only forwards it.
  static std::string EmptyRegionsNote(size_t empty) {
    return fmt::format(
        "  {} region{} without an op pass{} a tuple field through: TVM's PartitionGraph splits "
        "a region that ends in a tuple a host op reads into one region per field\n",
        empty, empty == 1 ? "" : "s", empty == 1 ? "es" : "");
  }

  std::string RenderLost() const {
    std::string names;
    for (const TargetSpecPtr& b : backends_) names += (names.empty() ? "" : ",") + b->name();
    std::string out = fmt::format(
        "lost to {}: {} op{} never run ({})\n  free inputs of @main: {}\n",
        lost_->in_clauses ? (lost_->in_lets ? "let-bound regions and regions in match clauses"
                                            : "regions in match clauses")
                          : "let-bound regions",
        lost_->total(), lost_->total() == 1 ? "" : "s", lost_->OpsText(),
        lost_->FreeInputsText());
    if (lost_->in_clauses) {
      out +=
          "  TVM v0.16's AnnotateTarget has no rule for `match` and never ends a region at a "
          "clause's result (it does for if branches); compute those values outside the match\n";
    }
    if (lost_->in_lets || !lost_->in_clauses) {
      out += fmt::format(
          "  TVM v0.16's AnnotateTarget starts a region at a let-bound value and never ends it; "
          "run ToGraphNormalForm first (carve opt FILE -p ToGraphNormalForm | carve partition - "
          "--backend {})\n",
          names);
    }
    return out;
  }

  // The totals count the module after the preparation passes, which is not
  // the file the user gave when they folded, removed or expanded ops: say so
  // under each backend's total, with the input's count.
  std::string InputOpsNote() const {
    if (prepared_ == nullptr || prepared_->input_ops == total_ops_) return "";
    return fmt::format(
        "  (ops counted after {}'s preparation passes: {} here, {} in the input; see "
        "\"before partitioning\" below)\n",
        prepared_->backend, total_ops_, prepared_->input_ops);
  }

  // The preparation's removals grouped by (op, pass), and its rewrites.
  std::map<std::pair<std::string, int>, int> RemovedCounts() const {
    std::map<std::pair<std::string, int>, int> counts;
    for (const PreparedAway::Removed& r : prepared_->removed) ++counts[{r.op, r.step}];
    return counts;
  }

  std::string RenderPrepared() const {
    const PreparedAway& p = *prepared_;
    std::string out = fmt::format(
        "before partitioning, {}'s preparation passes (not counted above):\n", p.backend);
    if (!p.removed.empty()) {
      out += fmt::format("  removed {} op{} (folded into constants, simplified or rewritten "
                         "away):\n",
                         p.removed.size(), p.removed.size() == 1 ? "" : "s");
      for (const auto& [key, n] : RemovedCounts()) {
        out += fmt::format("    {:<28} {:>6}  by {} (step {} of {})\n", key.first, n,
                           p.passes[key.second - 1], key.second, p.passes.size());
      }
    }
    if (!p.rewritten.empty()) {
      int total = 0;
      for (const auto& [key, n] : p.rewritten) total += n;
      out += fmt::format("  rewrote {} op{} into others (counted above as those):\n", total,
                         total == 1 ? "" : "s");
      for (const auto& [key, n] : p.rewritten) {
        out += fmt::format("    {:<28} {:>6}  into {}\n", key.first, n, key.second);
      }
    }
    return out;
  }

  std::string PreparedJson() const {
    if (prepared_ == nullptr) return "null";
    const PreparedAway& p = *prepared_;
    std::string out = fmt::format(
        "{{\"backend\": {}, \"input_ops\": {}, \"prepared_ops\": {}, \"removed\": [",
        JsonString(p.backend), p.input_ops, total_ops_);
    bool first = true;
    for (const auto& [key, n] : RemovedCounts()) {
      out += fmt::format(
          "{}{{\"op\": {}, \"count\": {}, \"pass\": {}, \"step\": {}, \"steps\": {}}}",
          first ? "" : ", ", JsonString(key.first), n, JsonString(p.passes[key.second - 1]),
          key.second, p.passes.size());
      first = false;
    }
    out += "], \"rewritten\": [";
    first = true;
    for (const auto& [key, n] : p.rewritten) {
      out += fmt::format("{}{{\"op\": {}, \"count\": {}, \"into\": {}}}", first ? "" : ", ",
                         JsonString(key.first), n, JsonString(key.second));
      first = false;
    }
    return out + "]}";
  }

  static std::string CountsJson(const std::map<std::string, int>& counts) {
    std::string out = "{";
    for (const auto& [name, n] : counts) {
      out += fmt::format("{}{}: {}", out.size() > 1 ? ", " : "", JsonString(name), n);
    }
    return out + "}";
  }

  std::string BackendJson(size_t b) const {
    const BackendStats& s = stats_[b];
    std::string out = fmt::format(
        "{{\"name\": {}, \"offloaded\": {}, \"total\": {}, \"offloaded_ops\": {}, "
        "\"composites\": {},\n   \"not_offloaded\": [",
        JsonString(backends_[b]->name()), s.offloaded, total_ops_, CountsJson(s.offloaded_ops),
        CountsJson(s.composites));
    bool first = true;
    for (const auto& [key, n] : s.host) {
      out += fmt::format("{}{{\"op\": {}, \"count\": {}, \"reason\": {}}}",
                         first ? "\n    " : ",\n    ", JsonString(key.first), n,
                         JsonString(key.second));
      first = false;
    }
    out += "],\n   \"regions\": [";
    for (size_t i = 0; i < s.regions.size(); ++i) {
      const RegionInfo& r = s.regions[i];
      out += fmt::format("{}{{\"name\": {}, \"ops\": {}, \"inputs\": {}, \"outputs\": {}}}",
                         i ? ", " : "", JsonString(r.name), r.ops, r.inputs, r.outputs);
    }
    out += fmt::format(
        "],\n   \"boundary\": {{\"inputs\": {}, \"outputs\": {}, \"bytes\": {}}}, "
        "\"region_breaks\": {}}}",
        s.inputs, s.outputs, s.bytes, CountsJson(s.breaks));
    return out;
  }

  std::string Render(size_t b) const {
    const BackendStats& s = stats_[b];
    double share = total_ops_ > 0 ? 100.0 * s.offloaded / total_ops_ : 0;
    size_t empty = 0;
    for (const RegionInfo& r : s.regions) empty += r.ops == 0;
    std::string out = fmt::format(
        "backend {}: {} of {} ops offloaded ({:.1f}%) in {} region{}{}\n", backends_[b]->name(),
        s.offloaded, total_ops_, share, s.regions.size(), s.regions.size() == 1 ? "" : "s",
        empty == 0 ? "" : fmt::format(" ({} without an op)", empty));
    out += InputOpsNote();
    auto table = [&](const char* title, const std::map<std::string, int>& rows) {
      if (rows.empty()) return;
      out += fmt::format("  {}:\n", title);
      for (const auto& [name, n] : rows) out += fmt::format("    {:<28} {:>6}\n", name, n);
    };
    table("offloaded ops", s.offloaded_ops);
    table("composites", s.composites);
    if (!s.host.empty()) {
      out += "  not offloaded:\n";
      for (const HostRow& row : MergeByNumbers(s.host)) {
        out += fmt::format("    {:<28} {:>6}  {}\n", row.op, row.count, row.reason);
      }
    }
    out += UnboundHint(s);
    if (!s.regions.empty()) {
      out += "  regions:\n";
      for (const RegionInfo& r : s.regions) {
        out += fmt::format("    {}  {} op{}  {} input{}  {} output{}{}\n", r.name, r.ops,
                           r.ops == 1 ? "" : "s", r.inputs, r.inputs == 1 ? "" : "s", r.outputs,
                           r.outputs == 1 ? "" : "s", r.ops == 0 ? "  (passes its input through)" : "");
      }
      if (empty > 0) out += EmptyRegionsNote(empty);
      out += fmt::format("  boundary tensors: {} input{}, {} output{} ({})\n", s.inputs,
                         s.inputs == 1 ? "" : "s", s.outputs, s.outputs == 1 ? "" : "s",
                         !s.dynamic     ? FormatBytes(s.bytes)
                         : s.bytes == 0 ? "sizes unknown: dynamic shapes"
                                        : FormatBytes(s.bytes) + " and dynamic shapes");
    }
    int breaks = 0;
    std::vector<std::string> parts;
    for (const auto& [op, n] : s.breaks) {
      breaks += n;
      parts.push_back(fmt::format("{} {}", op, n));
    }
    if (breaks > 0) {
      out += fmt::format("  region breaks: {} host op{} between offloaded regions ({})\n", breaks,
                         breaks == 1 ? "" : "s", fmt::join(parts, ", "));
    }
    return out;
  }

  const Module& mod_;
  const std::vector<TargetSpecPtr>& backends_;
  const LetBoundLoss* lost_;  // or nullptr
  const PreparedAway* prepared_;  // or nullptr (also when it is empty)
  std::vector<BackendStats> stats_;
  std::vector<const Function*> host_functions_;
  absl::flat_hash_map<const GlobalVar*, int> partition_backend_;
  const PlacementRecord& record_;
  // Every op inside a partition @main runs.
  absl::flat_hash_set<const Call*> offloaded_;
  int total_ops_ = 0;
};

}  // namespace

std::string RenderPartitionReport(const Module& mod, const PlacementRecord& record,
                                  const LetBoundLoss* lost, const PreparedAway* prepared) {
  ReportBuilder builder(mod, record, lost, prepared);
  builder.Build();
  return builder.Text();
}

std::string RenderPartitionReportJson(const Module& mod, const PlacementRecord& record,
                                      const LetBoundLoss* lost, const PreparedAway* prepared) {
  ReportBuilder builder(mod, record, lost, prepared);
  builder.Build();
  return builder.Json();
}

std::string RenderPartitionReport(const Module& mod, const std::vector<TargetSpecPtr>& backends,
                                  const LetBoundLoss* lost) {
  return RenderPartitionReport(mod, PlacementRecord::Build(mod, backends), lost, nullptr);
}

}  // namespace carve
