// `carve run FILE --compare BACKEND[,...] [--rtol R] [--atol A]`: runs @main as
// is on the reference kernels and partitioned for the backends on their
// runtimes, and prints the largest absolute and relative error of every
// output and of every composite (backends/compare.h). Exits 1 when an error
// exceeds the tolerance.
#include <filesystem>
#include <map>

#include "backends/compare.h"
#include "backends/partition.h"
#include "backends/specs.h"
#include "passes/partition_report.h"
#include "fmt/format.h"
#include "interpreter/npy.h"
#include "support/status_macros.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/run_inputs.h"

namespace carve::cli {
namespace {

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
  CompareOptions options;
  bool ok = true;
  std::string report;
};

absl::Status RunComparison(const ParsedArgs& args, Env& env, CompareContext& c) {
  CARVE_RETURN_IF_ERROR(RegisterPatternFiles(args));
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadTypedModule(env, args.positional()[0]));
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return absl::InvalidArgumentError("module has no @main");
  CARVE_ASSIGN_OR_RETURN(auto inputs, NamedInputs(*main, args));
  CARVE_ASSIGN_OR_RETURN(ParamMap from_dir, ReadParamsOption(env, args));
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends,
                         ResolveBackends(*args.Get("--compare")));
  c.options.params = ParamsToBind(args, inputs, from_dir);
  CARVE_ASSIGN_OR_RETURN(CompareReport report,
                         CompareWithBackends(mod, backends, inputs, c.options));
  if (args.Has("--report")) c.report += RenderPartitionReport(report.partitioned, backends);
  c.report += RenderCompareReport(report);
  c.ok = report.ok;
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
  CompareContext c;
  absl::StatusOr<std::optional<double>> rtol = ParseDouble(args, "--rtol");
  absl::StatusOr<std::optional<double>> atol = ParseDouble(args, "--atol");
  if (!rtol.ok() || !atol.ok()) {
    *env.err << fmt::format("carve run: {}\n",
                            std::string((!rtol.ok() ? rtol.status() : atol.status()).message()));
    return kExitUsage;
  }
  c.options.rtol = *rtol;
  c.options.atol = *atol;
  absl::Status s = RunComparison(args, env, c);
  if (!s.ok()) return ReportError(env, s);
  c.report += fmt::format("result: {}\n", c.ok ? "ok" : "FAIL: beyond tolerance");
  *env.out << c.report;
  return c.ok ? kExitOk : kExitUserError;
}

}  // namespace carve::cli
