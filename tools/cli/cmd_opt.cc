// `carve opt` (run a pass pipeline) and `carve partition` (the whole BYOC flow
// for named backends).
#include <memory>
#include <sstream>
#include <string_view>

#include "fmt/format.h"
#include "grammar/pattern_parser.h"
#include "grammar/printer.h"
#include "interpreter/kernel.h"
#include "passes/byoc/annotate_target.h"
#include "passes/fold/bind_params.h"
#include "passes/fold/fold_constant.h"
#include "passes/instruments.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "backends/partition.h"
#include "backends/placement.h"
#include "passes/byoc/partition_graph.h"
#include "passes/byoc/partition_report.h"
#include "passes/pass_gate.h"
#include "passes/pass_registry.h"
#include "passes/rewrite/rewrite_pass.h"
#include "passes/byoc/target.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/run_inputs.h"
#include "tools/cli/shared_options.h"
#include "tools/cli/unknown_name.h"

namespace carve::cli {
namespace {

PrintOptions OutputOptions(const ParsedArgs& args) {
  PrintOptions options;
  options.show_types = args.Has("--types");
  options.meta_attrs = args.Has("--meta-attrs");
  return options;
}

// The instruments the debugging options ask for; `timing` receives the
// timing instrument when --pass-timing is given.
PassContext MakeContext(const ParsedArgs& args, Env& env,
                        std::shared_ptr<TimingInstrument>& timing) {
  PassContext ctx;
  PrintIRInstrument::Options print;
  print.after_all = args.Has("--print-ir-after-all");
  print.after_change = args.Has("--print-ir-after-change");
  print.before = args.GetAll("--print-ir-before");
  if (print.after_all || print.after_change || !print.before.empty()) {
    PrintOptions options = OutputOptions(args);
    ModulePrinter printer = [options](const Module& mod) { return PrintModule(mod, options); };
    ctx.AddInstrument(std::make_shared<PrintIRInstrument>(print, printer, env.err));
  }
  if (args.Has("--verify-each")) ctx.AddInstrument(std::make_shared<VerifyInstrument>());
  if (args.Has("--pass-timing")) {
    timing = std::make_shared<TimingInstrument>();
    ctx.AddInstrument(timing);
  }
  return ctx;
}

// Runs `pipeline` on `mod` with the instruments; prints the timing table on
// stderr when asked for.
absl::Status RunWithInstruments(const Pass& pipeline, Module& mod, const ParsedArgs& args,
                                Env& env,
                                std::vector<std::shared_ptr<PassInstrument>> extra = {}) {
  std::shared_ptr<TimingInstrument> timing;
  PassContext ctx = MakeContext(args, env, timing);
  for (auto& instrument : extra) ctx.AddInstrument(std::move(instrument));
  absl::StatusOr<bool> ran = RunPipeline(pipeline, mod, ctx);
  if (timing != nullptr) *env.err << timing->Render();
  return ran.status();
}

// Streamed in pieces as `carve fmt` does: a partitioned module prints to
// about three times its input's text, which need never be held whole.
int WriteModule(const Module& mod, const ParsedArgs& args, Env& env) {
  PrintOptions options = OutputOptions(args);
  absl::Status written =
      WriteOutputChunks(env, args.GetOr("--output", "-"),
                        [&](const ChunkWriter& write) { PrintModuleTo(mod, options, write); });
  return written.ok() ? kExitOk : ReportError(env, written);
}

// The typed module of the FILE argument, with --params DIR bound to @main's
// parameters (TVM's bind_params_by_name).
absl::StatusOr<Module> LoadModuleWithParams(Env& env, const ParsedArgs& args) {
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadTypedModule(env, args.positional()[0]));
  if (!args.Has("--params")) return mod;
  const Function* main = mod.Lookup("main");
  if (main == nullptr) return absl::InvalidArgumentError("--params: the module has no @main");
  CARVE_RETURN_IF_ERROR(CheckParamsDir(*args.Get("--params"), *main));
  CARVE_ASSIGN_OR_RETURN(ParamMap params, ReadParamsOption(env, args));
  CARVE_RETURN_IF_ERROR(BindParams(mod, params).status());
  return mod;
}

std::string PassList() {
  std::string out = "passes:\n";
  for (const PassInfo* info : PassRegistry::Global().All()) {
    out += fmt::format("  {:<58} {}\n", SignatureText(*info), info->summary);
  }
  return out;
}

// Heap a run needs per byte of input text, at least: what the second
// thread prefaults (support/heap_prefault.h). The BYOC passes rebuild the
// graph several times (peak heap over file size: about 15x for ResNet-like
// graphs, 21x for transformer-like ones; the text itself is mapped, not in
// the heap; an estimate too high costs resident memory, one too low only
// leaves faults); loading alone takes ~3x.
constexpr size_t kPipelineHeapPerInputByte = 15;
constexpr size_t kLoadHeapPerInputByte = 3;

size_t HeapPerInputByte(std::string_view pipeline) {
  for (std::string_view pass :
       {"MergeComposite", "AnnotateTarget", "MergeCompilerRegions", "PartitionGraph"}) {
    if (pipeline.find(pass) != std::string_view::npos) return kPipelineHeapPerInputByte;
  }
  return kLoadHeapPerInputByte;
}

// Every --print-ir-before name must be a registered pass: a misspelt one
// would print nothing and look like a pass that never ran.
absl::Status CheckPrintIrPasses(const ParsedArgs& args) {
  std::vector<std::string> known;
  for (const PassInfo* info : PassRegistry::Global().All()) known.push_back(info->name);
  for (const std::string& name : args.GetAll("--print-ir-before")) {
    if (PassRegistry::Global().Find(name) != nullptr) continue;
    return absl::InvalidArgumentError(UnknownNameMessage("--print-ir-before", name, "pass", known));
  }
  return absl::OkStatus();
}

// The pass context --opt-level / --disabled-pass ask for, starting from
// `base`; nullopt when neither is given.
absl::StatusOr<std::optional<PassGate>> GateFromArgs(const ParsedArgs& args, PassGate base) {
  if (!args.Has("--opt-level") && !args.Has("--disabled-pass")) return std::nullopt;
  if (args.Has("--opt-level")) {
    CARVE_ASSIGN_OR_RETURN(base.opt_level, ParseOptLevel(*args.Get("--opt-level")));
  }
  if (args.Has("--disabled-pass")) {
    CARVE_ASSIGN_OR_RETURN(base.disabled, ParseDisabledPasses(*args.Get("--disabled-pass")));
  }
  return std::optional<PassGate>(std::move(base));
}

std::vector<OptionSpec> GateOptions(std::string_view level_default) {
  return {
      {"--opt-level", true, false, "",
       fmt::format("N: TVM's PassContext opt_level: skip passes registered above N ({})",
                   level_default)},
      {"--disabled-pass", true, false, "",
       "NAME,...: TVM's disabled_pass: never run these passes (replaces the default list; '': none)"},
  };
}

int RunOpt(const ParsedArgs& args, Env& env) {
  if (args.Has("--list-passes")) {
    if (!args.positional().empty()) {
      return UsageError(env, "opt", "--list-passes reads no FILE");
    }
    *env.out << PassList();
    return kExitOk;
  }
  if (args.Has("--replay")) return RunReplay(args, env);  // cmd_repl.cc
  if (args.positional().size() != 1 || !args.Has("--pipeline")) {
    return UsageError(env, "opt", "expected FILE and -p PIPELINE");
  }
  if (absl::Status names = CheckPrintIrPasses(args); !names.ok()) {
    return UsageError(env, "opt", std::string(names.message()));
  }
  // Backends from --patterns first: the pipeline names them.
  if (absl::Status loaded = RegisterPatternFiles(args, env); !loaded.ok()) {
    return ReportError(env, loaded);
  }
  ScopedRuleFiles rule_files(RuleFilesFor(args, env));
  absl::StatusOr<PassPtr> pipeline = ParsePipeline(*args.Get("--pipeline"));
  if (!pipeline.ok()) return ReportPipelineError(env, pipeline.status());
  // Without --opt-level / --disabled-pass every named pass runs, as a TVM
  // pass applied directly does; with them the pipeline is a Sequential in
  // that context (the level starting from TVM's default, 2).
  absl::StatusOr<std::optional<PassGate>> gate = GateFromArgs(args, PassGate{});
  if (!gate.ok()) {
    return UsageError(env, "opt", std::string(gate.status().message()));
  }
  if (gate->has_value()) *pipeline = GatePipeline(*pipeline, **gate);
  EnsureConstantEvaluator();
  if (env.prefault_heap) {
    env.prefault_heap(args.positional()[0], HeapPerInputByte(*args.Get("--pipeline")));
  }
  absl::StatusOr<Module> mod = LoadModuleWithParams(env, args);
  if (!mod.ok()) return ReportError(env, mod.status());
  absl::Status ran = RunWithInstruments(**pipeline, *mod, args, env);
  if (!ran.ok()) return ReportError(env, ran);
  return WriteModule(*mod, args, env);
}

absl::StatusOr<std::vector<TargetSpecPtr>> Backends(const std::string& list) {
  std::vector<TargetSpecPtr> backends;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string name = list.substr(start, comma - start);
    if (!name.empty()) {
      CARVE_ASSIGN_OR_RETURN(TargetSpecPtr spec, TargetRegistry::Global().Get(name));
      backends.push_back(std::move(spec));
    }
    start = comma + 1;
  }
  if (backends.empty()) return absl::InvalidArgumentError("--backend names no backend");
  return backends;
}

