#include "backends/compare.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

#include "backends/json/serializer.h"
#include "backends/partition.h"
#include "backends/runtime/backend_runtime.h"
#include "fmt/format.h"
#include "interpreter/evaluator.h"
#include "passes/infer_type.h"
#include "support/status_macros.h"

namespace carve {
namespace {

struct Tolerance {
  double rtol = 0, atol = 0;
};

// Defaults per dtype: float kernels of different libraries agree to a few
// ulps per accumulated term; integer outputs may differ by one rounding step.
Tolerance DefaultTolerance(DataType dtype) {
  if (dtype == DataType::Float(64)) return {1e-9, 1e-12};
  if (dtype == DataType::Float(16)) return {1e-2, 1e-3};
  if (dtype.is_float()) return {1e-4, 1e-5};
  return {0, 1};
}

Tolerance ToleranceFor(DataType dtype, const CompareOptions& options) {
  Tolerance t = DefaultTolerance(dtype);
  if (options.rtol) t.rtol = *options.rtol;
  if (options.atol) t.atol = *options.atol;
  return t;
}

absl::StatusOr<ErrorStats> Compare(const NDArray& got, const NDArray& ref, const Tolerance& tol) {
  if (got.dtype() != ref.dtype() || got.shape() != ref.shape()) {
    return absl::InternalError(fmt::format("backend result {} does not match the reference {}",
                                           got.dtype().ToString(), ref.dtype().ToString()));
  }
  ErrorStats s;
  s.count = 1;
  // A float element also passes within rtol of the tensor's largest
  // magnitude (a norm-wise check, see the header); integers keep the
  // elementwise test.
  double scale = 0;
  if (ref.dtype().is_float()) {
    for (int64_t i = 0; i < ref.num_elements(); ++i) {
      double b = std::abs(ref.GetAsDouble(i));
      if (std::isfinite(b)) scale = std::max(scale, b);
    }
  }
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double a = got.GetAsDouble(i), b = ref.GetAsDouble(i);
    if (std::isnan(a) != std::isnan(b)) {
      s.within = false;
      s.max_abs = s.max_rel = INFINITY;
      continue;
    }
    if (std::isnan(a) || a == b) continue;
    double abs = std::abs(a - b);
    s.max_abs = std::max(s.max_abs, abs);
    s.max_rel = std::max(s.max_rel, abs / std::max(std::abs(b), 1e-30));
    if (abs > tol.atol + tol.rtol * std::abs(b) && abs > tol.rtol * scale) s.within = false;
  }
  return s;
}

// One composite node run inside an offloaded function.
struct CompositeRun {
  std::string name;
  const Function* composite = nullptr;
  std::vector<Value> args;  // in the composite's parameter order
  NDArray output;
};

// The composite's arguments from the node's inputs (the body's leaves, see
// serializer.h): parameter k is the leaf that is the k-th parameter. A
// parameter the body does not read has no input (MergeComposite makes one
// when a pattern's wildcard matched a node the pattern also matched inside:
// `add(bias_add(%c, %b), %c)` with `%c = conv2d(...)`, as TVM does); it gets
// zeros of its type, which cannot change the result. nullopt when such a
// parameter has no static tensor type.
std::optional<std::vector<Value>> CompositeArgs(const Function* composite,
                                                std::span<const NDArray> inputs) {
  std::vector<const Expr*> leaves = CompositeLeaves(composite);
  std::vector<Value> args(composite->params().size());
  std::vector<bool> bound(args.size(), false);
  for (size_t i = 0; i < leaves.size() && i < inputs.size(); ++i) {
    for (size_t k = 0; k < composite->params().size(); ++k) {
      if (leaves[i] == composite->params()[k]) args[k] = Value(inputs[i]), bound[k] = true;
    }
  }
  for (size_t k = 0; k < args.size(); ++k) {
    if (bound[k]) continue;
    const Var* p = composite->params()[k];
    const auto* t = DynCast<TensorType>(p->checked_type() ? p->checked_type() : p->annotation());
    if (t == nullptr) return std::nullopt;
    std::vector<int64_t> shape;
    for (const Dim& d : t->shape()) {
      if (d.is_any()) return std::nullopt;
      shape.push_back(d.value);
    }
    args[k] = Value(NDArray::Empty(t->dtype(), shape));
  }
  return args;
}

// Records every composite node the backend runtimes execute.
OffloadedNodeObserver RecordComposites(std::vector<CompositeRun>& runs) {
  return [&runs](const OffloadedNodeEvent& e) {
    const Call* call = DynCast<Call>(e.serialized->sources[e.nid]);
    const Function* composite = call != nullptr ? DynCast<Function>(call->callee()) : nullptr;
    if (composite == nullptr || !composite->HasAttr("Composite") || e.outputs.size() != 1) return;
    std::optional<std::vector<Value>> args = CompositeArgs(composite, e.inputs);
    if (!args) return;
    runs.push_back({std::string(composite->GetStringAttr("Composite")), composite,
                    *std::move(args), e.outputs[0]});
  };
}

std::string TypeText(const NDArray& t) {
  std::vector<Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(Dim{d, false});
  return TypeToString(TensorTy(t.dtype(), dims));
}

std::string StatsText(const ErrorStats& s) {
  return fmt::format("max_abs={:.1e} max_rel={:.1e} {}", s.max_abs, s.max_rel,
                     s.within ? "ok" : "FAIL");
}

absl::Status CompareOutputs(std::span<const NDArray> got, std::span<const NDArray> ref,
                            const CompareOptions& options, CompareReport& report) {
  if (got.size() != ref.size()) {
    return absl::InternalError(
        fmt::format("the partitioned module returned {} outputs, the module {}", got.size(),
                    ref.size()));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    CARVE_ASSIGN_OR_RETURN(ErrorStats s,
                           Compare(got[i], ref[i], ToleranceFor(ref[i].dtype(), options)));
    report.ok = report.ok && s.within;
    report.outputs.push_back({TypeText(ref[i]), s});
  }
  return absl::OkStatus();
}

absl::Status CompareComposites(const std::vector<CompositeRun>& runs, Interpreter& reference,
                               const CompareOptions& options, CompareReport& report) {
  std::map<std::string, ErrorStats> by_name;
  for (const CompositeRun& run : runs) {
    CARVE_ASSIGN_OR_RETURN(Value ref, reference.CallReference(run.composite, run.args));
    if (!ref.is_tensor()) continue;
    CARVE_ASSIGN_OR_RETURN(
        ErrorStats s,
        Compare(run.output, ref.tensor(), ToleranceFor(ref.tensor().dtype(), options)));
    by_name[run.name].Merge(s);
  }
  for (const auto& [name, s] : by_name) {
    report.ok = report.ok && s.within;
    report.composites.push_back({name, s});
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> RunMain(const Module& mod,
                                             const std::map<std::string, NDArray>& inputs,
                                             Interpreter& interpreter) {
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return absl::InvalidArgumentError("module has no @main");
  std::vector<NDArray> args;
  for (const Var* p : main->params()) {
    auto it = inputs.find(std::string(p->name()));
    if (it == inputs.end()) {
      return absl::InvalidArgumentError(fmt::format("no input for %{}", p->name()));
    }
    args.push_back(it->second);
  }
  return interpreter.RunFlat("main", args);
}

}  // namespace

void ErrorStats::Merge(const ErrorStats& other) {
  max_abs = std::max(max_abs, other.max_abs);
  max_rel = std::max(max_rel, other.max_rel);
  within = within && other.within;
  count += other.count;
}

absl::StatusOr<CompareReport> CompareWithBackends(const Module& input,
                                                  const std::vector<TargetSpecPtr>& backends,
                                                  const std::map<std::string, NDArray>& inputs,
                                                  const CompareOptions& options) {
  CompareReport report;
  Module mod = input;
  for (const TargetSpecPtr& b : backends) {
    report.backends += (report.backends.empty() ? "" : ",") + b->name();
  }
  BackendPartitionOptions partition_options;
  partition_options.params = options.params;
  CARVE_ASSIGN_OR_RETURN(report.partitioned,
                         PartitionForBackends(mod, backends, partition_options));
  // TVM leaves let-bound region inputs free in @main (AnnotateTarget begins
  // a region at a let value and never ends it), so that module cannot run.
  // The graph-normal form (lets inlined; Relay is pure, so it computes the
  // same) partitions into one that can: compare that, and say so.
  if (!CheckRunnablePartition(report.partitioned).ok()) {
    mod.Add("main", InlineLets(mod.Lookup("main"), mod.arena()));
    CARVE_RETURN_IF_ERROR(InferType(mod));
    CARVE_ASSIGN_OR_RETURN(report.partitioned,
                           PartitionForBackends(mod, backends, partition_options));
    CARVE_RETURN_IF_ERROR(CheckRunnablePartition(report.partitioned));
    report.note =
        "compare: lets left region inputs free in the partitioned @main; comparing its "
        "graph-normal form (lets inlined)\n";
  }
  const Module& partitioned = report.partitioned;

  InterpreterOptions plain;
  plain.external = nullptr;
  Interpreter reference(mod, plain);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> expected, RunMain(mod, inputs, reference));

  std::vector<CompositeRun> runs;
  ExternalRegistry registry;
  for (const TargetSpecPtr& b : backends) {
    std::shared_ptr<const BackendKernels> kernels = BackendRuntimeRegistry::Global().Find(b->name());
    if (kernels == nullptr) {
      return absl::InvalidArgumentError(fmt::format("backend '{}' has no runtime", b->name()));
    }
    BackendRuntimeOptions runtime_options;
    runtime_options.observer = RecordComposites(runs);
    registry.RegisterRuntime(b->name(), MakeBackendRuntime(kernels, runtime_options));
  }
  for (const auto& [gv, fn] : partitioned.Functions()) report.offloaded += fn->HasAttr("Compiler");
  InterpreterOptions external;
  external.external = &registry;
  Interpreter backend(partitioned, external);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> got, RunMain(partitioned, inputs, backend));

  CARVE_RETURN_IF_ERROR(CompareOutputs(got, expected, options, report));
  InterpreterOptions plain_partitioned;
  plain_partitioned.external = nullptr;
  Interpreter composite_reference(partitioned, plain_partitioned);
  CARVE_RETURN_IF_ERROR(CompareComposites(runs, composite_reference, options, report));
  return report;
}

std::string RenderCompareReport(const CompareReport& report) {
  std::string out = fmt::format("compare: {} offloaded function{} for {}\n", report.offloaded,
                                report.offloaded == 1 ? "" : "s", report.backends);
  out += "outputs:\n";
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    out += fmt::format("  out{}  {}  {}\n", i, report.outputs[i].type,
                       StatsText(report.outputs[i].error));
  }
  out += report.composites.empty() ? "composites: none\n" : "composites:\n";
  size_t width = 0;
  for (const CompositeComparison& c : report.composites) width = std::max(width, c.name.size());
  for (const CompositeComparison& c : report.composites) {
    out += fmt::format("  {:<{}}  x{:<3} {}\n", c.name, width, c.error.count, StatsText(c.error));
  }
  return out;
}

}  // namespace carve
