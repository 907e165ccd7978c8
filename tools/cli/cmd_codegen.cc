// `carve codegen FILE --backend NAME [-o DIR] [--params DIR] [--patterns F.pat]...`:
// partitions FILE for the backend (unless it already holds functions with
// Compiler=NAME) and serializes every offloaded function in TVM's BYOC JSON
// graph format (backends/json). With -o, writes DIR/<symbol>.json and one
// .npy per constant; without, prints the graphs and a line per constant.
#include <filesystem>
#include <map>
#include <optional>

#include "backends/json/codegen.h"
#include "backends/partition.h"
#include "backends/specs.h"
#include "fmt/format.h"
#include "grammar/printer.h"
#include "interpreter/npy.h"
#include "support/status_macros.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/number_text.h"

namespace carve::cli {
namespace {

bool HasCompiler(const Module& mod, std::string_view backend) {
  for (const auto& [gv, fn] : mod.Functions()) {
    if (fn->GetStringAttr("Compiler") == backend) return true;
  }
  return false;
}

std::string TensorText(const NDArray& t) {
  std::vector<Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(Dim{d, false});
  return TypeToString(TensorTy(t.dtype(), dims));
}

// The graphs as text, each constant as a one-line summary (.npy is binary).
std::string Listing(const std::vector<CodegenArtifact>& artifacts) {
  std::string out;
  for (const CodegenArtifact& a : artifacts) {
    out += fmt::format("// {}.json ({} = @{})\n", a.function.graph.symbol, a.compiler, a.global);
    out += WriteJsonGraph(a.function.graph);
    for (const auto& [name, tensor] : a.function.constants) {
      out += fmt::format("// {}.npy: {}\n", name, TensorText(tensor));
    }
  }
  return out;
}

absl::Status WriteFiles(Env& env, const std::vector<CodegenArtifact>& artifacts,
                        const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(fmt::format("cannot create '{}': {}", dir, ec.message()));
  }
  CARVE_ASSIGN_OR_RETURN(auto files, ArtifactFiles(artifacts));
  for (const auto& [name, bytes] : files) {
    std::string path = (std::filesystem::path(dir) / name).string();
    CARVE_RETURN_IF_ERROR(env.write_file(path, bytes));
  }
  for (const CodegenArtifact& a : artifacts) {
    *env.out << fmt::format("{}: {} nodes, {} constants -> {}\n", a.function.graph.symbol,
                            a.function.graph.nodes.size(), a.function.constants.size(),
                            (std::filesystem::path(dir) / (a.function.graph.symbol + ".json"))
                                .string());
  }
  return absl::OkStatus();
}

// The usage problem of --backend and --seed, if any.
std::optional<std::string> OptionProblem(const ParsedArgs& args, const std::string& backend) {
  if (backend.find(',') != std::string::npos) return "--backend takes one backend";
  if (std::optional<std::string> seed = args.Get("--seed")) {
    if (!ParseUnsignedText(*seed)) {
      return fmt::format("--seed expects an integer from 0 to 2^64-1, got '{}'", *seed);
    }
  }
  return std::nullopt;
}

// Partitions `mod` for `backend` with the bound parameters, unless it
// already holds functions for it. Returns the exit status to stop with.
std::optional<int> PartitionUnlessDone(const ParsedArgs& args, Env& env,
                                       const std::string& backend, Module& mod) {
  if (HasCompiler(mod, backend)) {
    // Already partitioned: nothing is bound, so the options that bind would
    // be ignored.
    for (const char* option : {"--params", "--bind"}) {
      if (!args.Has(option)) continue;
      return UsageError(env, "codegen",
                        fmt::format("{} does not apply: {} already holds functions for '{}' and "
                                    "is not partitioned again",
                                    option, args.positional()[0], backend));
    }
    return std::nullopt;
  }
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return ReportError(env, absl::InvalidArgumentError("module has no @main"));
  BackendPartitionOptions options;
  absl::StatusOr<ParamMap> params = BoundParams(env, args, *main);
  if (!params.ok()) return ReportError(env, params.status());
  options.params = *std::move(params);
  absl::StatusOr<Module> partitioned = PartitionForBackend(std::move(mod), backend, options);
  if (!partitioned.ok()) return ReportError(env, partitioned.status());
  mod = *std::move(partitioned);
  return std::nullopt;
}

// Serializes the functions offloaded to `backend`: files under --output,
// else a listing on standard output.
int EmitArtifacts(const ParsedArgs& args, Env& env, const Module& mod,
                  const std::string& backend) {
  absl::StatusOr<std::vector<CodegenArtifact>> artifacts = CodegenModule(mod, backend);
  if (!artifacts.ok()) return ReportError(env, artifacts.status());
  // Nothing to list or write: without a word, an empty listing or folder
  // looked like a codegen that failed silently.
  if (artifacts->empty()) {
    *env.err << fmt::format(
        "carve codegen: no function is offloaded to '{}': no graph to write (`carve partition "
        "FILE --backend {} --report` says why)\n",
        backend, backend);
  }
  if (std::optional<std::string> dir = args.Get("--output"); dir && *dir != "-") {
    absl::Status written = WriteFiles(env, *artifacts, *dir);
    return written.ok() ? kExitOk : ReportError(env, written);
  }
  *env.out << Listing(*artifacts);
  return kExitOk;
}

int RunCodegen(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1 || !args.Has("--backend")) {
    return UsageError(env, "codegen", "expected FILE and --backend NAME");
  }
  std::string backend = *args.Get("--backend");
  if (std::optional<std::string> problem = OptionProblem(args, backend)) {
    return UsageError(env, "codegen", *problem);
  }
  absl::Status loaded = RegisterPatternFiles(args, env);
  if (!loaded.ok()) return ReportError(env, loaded);
  if (absl::Status names = CheckBackendNames(backend); !names.ok()) {
    return UsageError(env, "codegen", "--backend: " + std::string(names.message()));
  }
  absl::StatusOr<Module> mod = LoadTypedModule(env, args.positional()[0]);
  if (!mod.ok()) return ReportError(env, mod.status());
  if (std::optional<int> stop = PartitionUnlessDone(args, env, backend, *mod)) return *stop;
  if (args.Has("--print-module")) {
    PrintOptions print;
    print.show_metadata = false;
    *env.out << PrintModule(*mod, print) << "\n";
  }
  return EmitArtifacts(args, env, *mod, backend);
}

}  // namespace