int RunPartition(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1 || !args.Has("--backend")) {
    return UsageError(env, "partition", "expected FILE and --backend NAME");
  }
  if (std::string format = args.GetOr("--report", ""); format != "" && format != "text" &&
                                                          format != "json") {
    return UsageError(env, "partition",
                      fmt::format("unknown --report format '{}' (known: text, json)", format));
  }
  if (absl::Status names = CheckPrintIrPasses(args); !names.ok()) {
    return UsageError(env, "partition", std::string(names.message()));
  }
  if (absl::Status loaded = RegisterPatternFiles(args, env); !loaded.ok()) {
    return ReportError(env, loaded);
  }
  // A backend name that names nothing is bad usage, like an unknown option.
  if (absl::Status names = CheckBackendNames(*args.Get("--backend")); !names.ok()) {
    return UsageError(env, "partition", "--backend: " + std::string(names.message()));
  }
  absl::StatusOr<std::vector<TargetSpecPtr>> backends = Backends(*args.Get("--backend"));
  if (!backends.ok()) return ReportError(env, backends.status());
  // The options and the backend's pipeline are checked before the module is
  // read: a bad --opt-level fails at once, not after a large model loaded.
  // The backend's context (BackendDescriptor::gate), or the options'.
  absl::StatusOr<std::optional<PassGate>> gate =
      GateFromArgs(args, DefaultBackendGate(*backends));
  if (!gate.ok()) {
    return UsageError(env, "partition", std::string(gate.status().message()));
  }
  absl::StatusOr<PassPtr> pipeline =
      BackendPipeline(*backends, "default", gate->has_value() ? &**gate : nullptr);
  if (!pipeline.ok()) return ReportError(env, pipeline.status());
  if (env.prefault_heap) env.prefault_heap(args.positional()[0], kPipelineHeapPerInputByte);
  absl::StatusOr<Module> mod = LoadModuleWithParams(env, args);
  if (!mod.ok()) return ReportError(env, mod.status());
  EnsureConstantEvaluator();
  const Module input = *mod;  // for FindLetBoundLoss
  // The module AnnotateTarget judged, for the report's reasons.
  auto annotator_input = std::make_shared<KeepModuleAfter>();
  // What the preparation passes removed, for the report's own section: the
  // watch indexes the whole module after every preparation pass, a cost
  // only a report pays.
  auto prepared = std::make_shared<PreparationWatch>(backends->front()->name());
  std::vector<std::shared_ptr<PassInstrument>> instruments = {annotator_input};
  if (args.Has("--report")) instruments.push_back(prepared);
  absl::Status ran = RunWithInstruments(**pipeline, *mod, args, env, instruments);
  if (!ran.ok()) return ReportError(env, ran);
  // prune_dnnl_subgraphs / prune_tensorrt_subgraphs, as partition_for_<name>,
  // remembering what the pruning sent back for the report.
  absl::StatusOr<PrunedOps> pruned = PruneAndRecord(*mod, *backends);
  if (!pruned.ok()) return ReportError(env, pruned.status());
  // TVM's module, printed as TVM makes it, but not silently: ops that
  // computed let-bound values never run (backends/partition.h).
  absl::StatusOr<std::optional<LetBoundLoss>> lost = FindLetBoundLoss(input, *mod, *backends);
  if (!lost.ok()) return ReportError(env, lost.status());
  if (*lost) *env.err << LetBoundLossWarning(**lost, *args.Get("--backend"));
  if (args.Has("--report")) {
    PlacementRecord record = PlacementRecord::Build(*mod, *backends, &*pruned, annotator_input->kept());
    const LetBoundLoss* loss = *lost ? &**lost : nullptr;
    std::string report = *args.Get("--report") == "json"
                             ? RenderPartitionReportJson(*mod, record, loss, &prepared->result())
                             : RenderPartitionReport(*mod, record, loss, &prepared->result());
    absl::Status written = env.write_file(args.GetOr("--output", "-"), report);
    return written.ok() ? kExitOk : ReportError(env, written);
  }
  return WriteModule(*mod, args, env);
}

