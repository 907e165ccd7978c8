// Commands that ask questions of the current step: match, why, report, run,
// compare, viz. Each calls the code of the CLI command of the same name
// (tools/cli/module_queries.h) on the step's module.
#include <charconv>
#include <optional>
#include <set>

#include "backends/partition.h"
#include "backends/placement.h"
#include "fmt/format.h"
#include "passes/byoc/partition_report.h"
#include "support/status_macros.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/cmd_viz.h"
#include "tools/cli/module_queries.h"
#include "tools/cli/node_name_hint.h"
#include "tools/repl/commands.h"

namespace carve::repl {
namespace {

bool IsPlainName(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) {
      return false;
    }
  }
  return true;
}

// A name defined by a pattern file of the session (last loaded first),
// else PATTERN as `carve match` reads it (@file.pat:name, @BACKEND:name,
// DSL text). Surrounding quotes are removed.
absl::StatusOr<cli::NamedQuery> Query(Session& s, std::string text) {
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"') && text.back() == text[0]) {
    text = text.substr(1, text.size() - 2);
  }
  if (IsPlainName(text)) {
    const auto& libs = s.libraries();
    for (size_t i = libs.size(); i-- > 0;) {
      absl::StatusOr<cli::NamedQuery> q = cli::FindInLibrary(libs[i], s.pattern_files()[i], text);
      if (q.ok()) return q;
    }
  }
  if (text == "-") return absl::InvalidArgumentError("the REPL reads no pattern from stdin");
  absl::StatusOr<cli::NamedQuery> query = cli::LoadQuery(s.env(), text);
  // `why dnnl %3` asks where a backend put a node: say where that is
  // answered instead of suggesting an op named like the backend.
  if (!query.ok() && IsPlainName(text) && ResolveBackends(text).ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "'{0}' is a backend, not a pattern: `report {0}` lists where the step's ops went and "
        "why; one of its patterns is @{0}:NAME",
        text));
  }
  return query;
}

absl::Status Match(Session& s, std::string_view args) {
  bool captures = args.starts_with("--captures ");
  if (captures) args = args.substr(args.find_first_not_of(' ', 11));
  if (args.empty()) return absl::InvalidArgumentError("expected: match [--captures] PATTERN");
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  CARVE_ASSIGN_OR_RETURN(cli::NamedQuery query, Query(s, std::string(args)));
  CARVE_ASSIGN_OR_RETURN(const NodeNames* names, s.Names(s.history().current()));
  CARVE_ASSIGN_OR_RETURN(std::string out, cli::MatchReport(query, *names, captures));
  s.out() << out;
  return absl::OkStatus();
}

absl::Status Why(Session& s, std::string_view args) {
  size_t space = args.find_last_of(" \t");
  if (space == std::string_view::npos) {
    return absl::InvalidArgumentError("expected: why PATTERN %N");
  }
  std::string at(args.substr(space + 1));
  std::string_view pattern = args.substr(0, space);
  while (!pattern.empty() && (pattern.back() == ' ' || pattern.back() == '\t')) {
    pattern.remove_suffix(1);
  }
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  CARVE_ASSIGN_OR_RETURN(cli::NamedQuery query, Query(s, std::string(pattern)));
  size_t step = s.history().current();
  CARVE_ASSIGN_OR_RETURN(const NodeNames* names, s.Names(step));
  if (names->Lookup(at).node == nullptr) {
    std::string hint = cli::SuggestNodeName(
        at, [&](const std::string& n) { return names->Lookup(n).node != nullptr; });
    return absl::NotFoundError(
        fmt::format("no node named '{}' in step {}{} (`print` shows the names)", at, step,
                    hint.empty() ? "" : fmt::format("; did you mean {}?", hint)));
  }
  CARVE_ASSIGN_OR_RETURN(std::string out,
                         cli::WhyReport(query, *names, at, fmt::format("step {}", step)));
  s.out() << out;
  return absl::OkStatus();
}

