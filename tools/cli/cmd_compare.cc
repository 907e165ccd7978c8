// `carve run FILE --compare BACKEND[,...] [--rtol R] [--atol A]
// [--input-dist D] [--require-offload]`: runs @main as is on the reference
// kernels and partitioned for the backends on their runtimes, and prints the
// errors of every output and of every composite with the rule that applied
// (backends/compare.h). Exits 1 when an error exceeds the tolerance, or with
// --require-offload when nothing was offloaded.
#include <filesystem>
#include <map>
#include <set>

#include "backends/compare.h"
#include "backends/partition.h"
#include "backends/runtime/backend_runtime.h"
#include "backends/specs.h"
#include "fmt/format.h"
#include "interpreter/npy.h"
#include "passes/byoc/partition_report.h"
#include "support/status_macros.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/module_queries.h"
#include "tools/cli/run_inputs.h"
#include "tools/cli/shared_options.h"
#include "tools/cli/number_text.h"

namespace carve::cli {
namespace {

absl::StatusOr<std::optional<double>> ParseDouble(const ParsedArgs& args, const std::string& key) {
  std::optional<std::string> text = args.Get(key);
  if (!text) return std::optional<double>();
  std::optional<double> v = ParseFiniteText(*text);
  if (!v || *v < 0) {
    return absl::InvalidArgumentError(
        fmt::format("{} expects a non-negative number, got '{}'", key, *text));
  }
  return v;
}

struct CompareContext {
  CompareOptions options;
  bool ok = true;
  std::string report;
  std::string result;  // the last line
  double partition_us = 0;
  CallTiming reference_timing, backend_timing;
};

// Where the inputs came from: how many were generated, from which
// distribution and seed (the errors depend on it), and how many were read.
std::string InputsLine(const Function& main, const ParsedArgs& args) {
  std::set<std::string> given;
  for (const std::string& spec : args.GetAll("--input")) {
    std::string name = spec.substr(0, spec.find('='));
    given.insert(name.starts_with('%') ? name.substr(1) : name);
  }
  const std::string dir = args.GetOr("--params", "");
  size_t generated = 0, read = 0;
  for (const Var* p : main.params()) {
    std::string name(p->name());
    std::error_code ec;
    bool from_file =
        given.contains(name) ||
        (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / (name + ".npy"), ec));
    ++(from_file ? read : generated);
  }
  std::string out = "inputs: ";
  if (generated > 0) {
    out += fmt::format(
        "{} generated from {} (seed {})", generated,
        InputDistName(
            ParseInputDist(args.GetOr("--input-dist", "uniform")).value_or(InputDist::kUniform)),
        args.GetOr("--seed", "0"));
  }
  if (read > 0) out += fmt::format("{}{} read from files", generated > 0 ? ", " : "", read);
  if (generated == 0 && read == 0) out += "none";
  return out + "\n";
}

absl::Status RunComparison(const Module& mod, const ParsedArgs& args, Env& env,
                           CompareContext& c) {
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return absl::InvalidArgumentError("module has no @main");
  CARVE_ASSIGN_OR_RETURN(auto inputs, NamedInputs(*main, args, env));
  CARVE_ASSIGN_OR_RETURN(ParamMap from_dir, ReadParamsOption(env, args));
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends,
                         ResolveBackends(*args.Get("--compare")));
  c.options.params = ParamsToBind(args, inputs, from_dir);
  CARVE_ASSIGN_OR_RETURN(CompareReport report,
                         CompareWithBackends(mod, backends, inputs, c.options));
  if (env.on_compare_report) env.on_compare_report(report);
  c.report += InputsLine(*main, args);
  c.report += report.note;
  if (args.Has("--report")) c.report += RenderPartitionReport(report.partitioned, report.record, nullptr, &report.prepared);
  c.report += RenderCompareReport(report);
  const bool require_offload = args.Has("--require-offload");
  c.ok = ComparePassed(report, require_offload);
  c.partition_us = report.partition_us;
  c.reference_timing = report.reference_timing;
  c.backend_timing = report.backend_timing;
  c.result = RenderCompareResult(report, require_offload);
  return absl::OkStatus();
}

}  // namespace

int RunCompare(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1) {
    return UsageError(env, "run", "expected exactly one FILE");
  }
  for (const char* key : {"--rtol", "--atol"}) {
    if (absl::StatusOr<std::optional<double>> v = ParseDouble(args, key); !v.ok()) {
      return UsageError(env, "run", std::string(v.status().message()));
    }
  }
  // The pattern files first: they may define the backends --compare names,
  // and an unknown name is bad usage, reported before the module is read.
  if (absl::Status loaded = RegisterPatternFiles(args, env); !loaded.ok()) {
    return ReportError(env, loaded);
  }
  if (absl::Status names = CheckBackendNames(*args.Get("--compare")); !names.ok()) {
    return UsageError(env, "run", "--compare: " + std::string(names.message()));
  }
  const double load_start = NowMicros();
  absl::StatusOr<Module> mod = LoadTypedModule(env, args.positional()[0]);
  if (!mod.ok()) return ReportError(env, mod.status());
  if (args.Has("--repeat")) {
    *env.err << fmt::format("load_us: {:.1f}\n", NowMicros() - load_start);
  }
  absl::StatusOr<bool> within = CompareModule(*mod, args, env);
  if (!within.ok()) return ReportError(env, within.status());
  return *within ? kExitOk : kExitUserError;
}

absl::StatusOr<bool> CompareModule(const Module& mod, const ParsedArgs& args, Env& env) {
  CompareContext c;
  CARVE_ASSIGN_OR_RETURN(c.options.rtol, ParseDouble(args, "--rtol"));
  CARVE_ASSIGN_OR_RETURN(c.options.atol, ParseDouble(args, "--atol"));
  if (!ParseInputDist(args.GetOr("--input-dist", "uniform"))) {
    return absl::InvalidArgumentError(fmt::format(
        "--input-dist expects uniform, normal or ones, got '{}'", *args.Get("--input-dist")));
  }
  CARVE_ASSIGN_OR_RETURN(c.options.timing, ParseRepeatOptions(args));
  // `--threads` does not apply here: every library runs on one thread.
  SetBackendThreads(1);
  CARVE_RETURN_IF_ERROR(RunComparison(mod, args, env, c));
  c.report += c.result;
  *env.out << c.report;
  if (c.options.timing.repeat > 0) {
    // Timings vary from run to run: stderr, beside the deterministic report.
    *env.err << fmt::format("partition_us: {:.1f}\n", c.partition_us)
             << FormatCallTiming("reference_", c.reference_timing)
             << FormatCallTiming("partitioned_", c.backend_timing);
  }
  return c.ok;
}

}  // namespace carve::cli
