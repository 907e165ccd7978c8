// Commands that make steps: load, pass, partition; and patterns, save.
#include "backends/partition.h"
#include "fmt/format.h"
#include "grammar/printer.h"
#include "passes/pass_registry.h"
#include "passes/rewrite/rewrite_pass.h"
#include "support/status_macros.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/shared_options.h"
#include "tools/repl/commands.h"
#include "tools/repl/repro.h"

namespace carve::repl {
namespace {

// The single argument of `command`, or InvalidArgument with its usage.
absl::StatusOr<std::string> OneArg(std::string_view args, std::string_view usage) {
  std::vector<std::string> words = SplitArgs(args);
  if (words.size() != 1) {
    return absl::InvalidArgumentError(fmt::format("expected one argument: {}", usage));
  }
  return words[0];
}

constexpr std::string_view kLoadUsage = "load FILE [--shape NAME=D1,D2,...]...";

// load FILE [--shape NAME=DIMS]...: the shapes fix an ONNX model's symbolic
// input dimensions, which the importer otherwise asks for. FILE may be
// quoted, or typed with its spaces (SplitPathAndOptions).
absl::Status Load(Session& s, std::string_view args) {
  CARVE_ASSIGN_OR_RETURN(
      PathAndOptions parsed,
      SplitPathAndOptions(args, {{"--shape", true}}, kLoadUsage));
  const std::string& path = parsed.path;
  std::map<std::string, std::vector<int64_t>> shapes;
  const std::vector<std::string>& words = parsed.options;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--shape") {
      CARVE_RETURN_IF_ERROR(cli::ParseShapeOption(words[++i], shapes));
    } else {  // --shape=NAME=DIMS
      CARVE_RETURN_IF_ERROR(cli::ParseShapeOption(std::string_view(words[i]).substr(8), shapes));
    }
  }
  if (path.empty()) return absl::InvalidArgumentError(fmt::format("expected: {}", kLoadUsage));
  CARVE_RETURN_IF_ERROR(s.Load(path, fmt::format("load {}", args), shapes));
  // A reproduction file replays the commands of its header.
  CARVE_ASSIGN_OR_RETURN(std::string text, s.env().read_file(path));
  std::vector<std::string> replay = ReadReplayHeader(text);
  if (replay.empty()) return absl::OkStatus();
  s.out() << fmt::format("replaying {} command{} of {}\n", replay.size(),
                         replay.size() == 1 ? "" : "s", path);
  return Replay(s, replay, path);
}

absl::Status Pass(Session& s, std::string_view args) {
  if (args.empty()) return absl::InvalidArgumentError("expected a pipeline: pass PIPELINE");
  // The pipeline (every pass's arguments) is checked first: a typo is
  // reported as such, with or without a module.
  ScopedRuleFiles rule_files(s.rule_files());  // Rewrite(F.pat) reads F.pat here
  CARVE_ASSIGN_OR_RETURN(PassPtr pipeline, ParsePipeline(args));
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  std::vector<PassPtr> passes = SequenceMembers(*pipeline);
  if (passes.empty()) passes.push_back(pipeline);
  return s.RunPasses(passes, fmt::format("pass {}", args));
}

absl::Status Partition(Session& s, std::string_view args) {
  CARVE_ASSIGN_OR_RETURN(std::string names, OneArg(args, "partition BACKEND[,BACKEND...]"));
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  CARVE_RETURN_IF_ERROR(cli::CheckBackendNames(names));  // the names `carve partition` takes
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends, ResolveBackends(names));
  CARVE_ASSIGN_OR_RETURN(PassPtr pipeline, BackendPipeline(backends));
  std::vector<PassPtr> passes = SequenceMembers(*pipeline);
  if (passes.empty()) passes.push_back(pipeline);
  // The pruning `carve partition` applies after the pipeline, as one more step.
  passes.push_back(MakeModulePass(
      "PruneBackendPartitions", "",
      [backends](Module& mod, PassContext&) { return PruneBackendPartitions(mod, backends); }));
  return s.RunPasses(passes, fmt::format("partition {}", names));
}

absl::Status Patterns(Session& s, std::string_view args) {
  constexpr std::string_view kUsage = "patterns FILE.pat";
  CARVE_ASSIGN_OR_RETURN(PathAndOptions parsed, SplitPathAndOptions(args, {}, kUsage));
  if (parsed.path.empty()) return absl::InvalidArgumentError(fmt::format("expected: {}", kUsage));
  return s.LoadPatterns(parsed.path);
}

absl::Status Save(Session& s, std::string_view args) {
  constexpr std::string_view kUsage = "save [--repro] FILE";
  CARVE_ASSIGN_OR_RETURN(PathAndOptions parsed,
                         SplitPathAndOptions(args, {{"--repro", false}}, kUsage));
  if (parsed.options.size() > 1) {
    return absl::InvalidArgumentError(
        fmt::format("repeated option '--repro' (expected: {})", kUsage));
  }
  const bool repro = !parsed.options.empty();
  const std::string& path = parsed.path;
  if (path.empty()) return absl::InvalidArgumentError(fmt::format("expected a file: {}", kUsage));
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  const History& h = s.history();
  std::string text = repro ? ReproText(s) : PrintModule(h.Current().module);
  CARVE_RETURN_IF_ERROR(s.env().write_file(path, text));
  if (repro) {
    s.out() << fmt::format("saved step 0 and {} command{} to {}\n", ReplayCommands(s).size(),
                           ReplayCommands(s).size() == 1 ? "" : "s", path);
  } else {
    s.out() << fmt::format("saved step {} to {}\n", h.current(), path);
  }
  return absl::OkStatus();
}

}  // namespace

void AddPassCommands(std::vector<ReplCommand>& commands) {
  commands.push_back({"load", "load FILE [--shape NAME=D1,...]...",
                      "load a module as a new step 0 (the history is reset)",
                      "An .onnx model is imported as `carve import` does (weights frozen);\n"
                      "--shape NAME=D1,D2,... fixes the shape of its input NAME (symbolic\n"
                      "dimensions included).\n"
                      "The module is typed, and bound to `--params DIR` when the REPL was\n"
                      "started with it. A file saved with `save --repro` replays its commands.\n",
                      ArgKind::kFile, Load});
  commands.push_back({"pass", "pass PIPELINE",
                      "run passes (`carve opt -p` syntax); one step per pass",
                      "Example: pass MergeComposite(dnnl),AnnotateTarget(dnnl)\n"
                      "Tab completes pass names and shows their arguments.\n",
                      ArgKind::kPipeline, Pass});
  commands.push_back({"partition", "partition BACKEND[,BACKEND...]",
                      "the whole BYOC flow of `carve partition`, one step per pass",
                      "The backend's preparation passes, MergeComposite, AnnotateTarget,\n"
                      "MergeCompilerRegions, PartitionGraph and the backend's pruning.\n",
                      ArgKind::kBackends, Partition});
  commands.push_back({"patterns", "patterns FILE.pat",
                      "load a pattern file (patterns, rules, backends) into the session",
                      "Its backends replace built-in ones of the same name; its patterns\n"
                      "and rules can be named in `match`, `why` and `pass Rewrite`.\n",
                      ArgKind::kFile, Patterns});
  commands.push_back({"save", "save [--repro] FILE", "write the current module",
                      "With --repro: write step 0 with the commands that led to the\n"
                      "current step as a header; `carve opt --replay FILE` and\n"
                      "`carve repl FILE` replay it to the same module.\n",
                      ArgKind::kFile, Save});
}

}  // namespace carve::repl
