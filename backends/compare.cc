#include "backends/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "backends/json/serializer.h"
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

std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return index;
}

// Orders candidate worst elements: a one-sided NaN first, then by |a - b|.
std::pair<int, double> Badness(double a, double b) {
  if (std::isnan(a) != std::isnan(b)) return {1, 0};
  if (std::isnan(a) || a == b) return {0, 0};
  return {0, std::abs(a - b)};
}

std::pair<int, double> WorstBadness(const ErrorStats& s) {
  return s.has_worst ? Badness(s.worst_got, s.worst_ref) : std::pair<int, double>{-1, 0};
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

// Records every composite node the backend runtimes execute while
// `recording` is set (the first call of @main; repeated ones are timed only).
OffloadedNodeObserver RecordComposites(std::vector<CompositeRun>& runs, const bool& recording) {
  return [&runs, &recording](const OffloadedNodeEvent& e) {
    if (!recording) return;
    const Call* call = DynCast<Call>(e.serialized->sources[e.nid]);
    const Function* composite = call != nullptr ? DynCast<Function>(call->callee()) : nullptr;
    if (composite == nullptr || !composite->HasAttr("Composite") || e.outputs.size() != 1) return;
    std::optional<std::vector<Value>> args = CompositeArgs(composite, e.inputs);
    if (!args) return;
    runs.push_back({std::string(composite->GetStringAttr("Composite")), composite, *std::move(args),
                    e.outputs[0]});
  };
}

// One call of an offloaded (Compiler) function: what its backend runtime
// received and returned on the first call of @main. Deep copies: the host's
// memory plan may reuse the result's buffer afterwards.
struct FunctionRun {
  const Function* function = nullptr;
  std::vector<Value> args;
  Value output;
};

Value DeepCopy(const Value& v) {
  if (v.is_tensor()) return Value(v.tensor().Copy());
  if (!v.is_tuple()) return v;
  std::vector<Value> fields;
  for (const Value& f : v.fields()) fields.push_back(DeepCopy(f));
  return Value::Tuple(std::move(fields));
}

// The tensors of a (nested) tuple value, in order.
void FlattenTensors(const Value& v, std::vector<NDArray>& out) {
  if (v.is_tensor()) out.push_back(v.tensor());
  if (!v.is_tuple()) return;
  for (const Value& f : v.fields()) FlattenTensors(f, out);
}

// `runtime`, recording each call it serves while `recording` is set.
ExternalFn RecordFunctions(ExternalFn runtime, std::vector<FunctionRun>& runs,
                           const bool& recording) {
  return [runtime = std::move(runtime), &runs, &recording](
             const ExternalCall& call) -> absl::StatusOr<Value> {
    absl::StatusOr<Value> result = runtime(call);
    if (result.ok() && recording) {
      FunctionRun run{call.function, {}, DeepCopy(*result)};
      for (const Value& a : call.args) run.args.push_back(DeepCopy(a));
      runs.push_back(std::move(run));
    }
    return result;
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

// NaN without its sign bit (printf's "-nan" depends on how it was made).
std::string ValueText(double v) { return std::isnan(v) ? "nan" : fmt::format("{:.6e}", v); }

std::string IndexText(const std::vector<int64_t>& index) {
  return fmt::format("[{}]", fmt::join(index, ", "));
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

// A float failure whose inputs (`inputs`: the largest value received, by the
// composite or by any composite for an output) dwarf the values compared.
bool LikelyCancellation(const ErrorStats& s, double inputs) {
  return !s.within && s.norm_rule && s.nan_one_side == 0 &&
         inputs > kCancellationRatio * std::max(s.scale, 1e-30);
}

std::string CancellationNote(const ErrorStats& s, double inputs, const char* where) {
  if (!LikelyCancellation(s, inputs)) return "";
  return fmt::format(
      "    note: {} reach {:.1e}, {:.0f} times these values (max|b|={:.1e}): sums of such terms "
      "that cancel keep rounding errors relative to the terms, not to the result, so this can be "
      "float rounding rather than a backend bug; inputs of a realistic size (--input, "
      "--input-dist) tell them apart\n",
      where, inputs, inputs / std::max(s.scale, 1e-30), s.scale);
}

// The lines under an output or composite: counts and worst element, the
// rule, warnings.
std::string DetailText(const ErrorStats& s) {
  std::string out = fmt::format("    {} of {} out of tolerance", s.out_of_tolerance, s.elements);
  if (s.nan_one_side > 0) {
    out += fmt::format(
        " ({} of them NaN on one side only: the reference keeps NaN, oneDNN's "
        "and TVM's relu/clip give a number)",
        s.nan_one_side);
  }
  if (!s.has_worst) {
    out += "; all equal\n";
  } else {
    out += fmt::format("; worst {}{}: {} vs reference {}\n", IndexText(s.worst_index),
                       s.count > 1 ? fmt::format(" in call {}", s.worst_call + 1) : "",
                       ValueText(s.worst_got), ValueText(s.worst_ref));
  }
  out += fmt::format("    rule: |a-b| <= atol + rtol*|b| with rtol={:g} atol={:g}", s.rtol, s.atol);
  if (s.norm_rule) {
    out += fmt::format(
        ", or |a-b| <= rtol*max|b| with max|b|={:.1e} ({} elements within this rule only)",
        s.scale, s.by_norm_rule);
  } else if (s.quantized && s.rtol == 0 && s.atol == 1) {
    // Integer kernels round (requantize) at different points: TVM's qnn
    // tests accept one step (atol=1); --atol 0 asks for exact equality.
    out += " (quantized integers: one rounding step apart allowed, as TVM's qnn tests; "
           "--atol 0 for exact)";
  } else if (s.rtol == 0 && s.atol == 0) {
    out += " (exact)";
  }
  out += "\n";
  if (s.norm_rule && s.max_magnitude > kExplodedMagnitude) {
    out += fmt::format(
        "    warning: values reach {:.1e} (beyond {:.0e}): errors relative to such "
        "values say little; see --input-dist\n",
        s.max_magnitude, kExplodedMagnitude);
  }
  if (s.nonfinite_both > 0) {
    out += fmt::format("    warning: {} element{} inf or NaN on both sides\n", s.nonfinite_both,
                       s.nonfinite_both == 1 ? " is" : "s are");
  }
  return out;
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
    FlattenTensors(run.output, got);
    FlattenTensors(ref, want);
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

}  // namespace

absl::StatusOr<ErrorStats> CompareTensors(const NDArray& got, const NDArray& ref, double rtol,
                                          double atol) {
  if (got.dtype() != ref.dtype() || got.shape() != ref.shape()) {
    return absl::InternalError(fmt::format("backend result {} does not match the reference {}",
                                           TypeText(got), TypeText(ref)));
  }
  ErrorStats s;
  s.count = 1;
  s.rtol = rtol;
  s.atol = atol;
  s.norm_rule = ref.dtype().is_float();
  s.elements = ref.num_elements();
  if (s.norm_rule) {
    for (int64_t i = 0; i < ref.num_elements(); ++i) {
      double b = std::abs(ref.GetAsDouble(i));
      if (std::isfinite(b)) s.scale = std::max(s.scale, b);
    }
  }
  int64_t worst = -1;
  std::pair<int, double> worst_badness{0, 0};
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double a = got.GetAsDouble(i), b = ref.GetAsDouble(i);
    for (double v : {a, b}) {
      if (std::isfinite(v)) s.max_magnitude = std::max(s.max_magnitude, std::abs(v));
    }
    if (!std::isfinite(a) && !std::isfinite(b)) ++s.nonfinite_both;
    std::pair<int, double> badness = Badness(a, b);
    if (badness > worst_badness) worst = i, worst_badness = badness;
    if (std::isnan(a) != std::isnan(b)) {
      s.within = false;
      s.max_abs = s.max_rel = INFINITY;
      ++s.out_of_tolerance;
      ++s.nan_one_side;
      continue;
    }
    if (std::isnan(a) || a == b) continue;
    double abs = std::abs(a - b);
    s.max_abs = std::max(s.max_abs, abs);
    s.max_rel = std::max(s.max_rel, abs / std::max(std::abs(b), 1e-30));
    if (abs <= atol + rtol * std::abs(b)) continue;
    if (s.norm_rule && abs <= rtol * s.scale) {
      ++s.by_norm_rule;
      continue;
    }
    s.within = false;
    ++s.out_of_tolerance;
  }
  if (worst >= 0) {
    s.has_worst = true;
    s.worst_index = Unravel(worst, ref.shape());
    s.worst_got = got.GetAsDouble(worst);
    s.worst_ref = ref.GetAsDouble(worst);
  }
  return s;
}

void ErrorStats::Merge(const ErrorStats& other) {
  if (WorstBadness(other) > WorstBadness(*this)) {
    has_worst = true;
    worst_index = other.worst_index;
    worst_call = count + other.worst_call;
    worst_got = other.worst_got;
    worst_ref = other.worst_ref;
  }
  max_abs = std::max(max_abs, other.max_abs);
  max_rel = std::max(max_rel, other.max_rel);
  within = within && other.within;
  count += other.count;
  rtol = other.rtol;
  atol = other.atol;
  quantized = other.quantized;
  norm_rule = norm_rule || other.norm_rule;
  scale = std::max(scale, other.scale);
  elements += other.elements;
  out_of_tolerance += other.out_of_tolerance;
  by_norm_rule += other.by_norm_rule;
  nan_one_side += other.nan_one_side;
  nonfinite_both += other.nonfinite_both;
  max_magnitude = std::max(max_magnitude, other.max_magnitude);
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
  const double partition_start = NowMicros();
  // With the placement record, for `run --compare --report` (the pruning
  // rules' reasons and every node's verdicts, as `carve partition --report`).
  CARVE_ASSIGN_OR_RETURN(PartitionResult partition,
                         PartitionWithRecord(mod, backends, partition_options));
  report.partitioned = std::move(partition.module);
  report.record = std::move(partition.record);
  report.prepared = std::move(partition.prepared);
  report.partition_us = NowMicros() - partition_start;
  // TVM leaves let-bound region inputs free in @main (AnnotateTarget begins
  // a region at a let value and never ends it), so that module cannot run.
  // The graph-normal form (lets inlined; Relay is pure, so it computes the
  // same) partitions into one that can: compare that, and say so.
  if (!CheckRunnablePartition(report.partitioned).ok()) {
    mod.Add("main", InlineLets(mod.Lookup("main"), mod.arena()));
    CARVE_RETURN_IF_ERROR(InferType(mod));
    CARVE_ASSIGN_OR_RETURN(partition, PartitionWithRecord(mod, backends, partition_options));
    report.partitioned = std::move(partition.module);
    report.record = std::move(partition.record);
    report.prepared = std::move(partition.prepared);
    CARVE_RETURN_IF_ERROR(CheckRunnablePartition(report.partitioned));
    report.note =
        "compare: lets left region inputs free in the partitioned @main; comparing its "
        "graph-normal form (lets inlined)\n";
  }
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
  for (const TargetSpecPtr& b : backends) {
    std::shared_ptr<const BackendKernels> kernels =
        BackendRuntimeRegistry::Global().Find(b->name());
    if (kernels == nullptr) {
      return absl::InvalidArgumentError(fmt::format("backend '{}' has no runtime", b->name()));
    }
    BackendRuntimeOptions runtime_options;
    runtime_options.observer = RecordComposites(runs, recording);
    registry.RegisterRuntime(b->name(), RecordFunctions(MakeBackendRuntime(kernels, runtime_options),
                                                        function_runs, recording));
  }
  // Only the functions of the backends compared count: a function the input
  // was already partitioned into for another target (a file printed after
  // PartitionGraph for the seed demo's byoc_target) has no runtime here and
  // runs on the reference kernels on both sides.
  for (const auto& [gv, fn] : partitioned.Functions()) {
    const std::string_view compiler = fn->GetStringAttr("Compiler");
    report.offloaded += std::ranges::any_of(
        backends, [&](const TargetSpecPtr& b) { return !compiler.empty() && b->name() == compiler; });
  }
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

std::string RenderCompareReport(const CompareReport& report) {
  std::string out = fmt::format("compare: {} offloaded function{} for {}\n", report.offloaded,
                                report.offloaded == 1 ? "" : "s", report.backends);
  if (report.offloaded == 0) {
    out +=
        "compare: nothing offloaded: both runs used the reference kernels, so their "
        "agreement says nothing about the backend\n";
  }
  out += "outputs:\n";
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    out += fmt::format("  out{}  {}  {}\n", i, report.outputs[i].type,
                       StatsText(report.outputs[i].error));
    out += DetailText(report.outputs[i].error);
    out += CancellationNote(report.outputs[i].error, report.inner_magnitude,
                            "values inside the graph (inputs of its composites)");
  }
  if (GrewInHostOps(report)) {
    out += fmt::format(
        "note: each offloaded function call ({}) agrees with the reference kernels on its own "
        "inputs: the difference grew in the host ops after them (float rounding made large by "
        "an ill-conditioned computation, such as a log of a sum that cancels), not in the "
        "backend\n",
        report.function_calls);
  }
  out += report.composites.empty() ? "composites: none\n" : "composites:\n";
  size_t width = 0;
  for (const CompositeComparison& c : report.composites) width = std::max(width, c.name.size());
  for (const CompositeComparison& c : report.composites) {
    out += fmt::format("  {:<{}}  x{:<3} {}\n", c.name, width, c.error.count, StatsText(c.error));
    out += DetailText(c.error);
    out += CancellationNote(c.error, c.input_magnitude, "its inputs");
  }
  return out;
}

bool ComparePassed(const CompareReport& report, bool require_offload) {
  return report.ok && (report.offloaded > 0 || !require_offload);
}

std::string RenderCompareResult(const CompareReport& report, bool require_offload) {
  int warned = 0, cancelling = 0, failed = 0;
  auto count = [&](const ErrorStats& s, double inputs) {
    warned += s.exploded();
    failed += !s.within;
    cancelling += LikelyCancellation(s, inputs);
  };
  for (const OutputComparison& o : report.outputs) count(o.error, report.inner_magnitude);
  for (const CompositeComparison& c : report.composites) count(c.error, c.input_magnitude);
  if (GrewInHostOps(report)) {
    return "result: FAIL: beyond tolerance (the offloaded functions agree with the reference on "
           "their own inputs: see the note)\n";
  }
  if (!report.ok) {
    return cancelling == failed
               ? "result: FAIL: beyond tolerance (each failure may be float rounding of large "
                 "values: see the notes)\n"
               : "result: FAIL: beyond tolerance\n";
  }
  if (report.offloaded > 0) {
    return warned == 0 ? "result: ok\n"
                       : fmt::format("result: ok, but with {} warning{} above: values that large "
                                     "or not finite make the agreement say little\n",
                                     warned, warned == 1 ? "" : "s");
  }
  return require_offload ? "result: FAIL: nothing offloaded (--require-offload)\n"
                         : "result: nothing offloaded\n";
}

}  // namespace carve