void AddCodegenCommands(std::vector<Command>& commands) {
  commands.push_back(Command{
      "codegen",
      "carve codegen FILE --backend NAME [-o DIR] [--params DIR] [--bind NAME,...] "
      "[--patterns F.pat]... [--print-module]",
      "partition and write each offloaded function in the BYOC JSON graph format",
      {{"--backend", true, false, "",
        fmt::format("the backend ({})", fmt::join(BuiltinBackendNames(), ", "))},
       {"--output", true, false, "-o",
        "DIR: write <symbol>.json and <symbol>_const_<k>.npy files (default: print the graphs)"},
       {"--params", true, false, "", "DIR: bind DIR/NAME.npy to the parameter %NAME of @main"},
       {"--bind", true, true, "",
        "NAME[,...]: bind these @main inputs (seeded as `carve run` does) as constants"},
       {"--seed", true, false, "", "seed of the generator for --bind (0)", {"bind"}},
       {"--print-module", false, false, "", "print the partitioned module first"},
       {"--patterns", true, true, "", "F.pat: load backend specs (replacing built-in ones)"}},
      RunCodegen,
      // --seed only seeds the inputs --bind binds.
      {{"default", ""}, {"bind", "--bind"}}});
  // The partition pipeline stops on Ctrl-C; each file is written whole.
  commands.back().cancellable = true;
}

}  // namespace carve::cli
