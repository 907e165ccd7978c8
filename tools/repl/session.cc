#include "tools/repl/session.h"

#include <chrono>

#include "backends/partition.h"
#include "backends/specs.h"
#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "grammar/pattern_parser.h"
#include "passes/byoc/target.h"
#include "passes/fold/bind_params.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "passes/rewrite/rewrite_pass.h"
#include "support/cancellation.h"
#include "support/status_macros.h"
#include "tools/cli/cli.h"
#include "tools/cli/load_model.h"
#include "tools/cli/run_inputs.h"

namespace carve::repl {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string TimeText(double seconds) {
  if (seconds < 1) return fmt::format("{:.1f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

}  // namespace

Session::Session(cli::Env& env, SessionOptions options) : env_(env), options_(std::move(options)) {}

absl::Status Session::RequireModule() const {
  if (history_.empty()) return absl::FailedPreconditionError("no module loaded (use `load FILE`)");
  return absl::OkStatus();
}

absl::Status Session::Load(const std::string& path, const std::string& command,
                           const std::map<std::string, std::vector<int64_t>>& shapes) {
  double start = Now();
  // An `.onnx` model is imported as `carve import` does by default (weights
  // frozen into constants, TVM's from_onnx), as `carve viz` and `carve why`
  // read it; Relay text is typed as `carve opt` types it. The importer's own
  // types go first, so that the model is typed as its `carve import` text
  // would be and prints (`print`, `save`) as `carve import` and `carve fmt`
  // print it; Relay text comes untyped, so this changes nothing for it.
  CARVE_ASSIGN_OR_RETURN(Module mod, cli::LoadModelOrText(env_, path, "load", shapes));
  onnx_import::ForgetImportedTypes(mod);
  CARVE_RETURN_IF_ERROR(InferTypeAndAnnotate(mod).status());
  if (!options_.params_dir.empty()) {
    // As `carve run --params`: an .npy that names no parameter is an error,
    // not a weight silently left out.
    if (const Function* main = mod.Lookup("main"); main != nullptr) {
      CARVE_RETURN_IF_ERROR(cli::CheckParamsDir(options_.params_dir, *main));
    }
    std::vector<std::string> args = {"--params", options_.params_dir};
    CARVE_ASSIGN_OR_RETURN(cli::ParsedArgs parsed,
                           cli::ParseArgs(args, {{"--params", true, false, "", ""}}));
    CARVE_ASSIGN_OR_RETURN(ParamMap params, cli::ReadParamsOption(env_, parsed));
    CARVE_RETURN_IF_ERROR(BindParams(mod, params).status());
  }
  Step step{std::move(mod), command, NewCommandId(), "load", true, Now() - start};
  counter_.Clear();
  counter_.Count(step);
  names_.clear();
  history_.Reset(std::move(step));
  out() << StepSummary(0) << "\n";
  return absl::OkStatus();
}

void Session::PushStep(Module mod, const std::string& command, int command_id, std::string pass,
                       bool changed, double seconds) {
  Step step{std::move(mod), command, command_id, std::move(pass), changed, seconds};
  counter_.Count(step);
  names_.resize(history_.current() + 1);  // steps past the current one go
  history_.Push(std::move(step));
  out() << StepSummary(history_.current()) << "\n";
}

RuleFiles Session::rule_files() {
  RuleFileLoader load =
      [this](const std::string& path) -> absl::StatusOr<std::shared_ptr<const PatternLibrary>> {
    CARVE_ASSIGN_OR_RETURN(std::string text, env_.read_file(path));
    CARVE_ASSIGN_OR_RETURN(PatternLibrary library, ParsePatternFile(path, std::move(text)));
    return std::make_shared<const PatternLibrary>(std::move(library));
  };
  return RuleFiles{std::move(load), pattern_files_};
}

absl::Status Session::RunPasses(const std::vector<PassPtr>& passes, const std::string& command) {
  CARVE_RETURN_IF_ERROR(RequireModule());
  EnsureConstantEvaluator();  // FoldConstant computes with the interpreter's kernels
  ScopedRuleFiles rule_files(this->rule_files());
  // One context for the command, so passes hand over what they know
  // (MergeCompilerRegions' region sets to PartitionGraph) as in a pipeline.
  PassContext ctx;
  int id = NewCommandId();
  for (const PassPtr& pass : passes) {
    Module mod = history_.Current().module;  // shares the arena: no copy of nodes
    double start = Now();
    absl::StatusOr<bool> changed = ctx.Run(*pass, mod);
    double seconds = Now() - start;
    if (!changed.ok() && absl::IsCancelled(changed.status())) {
      // The pass's module (`mod`) is dropped: the history stays as it was.
      return absl::CancelledError(fmt::format(
          "{} at step {}", std::string(changed.status().message()), history_.current() + 1));
    }
    CARVE_RETURN_IF_ERROR(CheckCancellation());
    if (!changed.ok()) return changed.status();
    PushStep(std::move(mod), command, id, pass->Describe(), *changed, seconds);
  }
  return absl::OkStatus();
}

std::string Session::StepSummary(size_t index) const {
  const Step& s = history_.at(index);
  std::string timing = show_timing ? "; " + TimeText(s.seconds) : "";
  return fmt::format("step {}: {} ({}; {} function{}, {} nodes, {} ops{})", index, s.pass,
                     index == 0  ? "loaded"
                     : s.changed ? "changed"
                                 : "unchanged",
                     s.functions, s.functions == 1 ? "" : "s", s.nodes, s.ops, timing);
}

absl::Status Session::LoadPatterns(const std::string& path) {
  CARVE_ASSIGN_OR_RETURN(std::string text, env_.read_file(path));
  CARVE_ASSIGN_OR_RETURN(PatternLibrary lib,
                         ParsePatternFile(path == "-" ? "<stdin>" : path, std::move(text)));
  // Registered from the text just read, not by reading `path` again: `-`
  // (standard input) can be read once.
  std::vector<std::string> backends;
  for (const TargetSpecPtr& spec : TargetSpecsOf(lib)) {
    backends.push_back(spec->name());
    TargetRegistry::Global().Register(spec);
  }
  out() << fmt::format("{}: {} pattern{}, {} rule{}, {} backend{}{}{}\n", path,
                       lib.patterns().size(), lib.patterns().size() == 1 ? "" : "s",
                       lib.rules().size(), lib.rules().size() == 1 ? "" : "s", backends.size(),
                       backends.size() == 1 ? "" : "s", backends.empty() ? "" : " ",
                       fmt::join(backends, ", "));
  pattern_files_.push_back(path);
  libraries_.push_back(std::make_shared<const PatternLibrary>(std::move(lib)));
  return absl::OkStatus();
}

const StepText& Session::Text(size_t index) {
  std::shared_ptr<StepText>& slot = history_.at(index).text[show_types ? 1 : 0];
  if (slot == nullptr) {
    PrintOptions options;
    options.show_types = show_types;
    slot = MakeStepText(history_.at(index).module, options);
  }
  return *slot;
}

absl::StatusOr<const NodeNames*> Session::Names(size_t index) {
  if (names_.size() <= index) names_.resize(index + 1);
  if (names_[index] == nullptr) {
    CARVE_ASSIGN_OR_RETURN(NodeNames names, NodeNames::ForModule(history_.at(index).module));
    CARVE_RETURN_IF_ERROR(InferType(names.module()));
    names_[index] = std::make_shared<NodeNames>(std::move(names));
  }
  return names_[index].get();
}

}  // namespace carve::repl
