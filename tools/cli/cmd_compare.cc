// `carve run FILE --compare BACKEND[,...] [--rtol R] [--atol A]`: runs @main as
// is on the reference kernels and partitioned for the backends on their
// runtimes (backends/runtime: the JSON codegen's graphs on oneDNN or the
// fused Eigen kernels), and prints the largest absolute and relative error
// of every output and of every composite. Each composite is compared on the
// inputs it actually received: the backend kernel's output against the
// composite's Relay body run on the reference kernels. Exits 1 when an error
// exceeds the tolerance (numpy's allclose: |x - ref| <= atol + rtol * |ref|,
// or for floats |x - ref| <= rtol * max|ref|, see Compare).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "backends/json/serializer.h"
#include "backends/partition.h"
#include "backends/runtime/backend_runtime.h"
#include "backends/specs.h"
#include "passes/partition_report.h"
#include "fmt/format.h"
#include "interpreter/evaluator.h"
#include "interpreter/npy.h"
#include "support/status_macros.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/module_queries.h"
#include "tools/cli/run_inputs.h"

namespace carve::cli {
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

struct ErrorStats {
  double max_abs = 0, max_rel = 0;
  bool within = true;
  int64_t count = 0;  // comparisons merged in

  void Merge(const ErrorStats& o) {
    max_abs = std::max(max_abs, o.max_abs);
    max_rel = std::max(max_rel, o.max_rel);
    within = within && o.within;
    count += o.count;
  }
};

absl::StatusOr<ErrorStats> Compare(const NDArray& got, const NDArray& ref, const Tolerance& tol) {
  if (got.dtype() != ref.dtype() || got.shape() != ref.shape()) {
    return absl::InternalError(fmt::format("backend result {} does not match the reference {}",
                                           got.dtype().ToString(), ref.dtype().ToString()));
  }
  ErrorStats s;
  s.count = 1;
  // Float results of reductions (conv, dense, pools) round in proportion to
  // their terms, not to the result: an element that cancels to near zero
  // carries the rounding of its large terms. So a float element also passes
  // within rtol of the tensor's largest magnitude (a norm-wise check);
  // integers keep the elementwise test.
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

Tolerance ToleranceFor(DataType dtype, const std::optional<double>& rtol,
                       const std::optional<double>& atol) {
  Tolerance t = DefaultTolerance(dtype);
  if (rtol) t.rtol = *rtol;
  if (atol) t.atol = *atol;
  return t;
}

// One composite node run inside an offloaded function.
struct CompositeRun {
  std::string name;
  const Function* composite = nullptr;
  std::vector<Value> args;  // in the composite's parameter order
  NDArray output;
};

// The composite's arguments from the node's inputs (the body's leaves, see
// serializer.h): parameter k is the leaf that is the k-th parameter.
std::vector<Value> CompositeArgs(const Function* composite, std::span<const NDArray> inputs) {
  std::vector<const Expr*> leaves = CompositeLeaves(composite);
  std::vector<Value> args(composite->params().size());
  for (size_t i = 0; i < leaves.size() && i < inputs.size(); ++i) {
    for (size_t k = 0; k < composite->params().size(); ++k) {
      if (leaves[i] == composite->params()[k]) args[k] = Value(inputs[i]);
    }
  }
  return args;
}

// Records every composite node the backend runtimes execute.
OffloadedNodeObserver RecordComposites(std::vector<CompositeRun>& runs) {
  return [&runs](const OffloadedNodeEvent& e) {
    const Call* call = DynCast<Call>(e.serialized->sources[e.nid]);
    const Function* composite = call != nullptr ? DynCast<Function>(call->callee()) : nullptr;
    if (composite == nullptr || !composite->HasAttr("Composite") || e.outputs.size() != 1) return;
    runs.push_back({std::string(composite->GetStringAttr("Composite")), composite,
                    CompositeArgs(composite, e.inputs), e.outputs[0]});
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

absl::StatusOr<std::optional<double>> ParseDouble(const ParsedArgs& args, const std::string& key) {
  std::optional<std::string> text = args.Get(key);
  if (!text) return std::optional<double>();
  char* end = nullptr;
  double v = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || v < 0) {
    return absl::InvalidArgumentError(fmt::format("{} expects a non-negative number", key));
  }
  return std::optional<double>(v);
}

// The inputs of `main` by parameter name, as `carve run` prepares them.
absl::StatusOr<std::map<std::string, NDArray>> NamedInputs(const Function& main,
                                                           const ParsedArgs& args) {
  RunInputOptions options;
  options.inputs = args.GetAll("--input");
  options.params_dir = args.GetOr("--params", "");
  options.seed = std::strtoull(args.GetOr("--seed", "0").c_str(), nullptr, 10);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> values, PrepareRunInputs(main, options));
  std::map<std::string, NDArray> named;
  for (size_t i = 0; i < values.size(); ++i) named[std::string(main.params()[i]->name())] = values[i];
  return named;
}

// TVM's `partition_for_<backend>(mod, params)`: --params DIR and the inputs
// named by --bind are bound as constants before partitioning.
ParamMap ParamsToBind(const ParsedArgs& args, const std::map<std::string, NDArray>& inputs,
                      const ParamMap& from_dir) {
  ParamMap params = from_dir;
  for (const std::string& list : args.GetAll("--bind")) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = std::min(list.find(',', start), list.size());
      std::string name = list.substr(start, comma - start);
      if (auto it = inputs.find(name); it != inputs.end()) params[name] = it->second;
      start = comma + 1;
    }
  }
  return params;
}