// The backends named by `args`, else those of the `partition` command that
// made the current step (all of them, in its priority order: the record
// judges each backend against those before it, and a backend whose
// partitions were all pruned still has its reasons), else those the step's
// functions were offloaded to (their Compiler attributes), in name order.
absl::StatusOr<std::vector<TargetSpecPtr>> ReportBackends(Session& s, std::string_view args) {
  if (!args.empty()) {
    CARVE_RETURN_IF_ERROR(cli::CheckBackendNames(args));
    return ResolveBackends(args);
  }
  const std::string& command = s.history().Current().command;
  if (command.starts_with("partition ")) {
    return ResolveBackends(std::string_view(command).substr(10));
  }
  std::set<std::string> names;
  for (const auto& [gv, fn] : s.history().Current().module.Functions()) {
    if (fn->HasAttr("Compiler")) names.insert(std::string(fn->GetStringAttr("Compiler")));
  }
  if (names.empty()) {
    return absl::FailedPreconditionError(fmt::format(
        "step {} has no offloaded functions: name a backend (report BACKEND) or partition first",
        s.history().current()));
  }
  return ResolveBackends(fmt::format("{}", fmt::join(names, ",")));
}

// The placement record of the current step, with what the steps of the
// `partition` command that made it know: the module after MergeComposite
// (the rules' verdicts) and, at its pruning step, the module before it (the
// pruning rules' reasons).
absl::StatusOr<PlacementRecord> StepRecord(Session& s,
                                           const std::vector<TargetSpecPtr>& backends) {
  const History& h = s.history();
  const Step& current = h.Current();
  const Module* annotator_input = nullptr;
  const Module* before_pruning = nullptr;
  for (size_t i = h.current() + 1; i-- > 0 && h.at(i).command_id == current.command_id;) {
    if (h.at(i).pass.starts_with("MergeComposite")) annotator_input = &h.at(i).module;
  }
  if (current.pass == "PruneBackendPartitions" && h.current() > 0) {
    before_pruning = &h.at(h.current() - 1).module;
  }
  return RecordOfSteps(current.module, backends, annotator_input, before_pruning);
}

absl::Status Report(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends, ReportBackends(s, args));
  CARVE_ASSIGN_OR_RETURN(PlacementRecord record, StepRecord(s, backends));
  s.out() << RenderPartitionReport(s.history().Current().module, record);
  return absl::OkStatus();
}

std::vector<cli::OptionSpec> RunOptions() {
  return {{"--input", true, true, "", ""},
          {"--seed", true, false, "", ""},
          {"--threads", true, false, "", ""},
          {"--out", true, false, "", ""}};
}

absl::Status Run(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  CARVE_ASSIGN_OR_RETURN(cli::ParsedArgs parsed, cli::ParseArgs(SplitArgs(args), RunOptions()));
  if (!parsed.positional().empty()) {
    return absl::InvalidArgumentError(
        "expected: run [--input NAME=F.npy]... [--seed N] [--threads N] [--out DIR]");
  }
  return cli::RunModule(s.history().Current().module, parsed, s.env());
}

absl::Status Compare(Session& s, std::string_view args) {
  std::vector<std::string> words = SplitArgs(args);
  if (words.empty() || words[0].starts_with('-')) {
    return absl::InvalidArgumentError(
        "expected: compare BACKEND[,...] [--rtol R] [--atol A] [--seed N] [--input NAME=F.npy]... "
        "[--bind NAME,...] [--report]");
  }
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  // The backend list is checked here, in the REPL's words: the CLI parser
  // below sees it as the value of `--compare`, a flag the REPL user never
  // typed, and would name that flag in its error.
  CARVE_RETURN_IF_ERROR(cli::CheckBackendNames(words[0]));
  words.insert(words.begin(), "--compare");
  std::vector<cli::OptionSpec> options = RunOptions();
  for (const char* name : {"--compare", "--rtol", "--atol"}) options.push_back({name, true, false});
  options.push_back({"--bind", true, true});
  options.push_back({"--report", false, false});
  CARVE_ASSIGN_OR_RETURN(cli::ParsedArgs parsed, cli::ParseArgs(words, options));
  if (!parsed.positional().empty()) {
    return absl::InvalidArgumentError(
        fmt::format("unexpected argument '{}'", parsed.positional()[0]));
  }
  CARVE_ASSIGN_OR_RETURN(bool within,
                         cli::CompareModule(s.history().Current().module, parsed, s.env()));
  if (!within) return absl::FailedPreconditionError("an error exceeds the tolerance");
  return absl::OkStatus();
}

