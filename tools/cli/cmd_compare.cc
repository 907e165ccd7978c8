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
#include "tools/cli/module_queries.h"
#include "tools/cli/run_inputs.h"
#include "tools/cli/shared_options.h"

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

struct CompareContext {
  CompareOptions options;
  bool ok = true;
  std::string report;
};

absl::Status RunComparison(const Module& mod, const ParsedArgs& args, Env& env,
                           CompareContext& c) {
  CARVE_RETURN_IF_ERROR(RegisterPatternFiles(args));
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return absl::InvalidArgumentError("module has no @main");
  CARVE_ASSIGN_OR_RETURN(auto inputs, NamedInputs(*main, args));
  CARVE_ASSIGN_OR_RETURN(ParamMap from_dir, ReadParamsOption(env, args));
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends,
                         ResolveBackends(*args.Get("--compare")));
  c.options.params = ParamsToBind(args, inputs, from_dir);
  CARVE_ASSIGN_OR_RETURN(CompareReport report,
                         CompareWithBackends(mod, backends, inputs, c.options));
  c.report += report.note;
  if (args.Has("--report")) c.report += RenderPartitionReport(report.partitioned, backends);
  c.report += RenderCompareReport(report);
  c.ok = report.ok;
  return absl::OkStatus();
}

}  // namespace

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
  CARVE_ASSIGN_OR_RETURN(c.options.rtol, ParseDouble(args, "--rtol"));
  CARVE_ASSIGN_OR_RETURN(c.options.atol, ParseDouble(args, "--atol"));
  CARVE_RETURN_IF_ERROR(RunComparison(mod, args, env, c));
  c.report += fmt::format("result: {}\n", c.ok ? "ok" : "FAIL: beyond tolerance");
  *env.out << c.report;
  return c.ok;
}

}  // namespace carve::cli