struct CompareContext {
  std::optional<double> rtol, atol;
  bool ok = true;
  std::string report;
};

absl::Status CompareOutputs(std::span<const NDArray> got, std::span<const NDArray> ref,
                            CompareContext& c) {
  c.report += "outputs:\n";
  if (got.size() != ref.size()) {
    return absl::InternalError(
        fmt::format("the partitioned module returned {} outputs, the module {}", got.size(),
                    ref.size()));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    CARVE_ASSIGN_OR_RETURN(ErrorStats s, Compare(got[i], ref[i],
                                                 ToleranceFor(ref[i].dtype(), c.rtol, c.atol)));
    c.ok = c.ok && s.within;
    c.report += fmt::format("  out{}  {}  {}\n", i, TypeText(ref[i]), StatsText(s));
  }
  return absl::OkStatus();
}

absl::Status CompareComposites(const std::vector<CompositeRun>& runs, Interpreter& reference,
                               CompareContext& c) {
  std::map<std::string, ErrorStats> by_name;
  for (const CompositeRun& run : runs) {
    CARVE_ASSIGN_OR_RETURN(Value ref, reference.CallReference(run.composite, run.args));
    if (!ref.is_tensor()) continue;
    CARVE_ASSIGN_OR_RETURN(ErrorStats s, Compare(run.output, ref.tensor(),
                                                 ToleranceFor(ref.tensor().dtype(), c.rtol, c.atol)));
    by_name[run.name].Merge(s);
  }
  c.report += by_name.empty() ? "composites: none\n" : "composites:\n";
  size_t width = 0;
  for (const auto& [name, s] : by_name) width = std::max(width, name.size());
  for (const auto& [name, s] : by_name) {
    c.ok = c.ok && s.within;
    c.report += fmt::format("  {:<{}}  x{:<3} {}\n", name, width, s.count, StatsText(s));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NDArray>> Flat(const Function& main,
                                          const std::map<std::string, NDArray>& inputs,
                                          Interpreter& interpreter) {
  std::vector<NDArray> args;
  for (const Var* p : main.params()) {
    auto it = inputs.find(std::string(p->name()));
    if (it == inputs.end()) {
      return absl::InternalError(fmt::format("no input for %{}", p->name()));
    }
    args.push_back(it->second);
  }
  return interpreter.RunFlat("main", args);
}

absl::Status RunComparison(const Module& mod, const ParsedArgs& args, Env& env,
                           CompareContext& c) {
  CARVE_RETURN_IF_ERROR(RegisterPatternFiles(args));
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return absl::InvalidArgumentError("module has no @main");
  CARVE_ASSIGN_OR_RETURN(auto inputs, NamedInputs(*main, args));
  CARVE_ASSIGN_OR_RETURN(ParamMap from_dir, ReadParamsOption(env, args));
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends,
                         ResolveBackends(*args.Get("--compare")));
  BackendPartitionOptions options;
  options.params = ParamsToBind(args, inputs, from_dir);
  CARVE_ASSIGN_OR_RETURN(Module partitioned, PartitionForBackends(mod, backends, options));
  if (args.Has("--report")) c.report += RenderPartitionReport(partitioned, backends);
  // TVM leaves let-bound region inputs free in @main: say so instead of
  // failing on an unbound variable while running it.
  CARVE_RETURN_IF_ERROR(CheckRunnablePartition(partitioned));

  InterpreterOptions plain;
  plain.external = nullptr;
  Interpreter reference(mod, plain);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> expected, Flat(*main, inputs, reference));

  std::vector<CompositeRun> runs;
  ExternalRegistry registry;
  size_t offloaded = 0;
  for (const TargetSpecPtr& b : backends) {
    std::shared_ptr<const BackendKernels> kernels = BackendRuntimeRegistry::Global().Find(b->name());
    if (kernels == nullptr) {
      return absl::InvalidArgumentError(fmt::format("backend '{}' has no runtime", b->name()));
    }
    BackendRuntimeOptions runtime_options;
    runtime_options.observer = RecordComposites(runs);
    registry.RegisterRuntime(b->name(), MakeBackendRuntime(kernels, runtime_options));
  }
  for (const auto& [gv, fn] : partitioned.Functions()) offloaded += fn->HasAttr("Compiler");
  InterpreterOptions external;
  external.external = &registry;
  Interpreter backend(partitioned, external);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> got,
                         Flat(*partitioned.Lookup("main"), inputs, backend));

  c.report += fmt::format("compare: {} offloaded function{} for {}\n", offloaded,
                          offloaded == 1 ? "" : "s", *args.Get("--compare"));
  CARVE_RETURN_IF_ERROR(CompareOutputs(got, expected, c));
  InterpreterOptions plain_partitioned;
  plain_partitioned.external = nullptr;
  Interpreter composite_reference(partitioned, plain_partitioned);
  CARVE_RETURN_IF_ERROR(CompareComposites(runs, composite_reference, c));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterPatternFiles(const ParsedArgs& args) {
  for (const std::string& path : args.GetAll("--patterns")) {
    CARVE_RETURN_IF_ERROR(RegisterBackendFile(path, TargetRegistry::Global()).status());
  }
  return absl::OkStatus();
}