constexpr std::string_view kVizUsage =
    "viz [--format dot|svg|html|term] [--around %N [--depth K] | --max-nodes N] [-o FILE]";

// A count option of `viz` (at least `least`), or InvalidArgument.
absl::StatusOr<int> VizCount(const cli::ParsedArgs& parsed, const std::string& name, int fallback,
                             int least) {
  std::optional<std::string> text = parsed.Get(name);
  if (!text) return fallback;
  int value = -1;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < least) {
    return absl::InvalidArgumentError(
        fmt::format("{} expects a number of at least {}, got '{}'", name, least, *text));
  }
  return value;
}

// The format `viz` writes: --format, else -o's extension, else the
// terminal tree. svg and html go to a file (or `-o -`), not to the screen.
absl::StatusOr<std::string> VizFormat(const cli::ParsedArgs& parsed) {
  const std::string out = parsed.GetOr("--output", "");
  const bool screen = out.empty() || out == "-";
  const std::string implied = screen ? "" : cli::VizFormatOfPath(out);
  const std::string format = parsed.GetOr("--format", screen ? "term" : implied);
  if (format.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "cannot tell the format from -o '{}' (.dot, .gv, .svg, .html, .txt): give --format", out));
  }
  if (format != "dot" && format != "svg" && format != "html" && format != "term") {
    return absl::InvalidArgumentError(
        fmt::format("unknown --format '{}' (known: dot, svg, html, term)", format));
  }
  if (!out.empty() && !implied.empty() && implied != format) {
    return absl::InvalidArgumentError(
        fmt::format("--format {} contradicts -o '{}', which names {}", format, out, implied));
  }
  if (out.empty() && (format == "svg" || format == "html")) {
    return absl::InvalidArgumentError(
        fmt::format("--format {} needs -o FILE (or -o - for the text here)", format));
  }
  return format;
}

// `viz`: the current step as `carve viz` draws a module, with each host
// op's reasons from the step's placement record (the one `report` prints)
// when the step has offloaded functions.
absl::Status Viz(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  std::vector<cli::OptionSpec> options = {{"--format", true, false},
                                          {"--output", true, false, "-o"},
                                          {"--around", true, false},
                                          {"--depth", true, false},
                                          {"--max-nodes", true, false}};
  CARVE_ASSIGN_OR_RETURN(cli::ParsedArgs parsed, cli::ParseArgs(SplitArgs(args), options));
  if (!parsed.positional().empty()) {
    return absl::InvalidArgumentError(
        fmt::format("unexpected argument '{}'; expected: {}", parsed.positional()[0], kVizUsage));
  }
  CARVE_ASSIGN_OR_RETURN(std::string format, VizFormat(parsed));
  if (parsed.Has("--depth") && !parsed.Has("--around")) {
    return absl::InvalidArgumentError("--depth applies only with --around %N");
  }
  if (parsed.Has("--around") && parsed.Has("--max-nodes")) {
    return absl::InvalidArgumentError("--max-nodes does not apply with --around");
  }
  CARVE_ASSIGN_OR_RETURN(int depth, VizCount(parsed, "--depth", 2, 0));
  CARVE_ASSIGN_OR_RETURN(int max_nodes,
                         VizCount(parsed, "--max-nodes", cli::kVizDefaultMaxNodes, 1));
  const size_t step = s.history().current();
  CARVE_ASSIGN_OR_RETURN(const NodeNames* names, s.Names(step));
  // The verdicts of the backends `report` reports on. Without any (a step
  // before `partition`) every op is drawn on the host, without reasons.
  std::vector<TargetSpecPtr> backends;
  std::optional<PlacementRecord> record;
  if (absl::StatusOr<std::vector<TargetSpecPtr>> b = ReportBackends(s, ""); b.ok()) {
    backends = *std::move(b);
    CARVE_ASSIGN_OR_RETURN(record, StepRecord(s, backends));
  }
  CARVE_ASSIGN_OR_RETURN(viz::Graph graph,
                         viz::BuildGraph(*names, backends, record ? &*record : nullptr));
  if (std::optional<std::string> center = parsed.Get("--around")) {
    CARVE_ASSIGN_OR_RETURN(graph, viz::Around(graph, *center, depth));
  } else if (static_cast<int>(graph.nodes.size()) > max_nodes) {
    s.out() << fmt::format(
        "{} nodes is more than --max-nodes {}: drawing one box per region (--around %N "
        "--depth K draws a part in full)\n",
        graph.nodes.size(), max_nodes);
    graph = viz::Summarize(graph, max_nodes);
  }
  CARVE_ASSIGN_OR_RETURN(std::string text, cli::RenderViz(graph, format));
  const std::string out = parsed.GetOr("--output", "");
  if (out.empty() || out == "-") {
    s.out() << text;
    return absl::OkStatus();
  }
  CARVE_RETURN_IF_ERROR(s.env().write_file(out, text));
  s.out() << fmt::format("wrote {} ({} of step {}, {} nodes)\n", out, format, step,
                         graph.nodes.size());
  return absl::OkStatus();
}

}  // namespace

