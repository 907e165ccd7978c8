// The options of cli.h's "shared by codegen and run --compare" functions
// and of shared_options.h. Moved out of cmd_compare.cc: they are option
// handling (which names exist, which files load), not comparison.
#include "tools/cli/shared_options.h"

#include <algorithm>
#include <filesystem>

#include "backends/specs.h"
#include "fmt/format.h"
#include "grammar/pattern_parser.h"
#include "interpreter/npy.h"
#include "support/status_macros.h"
#include "tools/cli/cli.h"
#include "tools/cli/number_text.h"
#include "tools/cli/run_inputs.h"
#include "tools/cli/unknown_name.h"

namespace carve::cli {
namespace {

// The names of every --bind list, in order.
std::vector<std::string> BindNames(const ParsedArgs& args) {
  std::vector<std::string> names;
  for (const std::string& list : args.GetAll("--bind")) {
    for (std::string& name : SplitNameList(list)) names.push_back(std::move(name));
  }
  return names;
}

absl::Status CheckBindNames(const ParsedArgs& args, const Function& main) {
  const std::vector<std::string> known = ParamNames(main);
  for (const std::string& name : BindNames(args)) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return absl::InvalidArgumentError(
        UnknownNameMessage("--bind", name, "parameter of @main", known));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::map<std::string, NDArray>> NamedInputs(const Function& main,
                                                           const ParsedArgs& args, Env& env) {
  CARVE_RETURN_IF_ERROR(CheckBindNames(args, main));
  RunInputOptions options;
  options.read_file = env.read_file;
  options.inputs = args.GetAll("--input");
  options.params_dir = args.GetOr("--params", "");
  // Validated by the command (run, codegen) before it gets here.
  options.seed = std::strtoull(args.GetOr("--seed", "0").c_str(), nullptr, 10);
  options.dist = ParseInputDist(args.GetOr("--input-dist", "uniform")).value_or(InputDist::kUniform);
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> values, PrepareRunInputs(main, options));
  std::map<std::string, NDArray> named;
  for (size_t i = 0; i < values.size(); ++i) named[std::string(main.params()[i]->name())] = values[i];
  return named;
}

ParamMap ParamsToBind(const ParsedArgs& args, const std::map<std::string, NDArray>& inputs,
                      const ParamMap& from_dir) {
  ParamMap params = from_dir;
  for (const std::string& name : BindNames(args)) {
    if (auto it = inputs.find(name); it != inputs.end()) params[name] = it->second;
  }
  return params;
}

absl::Status RegisterPatternFiles(const ParsedArgs& args, Env& env) {
  for (const std::string& path : args.GetAll("--patterns")) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return absl::InvalidArgumentError(fmt::format(
          "--patterns: '{}' is a directory; name the .pat files (e.g. {}/*.pat)", path, path));
    }
    // Through `env`, so that `--patterns -` reads standard input (and a
    // golden file's RUN line its piped text).
    CARVE_ASSIGN_OR_RETURN(std::string text, env.read_file(path));
    CARVE_ASSIGN_OR_RETURN(PatternLibrary library,
                           ParsePatternFile(path == "-" ? "<stdin>" : path, std::move(text)));
    // An empty file (`/dev/null`, a file truncated by an editor) loaded
    // nothing: the option would be accepted and have no effect.
    if (library.backends().empty() && library.patterns().empty() && library.rules().empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "--patterns: '{}' defines no backend, pattern or rule", path == "-" ? "<stdin>" : path));
    }
    for (const TargetSpecPtr& spec : TargetSpecsOf(library)) TargetRegistry::Global().Register(spec);
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
  if (std::optional<std::string> dir = args.Get("--params")) {
    CARVE_RETURN_IF_ERROR(CheckParamsDir(*dir, main));
  }
  CARVE_ASSIGN_OR_RETURN(ParamMap from_dir, ReadParamsOption(env, args));
  if (!args.Has("--bind")) return from_dir;
  CARVE_ASSIGN_OR_RETURN(auto inputs, NamedInputs(main, args, env));
  return ParamsToBind(args, inputs, from_dir);
}

RuleFiles RuleFilesFor(const ParsedArgs& args, Env& env) {
  RuleFileLoader load =
      [&env](const std::string& path) -> absl::StatusOr<std::shared_ptr<const PatternLibrary>> {
    CARVE_ASSIGN_OR_RETURN(std::string text, env.read_file(path));
    CARVE_ASSIGN_OR_RETURN(PatternLibrary library,
                           ParsePatternFile(path == "-" ? "<stdin>" : path, std::move(text)));
    return std::make_shared<const PatternLibrary>(std::move(library));
  };
  return RuleFiles{std::move(load), args.GetAll("--patterns")};
}

absl::Status ParseShapeOption(std::string_view text,
                              std::map<std::string, std::vector<int64_t>>& shapes) {
  size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0) {
    return absl::InvalidArgumentError(
        fmt::format("--shape expects NAME=D1,D2,..., got '{}'", text));
  }
  std::vector<int64_t> dims;
  // "NAME=" leaves no dimensions: a scalar input.
  for (std::string_view rest = text.substr(eq + 1); !rest.empty();) {
    size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    std::optional<int64_t> d = ParseIntegerText(part);
    if (!d || *d < 0) {
      return absl::InvalidArgumentError(fmt::format(
          "--shape {}: '{}' is not a dimension (a non-negative integer)", text, part));
    }
    dims.push_back(*d);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
    // "NAME=1," ends in an empty dimension, not a shorter shape.
    if (rest.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "--shape {}: '' is not a dimension (a non-negative integer)", text));
    }
  }
  // Two shapes for one input: one of them would be ignored.
  if (!shapes.emplace(std::string(text.substr(0, eq)), std::move(dims)).second) {
    return absl::InvalidArgumentError(fmt::format("--shape {}: a shape for '{}' is given twice",
                                                  text, text.substr(0, eq)));
  }
  return absl::OkStatus();
}

}  // namespace carve::cli