absl::StatusOr<ParamMap> ReadParamsOption(Env& env, const ParsedArgs& args) {
  ParamMap params;
  std::optional<std::string> dir = args.Get("--params");
  if (!dir) return params;
  std::error_code ec;
  std::filesystem::directory_iterator it(*dir, ec);
  if (ec) {
    return absl::NotFoundError(fmt::format("cannot list parameters in '{}': {}", *dir, ec.message()));
  }
  for (const auto& entry : it) {
    if (entry.path().extension() != ".npy") continue;
    CARVE_ASSIGN_OR_RETURN(std::string bytes, env.read_file(entry.path().string()));
    absl::StatusOr<NDArray> array = ParseNpy(bytes);
    if (!array.ok()) {
      return absl::InvalidArgumentError(fmt::format("{}: {}", entry.path().string(),
                                                    std::string(array.status().message())));
    }
    params.emplace(entry.path().stem().string(), *std::move(array));
  }
  return params;
}

absl::StatusOr<ParamMap> BoundParams(Env& env, const ParsedArgs& args, const Function& main) {
  CARVE_ASSIGN_OR_RETURN(ParamMap from_dir, ReadParamsOption(env, args));
  if (!args.Has("--bind")) return from_dir;
  CARVE_ASSIGN_OR_RETURN(auto inputs, NamedInputs(main, args));
  return ParamsToBind(args, inputs, from_dir);
}

int RunCompare(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1) {
    *env.err << "carve run: expected exactly one FILE\n";
    return kExitUsage;
  }
  for (const char* key : {"--rtol", "--atol"}) {
    if (absl::StatusOr<std::optional<double>> v = ParseDouble(args, key); !v.ok()) {
      *env.err << fmt::format("carve run: {}\n", std::string(v.status().message()));
      return kExitUsage;
    }
  }
  absl::StatusOr<Module> mod = LoadTypedModule(env, args.positional()[0]);
  if (!mod.ok()) return ReportError(env, mod.status());
  absl::StatusOr<bool> within = CompareModule(*mod, args, env);
  if (!within.ok()) return ReportError(env, within.status());
  return *within ? kExitOk : kExitUserError;
}

absl::StatusOr<bool> CompareModule(const Module& mod, const ParsedArgs& args, Env& env) {
  CompareContext c;
  CARVE_ASSIGN_OR_RETURN(c.rtol, ParseDouble(args, "--rtol"));
  CARVE_ASSIGN_OR_RETURN(c.atol, ParseDouble(args, "--atol"));
  CARVE_RETURN_IF_ERROR(RunComparison(mod, args, env, c));
  c.report += fmt::format("result: {}\n", c.ok ? "ok" : "FAIL: beyond tolerance");
  *env.out << c.report;
  return c.ok;
}

}  // namespace carve::cli