void AddQueryCommands(std::vector<ReplCommand>& commands) {
  commands.push_back({"match", "match [--captures] PATTERN",
                      "every node of the current step where PATTERN matches",
                      "PATTERN: DSL text (`nn.relu(nn.conv2d(?x, ?w))`), a name from a\n"
                      "`patterns` file, @FILE.pat:NAME or @BACKEND:NAME (`@dnnl:conv2d_relu`).\n",
                      ArgKind::kPattern, Match});
  commands.push_back({"why", "why PATTERN %N",
                      "explain why PATTERN does or does not match node %N of the current step",
                      "Nodes are named as `print` shows them: %N, %var or @function.\n",
                      ArgKind::kPattern, Why});
  commands.push_back({"report", "report [BACKEND[,...]]",
                      "the partition report of the current step",
                      "Default: the backends of the `partition` that made the step, else\n"
                      "those the step's functions were offloaded to.\n",
                      ArgKind::kBackends, Report});
  commands.push_back({"run", "run [--input NAME=F.npy]... [OPTIONS]",
                      "evaluate @main of the current step (as `carve run`)",
                      "Options: --seed N, --threads N, --out DIR. Inputs not given are\n"
                      "generated from the seed (default 0); --out DIR writes each output\n"
                      "as DIR/outN.npy. Ctrl-C interrupts the run.\n",
                      ArgKind::kFile, Run});
  commands.push_back(
      {"compare", "compare BACKEND[,...] [OPTIONS]",
       "run the current step partitioned for BACKEND against the reference",
       "Options: --rtol R, --atol A, --seed N, --input NAME=F.npy, --bind NAME,...,\n"
       "--report. As `carve run --compare`: the step is partitioned for the\n"
       "backends and "
       "run on their runtimes; each output and composite is compared with the\n"
       "reference kernels. Fails when an error exceeds the tolerance.\n",
       ArgKind::kBackends, Compare});
  commands.push_back(
      {"viz", std::string(kVizUsage), "draw the current step (as `carve viz`)",
       "Default: the terminal tree on the screen; -o FILE writes the format its\n"
       "extension names (.dot, .svg, .html, .txt). After `partition`, host ops\n"
       "are labelled with the reasons `report` gives. Above --max-nodes nodes\n"
       "(default 400) one box per region; --around %N --depth K draws a part.\n",
       ArgKind::kNode, Viz});
}

}  // namespace carve::repl
