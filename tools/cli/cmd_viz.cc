// `carve viz FILE [--backend NAME[,...] | -p PIPELINE] [--format F] -o OUT`:
// a picture of the (partitioned) graph. See docs/visualize.md.
#include <filesystem>
#include <optional>
#include <string>

#include "backends/partition.h"
#include "backends/placement.h"
#include "fmt/format.h"
#include "grammar/pattern_node_names.h"
#include "interpreter/kernel.h"
#include "passes/fold/fold_constant.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "passes/pass_registry.h"
#include "support/cancellation.h"
#include "support/status_macros.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/cli.h"
#include "tools/cli/cmd_viz.h"
#include "tools/cli/load.h"
#include "tools/cli/load_model.h"
#include "tools/cli/shared_options.h"
#include "tools/cli/viz_graph.h"
#include "tools/cli/viz_writers.h"

namespace carve::cli {

std::string VizFormatOfPath(const std::string& out) {
  for (const char* ext : {"svg", "html", "dot"}) {
    if (out.ends_with(std::string(".") + ext)) return ext;
  }
  if (out.ends_with(".gv")) return "dot";
  if (out.ends_with(".txt")) return "term";
  return "";
}

// Graphviz's layout grows faster than the graph (a 5,000-op chain takes
// 2.5 s, 10,000 ops 10 s) and recurses on deep graphs: above this many
// nodes SVG and HTML are refused rather than left to run for hours.
namespace {

constexpr size_t kGraphvizMaxNodes = 5000;

absl::Status CheckLayoutSize(const viz::Graph& graph) {
  if (graph.nodes.size() <= kGraphvizMaxNodes) return absl::OkStatus();
  std::string what = graph.summary ? fmt::format("the region summary still has {} boxes",
                                                 graph.nodes.size())
                                   : fmt::format("{} nodes", graph.nodes.size());
  return absl::ResourceExhaustedError(fmt::format(
      "{}: more than Graphviz lays out in reasonable time ({} for svg and html); draw a part "
      "with --around %N --depth K{}, or write --format dot or term",
      what, kGraphvizMaxNodes, graph.summary ? "" : ", lower --max-nodes for the summary"));
}

}  // namespace

absl::StatusOr<std::string> RenderViz(const viz::Graph& graph, const std::string& format) {
  if (format == "term") return viz::WriteTerm(graph);
  std::string dot = viz::WriteDot(graph);
  if (format == "dot") return dot;
  CARVE_RETURN_IF_ERROR(CheckLayoutSize(graph));
  CARVE_ASSIGN_OR_RETURN(std::string svg, viz::DotToSvg(dot));
  if (format == "svg") return svg;
  return viz::WriteHtml(graph, svg);
}

namespace {

// The format named by --format, else by the extension of -o, else DOT; ""
// when -o has an extension carve does not write (`-o graph.png` would get
// DOT text under a PNG name).
std::string FormatOf(const ParsedArgs& args) {
  if (auto f = args.Get("--format")) return *f;
  std::string out = args.GetOr("--output", "-");
  std::string format = VizFormatOfPath(out);
  if (!format.empty()) return format;
  if (out != "-" && std::filesystem::path(out).has_extension()) return "";
  return "dot";
}

// What `--backend` learned besides the partitioned module.
struct Placed {
  std::vector<TargetSpecPtr> backends;
  std::optional<PlacementRecord> record;
  PreparedAway prepared;
  std::optional<LetBoundLoss> lost;  // ops that never run, as `partition` warns
};

// `pipeline` is -p PIPELINE, parsed before FILE is loaded (null: none).
absl::StatusOr<Module> Transform(Module mod, const ParsedArgs& args, Env& env,
                                 const PassPtr& pipeline, Placed& placed) {
  if (auto names = args.Get("--backend")) {
    CARVE_ASSIGN_OR_RETURN(placed.backends, ResolveBackends(*names));
    EnsureConstantEvaluator();
    const Module input = mod;  // for FindLetBoundLoss
    CARVE_ASSIGN_OR_RETURN(PartitionResult result,
                           PartitionWithRecord(std::move(mod), placed.backends));
    CARVE_ASSIGN_OR_RETURN(placed.lost, FindLetBoundLoss(input, result.module, placed.backends));
    if (placed.lost) *env.err << LetBoundLossWarning(*placed.lost, *names);
    placed.record = std::move(result.record);
    placed.prepared = std::move(result.prepared);
    return std::move(result.module);
  }
  if (pipeline != nullptr) {
    EnsureConstantEvaluator();
    PassContext ctx;
    CARVE_RETURN_IF_ERROR(RunPipeline(*pipeline, mod, ctx).status());
  }
  return mod;
}

absl::Status Interrupted(const char* where) {
  if (!CancellationRequested()) return absl::OkStatus();
  return absl::CancelledError(fmt::format("interrupted: {}", where));
}

absl::Status Viz(const ParsedArgs& args, Env& env, const InputShapes& shapes,
                 const PassPtr& pipeline, const std::string& format, int depth, int max_nodes) {
  // An .onnx model is imported as `carve import` does (what a user tries
  // first); Relay text is typed as every command types it.
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadModelOrText(env, args.positional()[0], "viz", shapes));
  CARVE_RETURN_IF_ERROR(InferTypeAndAnnotate(mod).status());
  // With --backend, op nodes carry FILE's names (`carve fmt FILE`), the ones
  // `carve why FILE --backend B --at %N` takes: the named copy is what is
  // partitioned, so the result's spans lead back to those names.
  std::optional<viz::SpanNames> input_names;
  if (args.Has("--backend")) {
    CARVE_ASSIGN_OR_RETURN(NodeNames named, NodeNames::ForModule(mod));
    CARVE_RETURN_IF_ERROR(InferType(named.module()));
    input_names = viz::InputNames(named);
    mod = named.module();
  }
  Placed placed;  // with --backend
  CARVE_ASSIGN_OR_RETURN(mod, Transform(std::move(mod), args, env, pipeline, placed));
  // Other nodes carry the names the transformed module prints with (`carve
  // opt F -p PIPELINE` output); --around refers to the nodes' names.
  CARVE_ASSIGN_OR_RETURN(NodeNames names, NodeNames::ForModule(mod));
  CARVE_RETURN_IF_ERROR(InferType(names.module()));
  CARVE_ASSIGN_OR_RETURN(viz::Graph graph,
                         viz::BuildGraph(names, placed.backends,
                                         placed.record ? &*placed.record : nullptr,
                                         input_names ? &*input_names : nullptr));
  // Ops the preparation removed are not in the graph: a note lists them, as
  // the report's "before partitioning" section and `why --at` do.
  if (input_names) {
    graph.removed_by = placed.prepared.backend;
    graph.removed = viz::RemovedOps(placed.prepared, *input_names);
    graph.lost = viz::LostNote(placed.lost ? &*placed.lost : nullptr);
  }
  if (auto center = args.Get("--around")) {
    CARVE_ASSIGN_OR_RETURN(graph, viz::Around(graph, *center, depth));
  } else if (static_cast<int>(graph.nodes.size()) > max_nodes) {
    *env.err << fmt::format(
        "carve viz: {} nodes is more than --max-nodes {}: drawing one box per region "
        "(use --around %N --depth K for a part in full)\n",
        graph.nodes.size(), max_nodes);
    graph = viz::Summarize(graph, max_nodes);
  }
  // The pipelines stop on Ctrl-C themselves; Graphviz's layout cannot be
  // stopped, so the request is seen before and after it, and nothing is
  // written once it is made.
  CARVE_RETURN_IF_ERROR(Interrupted("viz, before drawing"));
  CARVE_ASSIGN_OR_RETURN(std::string text, RenderViz(graph, format));
  CARVE_RETURN_IF_ERROR(Interrupted("viz, after drawing"));
  return env.write_file(args.GetOr("--output", "-"), text);
}

// A non-negative integer option, or nullopt on bad text.
std::optional<int> IntOption(const ParsedArgs& args, const std::string& name, int fallback) {
  auto v = args.Get(name);
  if (!v) return fallback;
  if (v->empty() || v->size() > 7 || v->find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoi(*v);
}

constexpr const char* kUsage =
    "carve viz FILE [--backend NAME[,NAME...] | -p PIPELINE] [--format dot|svg|html|term] "
    "[--around %N [--depth K] | --max-nodes N] [--shape NAME=D1,...]... [-o OUT]";

int UsageError(Env& env, const std::string& message) {
  *env.err << fmt::format("carve viz: {}\nusage: {}\n", message, kUsage);
  return kExitUsage;
}

int RunViz(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1) return UsageError(env, "expected one FILE");
  if (args.Has("--backend") && args.Has("--pipeline")) {
    return UsageError(env, "give --backend or -p PIPELINE, not both");
  }
  std::string format = FormatOf(args);
  if (format.empty()) {
    return UsageError(env, fmt::format("cannot tell the format from -o '{}' (extensions: .dot, "
                                       ".gv, .svg, .html, .txt); give --format",
                                       *args.Get("--output")));
  }
  if (format != "dot" && format != "svg" && format != "html" && format != "term") {
    return UsageError(env,
                      fmt::format("unknown --format '{}' (known: dot, svg, html, term)", format));
  }
  // -o out.svg --format dot would write DOT into a file every viewer opens
  // as SVG: an option that contradicts another is a usage error.
  if (args.Has("--format") && args.Has("--output")) {
    std::string implied = VizFormatOfPath(*args.Get("--output"));
    if (!implied.empty() && implied != format) {
      return UsageError(env, fmt::format("--format {} contradicts -o '{}' (a .{} name means {})",
                                         format, *args.Get("--output"),
                                         std::filesystem::path(*args.Get("--output"))
                                             .extension()
                                             .string()
                                             .substr(1),
                                         implied));
    }
  }
  std::optional<int> depth = IntOption(args, "--depth", 2);
  std::optional<int> max_nodes = IntOption(args, "--max-nodes", kVizDefaultMaxNodes);
  if (!depth) return UsageError(env, "--depth expects a number of edges, e.g. 2");
  if (!max_nodes || *max_nodes < 1) {
    return UsageError(env, "--max-nodes expects a number of nodes of at least 1, e.g. 400");
  }
  if (auto names = args.Get("--backend")) {
    if (absl::Status known = CheckBackendNames(*names); !known.ok()) {
      return UsageError(env, fmt::format("--backend: {}", std::string(known.message())));
    }
  }
  absl::StatusOr<InputShapes> shapes = ShapeOptions(args);
  if (!shapes.ok()) return UsageError(env, std::string(shapes.status().message()));
  // A malformed or unknown pipeline is a usage error, found before FILE is
  // read, as `carve opt -p` finds it; Rewrite(F.pat) reads its rules here.
  PassPtr pipeline;
  if (auto text = args.Get("--pipeline")) {
    ScopedRuleFiles rule_files(RuleFilesFor(args, env));
    absl::StatusOr<PassPtr> parsed = ParsePipeline(*text);
    if (!parsed.ok()) return ReportPipelineError(env, parsed.status());
    pipeline = *std::move(parsed);
  }
  absl::Status s = Viz(args, env, *shapes, pipeline, format, *depth, *max_nodes);
  return s.ok() ? kExitOk : ReportError(env, s);
}

}  // namespace