std::vector<OptionSpec> DebugOptions() {
  return {
      {"--print-ir-after-all", false, false, "", "print the module after every pass (stderr)"},
      {"--print-ir-after-change", false, false, "", "print the module after passes that change it"},
      {"--print-ir-before", true, true, "", "print the module before every pass named PASS"},
      {"--pass-timing", false, false, "", "print a table of pass times (stderr)"},
      {"--verify-each", false, false, "",
       "type-check and check region acyclicity after every pass"},
  };
}

}  // namespace

void AddPassCommands(std::vector<Command>& commands) {
  // `opt --list-passes` lists the passes and reads no module: every other
  // option is about running a pipeline.
  const std::vector<std::string> run = {"pipeline"};
  // `opt --replay FILE` runs the pipeline recorded in FILE and prints the result.
  const std::vector<std::string> run_or_replay = {"pipeline", "replay"};
  std::vector<OptionSpec> opt_options = {
      {"--pipeline", true, false, "-p", "comma-separated passes, e.g. InferType,MergeComposite(dnnl)",
       run},
      {"--output", true, false, "-o", "write the module to OUT instead of standard output",
       run_or_replay},
      {"--types", false, false, "", "print the inferred `/* ty=... */` comments", run_or_replay},
      {"--meta-attrs", false, false, "",
       "print attrs of ops without a TVM attrs type (compiler_begin/end, cumsum, "
       "vision.*, ...) as meta[relay.attrs.X][i] (TVM's form)",
       run_or_replay},
      {"--list-passes", false, false, "", "list the passes a pipeline can name"},
      {"--patterns", true, true, "",
       "F.pat: load backend specs (replacing built-in ones); its rules are Rewrite's default",
       run_or_replay},
      {"--params", true, false, "", "bind DIR/NAME.npy to the parameter %NAME of @main",
       run_or_replay},
      {"--replay", true, false, "",
       "FILE: replay a `carve repl` reproduction (save --repro) instead of FILE -p PIPELINE",
       {"replay"}},
  };
  for (OptionSpec& o : GateOptions("default: every named pass runs")) {
    o.modes = run;
    opt_options.push_back(std::move(o));
  }
  for (OptionSpec& o : DebugOptions()) {
    o.modes = run;
    opt_options.push_back(std::move(o));
  }
  commands.push_back(Command{"opt",
                             "carve opt FILE -p PIPELINE [--patterns F.pat]... [--params DIR] [-o OUT] "
                             "[--opt-level N] [--disabled-pass NAME,...] "
                             "[--print-ir-after-all] "
                             "[--print-ir-after-change] [--print-ir-before=PASS] [--pass-timing] "
                             "[--verify-each] | carve opt --list-passes",
                             "run a pass pipeline and print the module",
                             opt_options, RunOpt,
                             {{"pipeline", ""}, {"list", "--list-passes"}, {"replay", "--replay"}}});
  commands.back().cancellable = true;
  // `partition --report` prints the report, not the module: the options
  // about printing the module do not apply to it.
  const std::vector<std::string> module_only = {"module"};
  std::vector<OptionSpec> partition_options = {
      {"--backend", true, false, "", "backend name(s), comma-separated, by priority"},
      {"--params", true, false, "", "bind DIR/NAME.npy to the parameter %NAME of @main"},
      {"--report", false, false, "",
       "print the partition report instead of the module; --report=json: as JSON",
       {},
       /*optional_value=*/true},
      {"--patterns", true, true, "", "F.pat: load backend specs (replacing built-in ones)"},
      {"--output", true, false, "-o", "write to OUT instead of standard output"},
      {"--types", false, false, "", "print the inferred `/* ty=... */` comments", module_only},
      {"--meta-attrs", false, false, "",
       "print attrs of ops without a TVM attrs type (compiler_begin/end, cumsum, "
       "vision.*, ...) as meta[relay.attrs.X][i] (TVM's form)",
       module_only},
  };
  for (OptionSpec& o : GateOptions("default: the backend's, see docs/backends.md")) {
    partition_options.push_back(std::move(o));
  }
  for (OptionSpec& o : DebugOptions()) partition_options.push_back(std::move(o));
  commands.push_back(Command{"partition",
                             "carve partition FILE --backend NAME[,NAME...] [--params DIR] "
                             "[--patterns F.pat]... [--opt-level N] [--disabled-pass NAME,...] "
                             "[--report[=json]]",
                             "the whole BYOC flow for the named backend(s), like TVM's "
                             "partition_for_<backend>",
                             partition_options, RunPartition,
                             {{"module", ""}, {"report", "--report"}}});
  commands.back().cancellable = true;
}

}  // namespace carve::cli
