// `carve fmt`, `carve check`, `carve equal`.
#include <fstream>

#include "fmt/format.h"
#include "grammar/printer.h"
#include "ir/structural_equal.h"
#include "ir/visit.h"
#include "support/cancellation.h"
#include "support/diagnostics.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"

namespace carve::cli {
namespace {

int RunFmt(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1) {
    return UsageError(env, "fmt", "expected exactly one FILE");
  }
  bool types = args.Has("--types");
  absl::StatusOr<Module> mod = types ? LoadTypedModule(env, args.positional()[0])
                                     : LoadModule(env, args.positional()[0]);
  if (!mod.ok()) return ReportError(env, mod.status());
  PrintOptions options;
  options.show_types = types;
  options.show_metadata = !args.Has("--no-metadata");
  options.meta_attrs = args.Has("--meta-attrs");
  // Streamed in 1 MB pieces: the text is never held whole (issue 2).
  absl::Status written =
      WriteOutputChunks(env, args.GetOr("--output", "-"), [&](const ChunkWriter& write) {
        PrintModuleTo(*mod, options, write);
      });
  if (!written.ok()) return ReportError(env, written);
  return kExitOk;
}

// Peak resident set size of this process in bytes (0 when unknown).
int64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

// Visits every node reachable from `root` once (in no particular order),
// telling visited nodes by their scratch mark, and clears the marks again.
// --stats measures the memory of `check`, so counting must not add a
// visited set the size of the graph to the peak it reports.
template <typename F>
void ForEachNodeOnce(const Expr* root, F&& f) {
  std::vector<const Expr*> stack;
  for (uint8_t pass : {1, 0}) {  // mark and visit, then clear
    auto seen = [pass](const Expr* e) { return e->scratch_mark() == pass; };
    stack.assign(1, root);
    root->set_scratch_mark(pass);
    if (pass == 1) f(root);
    while (!stack.empty()) {
      const Expr* e = stack.back();
      stack.pop_back();
      ForEachChild(e, [&](const Expr* child) {
        if (seen(child)) return;
        child->set_scratch_mark(pass);
        if (pass == 1) f(child);
        stack.push_back(child);
      });
    }
  }
}

// Operator calls in a module (for --stats).
int64_t CountCalls(const Module& mod) {
  int64_t calls = 0;
  for (const auto& [gv, fn] : mod.Functions()) {
    ForEachNodeOnce(fn, [&calls](const Expr* e) { calls += Isa<Call>(e) ? 1 : 0; });
  }
  return calls;
}

int RunCheck(const ParsedArgs& args, Env& env) {
  if (args.positional().empty()) {
    return UsageError(env, "check", "expected FILE");
  }
  int exit_code = kExitOk;
  int64_t calls = 0;
  for (const std::string& path : args.positional()) {
    if (CancellationRequested()) break;  // reported by the file it stopped
    absl::StatusOr<Module> mod = LoadCheckedModule(env, path);
    if (!mod.ok()) {
      exit_code = ReportError(env, mod.status());
    } else if (args.Has("--stats")) {
      calls += CountCalls(*mod);
    }
  }
  if (args.Has("--stats")) {
    int64_t rss = PeakRssBytes();
    *env.err << fmt::format("calls: {}\npeak_rss_bytes: {}\nbytes_per_call: {:.1f}\n", calls,
                            rss, calls ? double(rss) / double(calls) : 0.0);
  }
  return exit_code;
}

int RunEqual(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 2) {
    return UsageError(env, "equal", "expected two FILEs");
  }
  absl::StatusOr<Module> a = LoadModule(env, args.positional()[0]);
  if (!a.ok()) return ReportError(env, a.status());
  absl::StatusOr<Module> b = LoadModule(env, args.positional()[1]);
  if (!b.ok()) return ReportError(env, b.status());
  EqualOptions options;
  options.ignore_types = args.Has("--ignore-types");
  std::optional<StructuralDiff> diff = StructuralDiffModules(*a, *b, options);
  if (!diff.has_value()) return kExitOk;
  Diagnostic d;
  d.span = diff->lhs_span;
  d.message = fmt::format("modules differ at {}: {}", diff->lhs_path, diff->message);
  d.notes.push_back(Note{diff->rhs_span, fmt::format("the other side, at {}", diff->rhs_path)});
  *env.out << RenderDiagnostic(d, args.positional()[0]);
  return kExitUserError;
}

}  // namespace

void AddFormatCommands(std::vector<Command>& commands) {
  commands.push_back(Command{
      "fmt",
      "carve fmt FILE [-o OUT] [--types]",
      "parse and print canonical Relay text",
      {{"--output", true, false, "-o", "write to OUT instead of standard output"},
       {"--types", false, false, "", "add the inferred `/* ty=... */` comments"},
       {"--no-metadata", false, false, "", "omit the #[metadata] section"},
       {"--meta-attrs", false, false, "",
        "print attrs of ops without a TVM attrs type (compiler_begin/end, cumsum, "
        "vision.*, ...) as meta[relay.attrs.X][i] (TVM's form)"}},
      RunFmt});
  commands.push_back(Command{
      "check",
      "carve check FILE... [--stats]",
      "parse and type-check; diagnostics with file:line:col",
      {{"--stats", false, false, "", "print call count and peak memory to stderr"}},
      RunCheck});
  commands.push_back(Command{
      "equal",
      "carve equal A B [--ignore-types]",
      "structural equality modulo variable names; shows the first difference",
      {{"--ignore-types", false, false, "", "ignore type annotations"}},
      RunEqual});
  // Ctrl-C: one error line, exit 130, no partial -o file (cli.h).
  for (size_t i = commands.size() - 3; i < commands.size(); ++i) commands[i].cancellable = true;
}

}  // namespace carve::cli