void AddVizCommands(std::vector<Command>& commands) {
  const std::vector<std::string> whole = {"whole"};
  const std::vector<std::string> around = {"around"};
  commands.push_back(Command{
      "viz",
      kUsage,
      "draw the (partitioned) graph: targets, regions, composites, host reasons",
      {
          {"--backend", true, false, "", "partition for these backends first, by priority"},
          {"--pipeline", true, false, "-p", "run this pass pipeline first"},
          {"--format", true, false, "", "dot, svg, html or term (default: from -o, else dot)"},
          {"--output", true, false, "-o", "write to OUT instead of standard output"},
          {"--shape", true, true, "",
           "NAME=D1,D2,...: the shape of input NAME of an .onnx FILE (as carve import)"},
          {"--around", true, false, "", "draw only the nodes near %N (a name the module prints)"},
          {"--depth", true, false, "", "with --around: how many edges away (default 2)", around},
          {"--max-nodes", true, false, "",
           "above this many nodes draw one box per region (default 400)", whole},
      },
      RunViz,
      {{"whole", ""}, {"around", "--around"}}});
  // --backend and -p run pass pipelines, which stop on Ctrl-C, as `carve
  // partition` and `carve opt` do (exit 130, no output file).
  commands.back().cancellable = true;
}

}  // namespace carve::cli
