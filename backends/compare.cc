// The differential run of `run --compare` (CompareWithBackends): partition,
// run both sides, compare outputs, composites and offloaded function calls.
// The rules on one tensor are in compare_tensors.cc, the recording of the
// backend side in compare_recording.cc, the report's text in
// compare_render.cc.
#include "backends/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "backends/compare_internal.h"
#include "backends/compare_recording.h"
#include "backends/placement.h"
#include "backends/partition.h"
#include "backends/runtime/backend_runtime.h"
#include "fmt/format.h"
#include "interpreter/evaluator.h"
#include "ir/op_rules.h"
#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "support/status_macros.h"

namespace carve {
namespace {

using compare_internal::CompositeRun;
using compare_internal::FunctionRun;
using compare_internal::TypeText;

struct Tolerance {
  double rtol = 0, atol = 0;
  bool quantized = false;  // an integer result of QNN ops (see DefaultTolerance)
};

// Defaults per dtype: float kernels of different libraries agree to a few
// ulps per accumulated term. Integers and booleans compare exactly, except
// integers computed by quantized (QNN) ops: kernels requantize (round) at
// different points, and TVM's own qnn tests accept one step (atol=1).
Tolerance DefaultTolerance(DataType dtype, bool quantized) {
  if (dtype.is_bool()) return {0, 0};
  if (dtype == DataType::Float(64)) return {1e-9, 1e-12};
  if (dtype == DataType::Float(16)) return {1e-2, 1e-3};
  if (dtype.is_float()) return {1e-4, 1e-5};
  return {0, quantized ? 1.0 : 0.0, quantized};
}

// Whether calling `fn` runs a QNN op: in its body, in a function nested in
// it (a composite), or in a global function of `mod` it calls, directly or
// not (a model whose @main calls @subgraph_0 quantizes there). Its integer
// results then take the quantized default above.
bool CallsQnnOp(const Module& mod, const Function* fn) {
  std::vector<const Function*> work;
  absl::flat_hash_set<const Function*> seen;
  if (fn != nullptr) work.push_back(fn);
  while (!work.empty()) {
    const Function* f = work.back();
    work.pop_back();
    if (!seen.insert(f).second) continue;
    bool found = false;
    PostOrderVisit(f->body(), [&](const Expr* e) {
      const OpInfo* op = OpOf(e);
      found = found || (op != nullptr && IsQnnOp(*op));
      const GlobalVar* gv = DynCast<GlobalVar>(e);
      const Function* callee = gv != nullptr ? mod.Lookup(gv) : nullptr;
      if (callee != nullptr) work.push_back(callee);
    });
    if (found) return true;
  }
  return false;
}

Tolerance ToleranceFor(DataType dtype, bool quantized, const CompareOptions& options) {
  Tolerance t = DefaultTolerance(dtype, quantized && !dtype.is_float());
  if (options.rtol) t.rtol = *options.rtol;
  if (options.atol) t.atol = *options.atol;
  return t;
}

absl::StatusOr<ErrorStats> Compare(const NDArray& got, const NDArray& ref, const Tolerance& tol) {
  CARVE_ASSIGN_OR_RETURN(ErrorStats s, CompareTensors(got, ref, tol.rtol, tol.atol));
  s.quantized = tol.quantized;
  return s;
}

// Largest finite |value| of a composite's tensor arguments.
double InputMagnitude(const std::vector<Value>& args) {
  double m = 0;
  for (const Value& v : args) {
    if (!v.is_tensor() || !v.tensor().dtype().is_float()) continue;
    for (int64_t i = 0; i < v.tensor().num_elements(); ++i) {
      double x = std::abs(v.tensor().GetAsDouble(i));
      if (std::isfinite(x)) m = std::max(m, x);
    }
  }
  return m;
}

absl::Status CompareOutputs(std::span<const NDArray> got, std::span<const NDArray> ref,
                            bool quantized, const CompareOptions& options,
                            CompareReport& report) {
  if (got.size() != ref.size()) {
    return absl::InternalError(fmt::format(
        "the partitioned module returned {} outputs, the module {}", got.size(), ref.size()));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    CARVE_ASSIGN_OR_RETURN(ErrorStats s,
                           Compare(got[i], ref[i], ToleranceFor(ref[i].dtype(), quantized, options)));
    report.ok = report.ok && s.within;
    report.outputs.push_back({TypeText(ref[i]), s});
  }
  return absl::OkStatus();
}

absl::Status CompareComposites(const Module& partitioned, const std::vector<CompositeRun>& runs,
                               Interpreter& reference,
                               const CompareOptions& options, CompareReport& report) {
  std::map<std::string, ErrorStats> by_name;
  std::map<std::string, double> magnitude;
  for (const CompositeRun& run : runs) {
    CARVE_ASSIGN_OR_RETURN(Value ref, reference.CallReference(run.composite, run.args));
    if (!ref.is_tensor()) continue;
    CARVE_ASSIGN_OR_RETURN(ErrorStats s, Compare(run.output, ref.tensor(),
                                                 ToleranceFor(ref.tensor().dtype(),
                                                              CallsQnnOp(partitioned, run.composite), options)));
    by_name[run.name].Merge(s);
    double& m = magnitude[run.name];
    m = std::max(m, InputMagnitude(run.args));
    report.inner_magnitude = std::max(report.inner_magnitude, m);
  }
  for (const auto& [name, s] : by_name) {
    report.ok = report.ok && s.within;
    report.composites.push_back({name, s, magnitude[name]});
  }
  return absl::OkStatus();
}

// Each offloaded function call against the reference kernels on the same
// arguments: when they all agree but an output of @main does not, the
// difference grew in the host ops after them (float rounding amplified by an
// ill-conditioned computation, such as a log of a sum that cancels), not in
// a backend.
absl::Status CompareFunctions(const Module& partitioned, const std::vector<FunctionRun>& runs,
                              Interpreter& reference, const CompareOptions& options,
                              CompareReport& report) {
  for (const FunctionRun& run : runs) {
    CARVE_ASSIGN_OR_RETURN(Value ref, reference.CallReference(run.function, run.args));
    std::vector<NDArray> got, want;
    compare_internal::FlattenTensors(run.output, got);
    compare_internal::FlattenTensors(ref, want);
    bool agree = got.size() == want.size();
    for (size_t i = 0; agree && i < got.size(); ++i) {
      absl::StatusOr<ErrorStats> s =
          Compare(got[i], want[i],
                  ToleranceFor(want[i].dtype(), CallsQnnOp(partitioned, run.function), options));
      agree = s.ok() && s->within;
    }
    ++report.function_calls;
    report.function_calls_agreeing += agree;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> RunMain(const Module& mod,
                                             const std::map<std::string, NDArray>& inputs,
                                             Interpreter& interpreter, const RepeatOptions& repeat,
                                             CallTiming& timing,
                                             const std::function<void()>& after_first = {}) {
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
  std::optional<std::vector<NDArray>> first;
  CARVE_RETURN_IF_ERROR(TimeCalls(repeat, [&]() -> absl::Status {
    absl::StatusOr<std::vector<NDArray>> out = interpreter.RunFlat("main", args);
    if (!out.ok()) return out.status();
    if (!first) {
      first = *std::move(out);
      if (after_first) after_first();
    }
    return absl::OkStatus();
  }, timing));
  return *std::move(first);
}

// Partitions `mod` for `backends` into report.partitioned (with its
// placement record and what preparation removed). TVM leaves let-bound
// region inputs free in @main (AnnotateTarget begins a region at a let value
// and never ends it), so that module cannot run. The graph-normal form (lets
// inlined; Relay is pure, so it computes the same) partitions into one that
// can: `mod` becomes that form, and the report's note says so.
absl::Status PartitionForCompare(Module& mod, const std::vector<TargetSpecPtr>& backends,
                                 const CompareOptions& options, CompareReport& report) {
  BackendPartitionOptions partition_options;
  partition_options.params = options.params;
  auto take = [&report](PartitionResult partition) {
    report.partitioned = std::move(partition.module);
    report.record = std::move(partition.record);
    report.prepared = std::move(partition.prepared);
  };
  const double partition_start = NowMicros();
  // With the placement record, for `run --compare --report` (the pruning
  // rules' reasons and every node's verdicts, as `carve partition --report`).
  CARVE_ASSIGN_OR_RETURN(PartitionResult partition,
                         PartitionWithRecord(mod, backends, partition_options));
  take(std::move(partition));
  report.partition_us = NowMicros() - partition_start;
  if (CheckRunnablePartition(report.partitioned).ok()) return absl::OkStatus();
  mod.Add("main", InlineLets(mod.Lookup("main"), mod.arena()));
  CARVE_RETURN_IF_ERROR(InferType(mod));
  CARVE_ASSIGN_OR_RETURN(partition, PartitionWithRecord(mod, backends, partition_options));
  take(std::move(partition));
  CARVE_RETURN_IF_ERROR(CheckRunnablePartition(report.partitioned));
  report.note =
      "compare: lets left region inputs free in the partitioned @main; comparing its "
      "graph-normal form (lets inlined)\n";
  return absl::OkStatus();
}

// Registers each backend's runtime in `registry`, recording into `runs` and
// `function_runs` while `recording` is set.
absl::Status RegisterRecordingRuntimes(const std::vector<TargetSpecPtr>& backends,
                                       std::vector<CompositeRun>& runs,
                                       std::vector<FunctionRun>& function_runs,
                                       const bool& recording, ExternalRegistry& registry) {
  for (const TargetSpecPtr& b : backends) {
    std::shared_ptr<const BackendKernels> kernels =
        BackendRuntimeRegistry::Global().Find(b->name());
    if (kernels == nullptr) {
      return absl::InvalidArgumentError(fmt::format("backend '{}' has no runtime", b->name()));
    }
    BackendRuntimeOptions runtime_options;
    runtime_options.observer = compare_internal::RecordComposites(runs, recording);
    registry.RegisterRuntime(
        b->name(), compare_internal::RecordFunctions(MakeBackendRuntime(kernels, runtime_options),
                                                     function_runs, recording));
  }
  return absl::OkStatus();
}

// The functions of `partitioned` for one of `backends`. Only those count: a
// function the input was already partitioned into for another target (a
// file printed after PartitionGraph for the seed demo's byoc_target) has no
// runtime here and runs on the reference kernels on both sides.
size_t CountOffloaded(const Module& partitioned, const std::vector<TargetSpecPtr>& backends) {
  size_t offloaded = 0;
  for (const auto& [gv, fn] : partitioned.Functions()) {
    const std::string_view compiler = fn->GetStringAttr("Compiler");
    offloaded += std::ranges::any_of(
        backends, [&](const TargetSpecPtr& b) { return !compiler.empty() && b->name() == compiler; });
  }
  return offloaded;
}

}  // namespace

absl::StatusOr<CompareReport> CompareWithBackends(const Module& input,
                                                  const std::vector<TargetSpecPtr>& backends,
                                                  const std::map<std::string, NDArray>& inputs,
                                                  const CompareOptions& options) {
  CompareReport report;
  for (const TargetSpecPtr& b : backends) {
    report.backends += (report.backends.empty() ? "" : ",") + b->name();
  }
  Module mod = input;
  CARVE_RETURN_IF_ERROR(PartitionForCompare(mod, backends, options, report));
  const Module& partitioned = report.partitioned;

  InterpreterOptions plain;
  plain.external = nullptr;
  Interpreter reference(mod, plain);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> expected,
                         RunMain(mod, inputs, reference, options.timing, report.reference_timing));

  std::vector<CompositeRun> runs;
  std::vector<FunctionRun> function_runs;
  bool recording = true;
  ExternalRegistry registry;
  CARVE_RETURN_IF_ERROR(
      RegisterRecordingRuntimes(backends, runs, function_runs, recording, registry));
  report.offloaded = CountOffloaded(partitioned, backends);
  InterpreterOptions external;
  external.external = &registry;
  Interpreter backend(partitioned, external);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> got,
                         RunMain(partitioned, inputs, backend, options.timing,
                                 report.backend_timing, [&] { recording = false; }));

  CARVE_RETURN_IF_ERROR(
      CompareOutputs(got, expected, CallsQnnOp(mod, mod.Lookup("main")), options, report));
  InterpreterOptions plain_partitioned;
  plain_partitioned.external = nullptr;
  Interpreter composite_reference(partitioned, plain_partitioned);
  CARVE_RETURN_IF_ERROR(CompareComposites(partitioned, runs, composite_reference, options, report));
  CARVE_RETURN_IF_ERROR(
      CompareFunctions(partitioned, function_runs, composite_reference, options, report));
  return report;
}

bool GrewInHostOps(const CompareReport& report) {
  bool composites_agree = std::ranges::all_of(
      report.composites, [](const CompositeComparison& c) { return c.error.within; });
  return !report.ok && composites_agree && report.function_calls > 0 &&
         report.function_calls_agreeing == report.function_calls;
}

}  // namespace carve
