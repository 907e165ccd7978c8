#include "passes/byoc/partition_report.h"

#include <cstddef>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"

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
  std::map<std::string, int> breaks;  // op -> count
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

std::string FormatBytes(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

// Global functions @main calls, directly or through others (and @main).
absl::flat_hash_set<const Function*> ReachableFromMain(const Module& mod) {
  absl::flat_hash_set<const Function*> seen;
  std::vector<const Function*> work;
  if (const Function* main = mod.Lookup("main")) work.push_back(main);
  while (!work.empty()) {
    const Function* fn = work.back();
    work.pop_back();
    if (!seen.insert(fn).second) continue;
    PostOrderVisit(fn, [&](const Expr* e) {
      if (const GlobalVar* gv = DynCast<GlobalVar>(e)) {
        if (const Function* callee = mod.Lookup(gv->name())) work.push_back(callee);
      }
    });
  }
  return seen;
}

class ReportBuilder {
 public:
  ReportBuilder(const Module& mod, const std::vector<TargetSpecPtr>& backends,
                const LetBoundLoss* lost)
      : mod_(mod), backends_(backends), lost_(lost), stats_(backends.size()) {}

  std::string Build() {
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
    std::string out;
    for (size_t b = 0; b < backends_.size(); ++b) out += Render(b);
    if (lost_ != nullptr) out += RenderLost();
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
        offloaded_calls_.emplace_back(Cast<Call>(e), &s - stats_.data());
      } else if (const Call* call = DynCast<Call>(e)) {
        std::string_view composite = CompositeName(call);
        if (!composite.empty()) ++s.composites[std::string(composite)];
      }
    });
    region.inputs = fn->params().size();
    const Tuple* tuple = DynCast<Tuple>(fn->body());
    region.outputs = tuple != nullptr ? tuple->fields().size() : 1;
    for (const Var* p : fn->params()) s.bytes += TypeBytes(p->checked_type());
    s.bytes += TypeBytes(fn->body()->checked_type());
    s.offloaded += region.ops;
    s.inputs += region.inputs;
    s.outputs += region.outputs;
    total_ops_ += region.ops;
    s.regions.push_back(std::move(region));
    partition_backend_[gv] = BackendIndex(fn->GetStringAttr(attr::kCompiler));
  }

  void AddHostFunction(const Function* fn) { host_functions_.push_back(fn); }

  // Host ops are classified after every partition is known (region breaks
  // look at calls of partitions).
  void ClassifyHost() {
    // Ops another backend took are "not offloaded" from this one's view.
    for (const auto& [call, owner] : offloaded_calls_) {
      for (size_t b = 0; b < backends_.size(); ++b) {
        if (static_cast<ptrdiff_t>(b) == owner) continue;
        std::string reason = ElsewhereReason(call, b, owner);
        ++stats_[b].host[{std::string(call->op()->name), reason}];
      }
    }
    for (const Function* fn : host_functions_) {
      absl::flat_hash_map<const Expr*, std::string_view> in_composite;
      std::vector<const Expr*> order = PostOrder(fn);
      for (const Expr* e : order) {
        const Call* call = DynCast<Call>(e);
        std::string_view composite = call == nullptr ? "" : CompositeName(call);
        if (composite.empty()) continue;
        PostOrderVisit(Cast<Function>(call->callee())->body(),
                       [&](const Expr* inner) { in_composite.try_emplace(inner, composite); });
      }
      for (size_t b = 0; b < backends_.size(); ++b) {
        absl::flat_hash_set<const Expr*> breaks = RegionBreaks(order, static_cast<int>(b));
        for (const Expr* e : order) {
          if (!IsOp(e)) continue;
          const Call* call = Cast<Call>(e);
          if (b == 0) ++total_ops_;
          auto it = in_composite.find(call);
          std::string reason = it != in_composite.end()
                                   ? fmt::format("in composite {}", it->second)
                                   : HostReason(call, b);
          ++stats_[b].host[{std::string(call->op()->name), reason}];
          if (breaks.contains(call)) ++stats_[b].breaks[std::string(call->op()->name)];
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

  std::string HostReason(const Call* call, size_t b) const {
    const TargetSpec& spec = *backends_[b];
    if (!spec.HasOpRule(call->op())) return "unsupported op";
    OpVerdict verdict = spec.CheckCall(call);
    if (!verdict.accepted()) return fmt::format("failed check: {}", verdict.detail);
    for (size_t other = 0; other < b; ++other) {
      if (backends_[other]->Accepts(call)) {
        return fmt::format("claimed by {}", backends_[other]->name());
      }
    }
    return "supported, kept on the host";
  }

  // Why backend b does not run `call`, which backend `owner` runs.
  std::string ElsewhereReason(const Call* call, size_t b, ptrdiff_t owner) const {
    const TargetSpec& spec = *backends_[b];
    if (!spec.HasOpRule(call->op())) return "unsupported op";
    OpVerdict verdict = spec.CheckCall(call);
    if (!verdict.accepted()) return fmt::format("failed check: {}", verdict.detail);
    const std::string& name = backends_[owner]->name();
    return static_cast<ptrdiff_t>(b) > owner ? fmt::format("claimed by {}", name)
                                             : fmt::format("offloaded to {}", name);
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

  std::string RenderLost() const {
    std::string names;
    for (const TargetSpecPtr& b : backends_) names += (names.empty() ? "" : ",") + b->name();
    return fmt::format(
        "lost to let-bound regions: {} op{} never run ({})\n"
        "  free inputs of @main: {}\n"
        "  TVM v0.16's AnnotateTarget starts a region at a let-bound value and never ends it; "
        "run ToGraphNormalForm first (carve opt FILE -p ToGraphNormalForm | carve partition - "
        "--backend {})\n",
        lost_->total(), lost_->total() == 1 ? "" : "s", lost_->OpsText(),
        lost_->FreeInputsText(), names);
  }

  std::string Render(size_t b) {
    if (b == 0) {
      ClassifyHost();
      if (lost_ != nullptr) {
        total_ops_ += lost_->total();
        for (BackendStats& s : stats_) {
          for (const auto& [name, n] : lost_->ops) {
            s.host[{name, "lost to a let-bound region (never runs)"}] += n;
          }
        }
      }
    }
    const BackendStats& s = stats_[b];
    double share = total_ops_ > 0 ? 100.0 * s.offloaded / total_ops_ : 0;
    std::string out = fmt::format("backend {}: {} of {} ops offloaded ({:.1f}%) in {} region{}\n",
                                  backends_[b]->name(), s.offloaded, total_ops_, share,
                                  s.regions.size(), s.regions.size() == 1 ? "" : "s");
    auto table = [&](const char* title, const std::map<std::string, int>& rows) {
      if (rows.empty()) return;
      out += fmt::format("  {}:\n", title);
      for (const auto& [name, n] : rows) out += fmt::format("    {:<28} {:>6}\n", name, n);
    };
    table("offloaded ops", s.offloaded_ops);
    table("composites", s.composites);
    if (!s.host.empty()) {
      out += "  not offloaded:\n";
      for (const auto& [key, n] : s.host) {
        out += fmt::format("    {:<28} {:>6}  {}\n", key.first, n, key.second);
      }
    }
    if (!s.regions.empty()) {
      out += "  regions:\n";
      for (const RegionInfo& r : s.regions) {
        out += fmt::format("    {}  {} op{}  {} input{}  {} output{}\n", r.name, r.ops,
                           r.ops == 1 ? "" : "s", r.inputs, r.inputs == 1 ? "" : "s", r.outputs,
                           r.outputs == 1 ? "" : "s");
      }
      out += fmt::format("  boundary tensors: {} inputs, {} outputs ({})\n", s.inputs, s.outputs,
                         FormatBytes(s.bytes));
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
  std::vector<BackendStats> stats_;
  std::vector<const Function*> host_functions_;
  absl::flat_hash_map<const GlobalVar*, int> partition_backend_;
  // Every op inside a partition, with the index of its backend.
  std::vector<std::pair<const Call*, ptrdiff_t>> offloaded_calls_;
  int total_ops_ = 0;
};

}  // namespace

std::string LetBoundLoss::OpsText() const {
  std::string out;
  for (const auto& [name, n] : ops) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, n);
  return out;
}

std::string LetBoundLoss::FreeInputsText() const {
  std::string out;
  for (size_t i = 0; i < free_inputs.size() && i < 3; ++i) {
    out += (out.empty() ? "" : ", ") + free_inputs[i];
  }
  if (free_inputs.size() > 3) out += fmt::format(" and {} more", free_inputs.size() - 3);
  return out;
}

int LetBoundLoss::total() const {
  int n = 0;
  for (const auto& [name, count] : ops) n += count;
  return n;
}

std::string RenderPartitionReport(const Module& mod, const std::vector<TargetSpecPtr>& backends,
                                  const LetBoundLoss* lost) {
  return ReportBuilder(mod, backends, lost).Build();
}

}  // namespace carve
