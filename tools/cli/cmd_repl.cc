// `carve repl [FILE] [--shape NAME=D1,...]... [--patterns F.pat]... [--params DIR] [--script S]`:
// debug a pass pipeline at a prompt (tools/repl/repl.h).
#include <sstream>

#include "grammar/printer.h"
#include "tools/cli/cli.h"
#include "tools/cli/shared_options.h"
#include "tools/repl/commands.h"
#include "tools/repl/repl.h"
#include "tools/repl/session.h"

namespace carve::cli {
namespace {

constexpr std::string_view kReplUsage =
    "usage: carve repl [FILE] [--shape NAME=D1,...]... [--patterns F.pat]... [--params DIR] "
    "[--script S]\n";

int RunReplCommand(const ParsedArgs& args, Env& env) {
  if (args.positional().size() > 1) {
    *env.err << "carve repl: expected at most one FILE\n" << kReplUsage;
    return kExitUsage;
  }
  // Without --script the prompt reads its commands from standard input: a
  // module or pattern file read from it first would leave no commands.
  if (StdinUses(args) > 0 && !args.Has("--script")) {
    *env.err << "carve repl: '-' (standard input) needs --script S: without it standard input "
                "holds the REPL's commands\n"
             << kReplUsage;
    return kExitUsage;
  }
  // --shape fixes the symbolic input dimensions of an ONNX FILE, as `carve
  // import --shape` does (checked here: a bad spec is a usage error there too).
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& spec : args.GetAll("--shape")) {
    if (absl::Status st = ParseShapeOption(spec, shapes); !st.ok()) {
      *env.err << "carve repl: " << st.message() << "\n" << kReplUsage;
      return kExitUsage;
    }
  }
  if (!shapes.empty() && args.positional().empty()) {
    *env.err << "carve repl: --shape needs a FILE (an .onnx model) to apply to\n" << kReplUsage;
    return kExitUsage;
  }
  repl::ReplOptions options;
  if (!args.positional().empty()) options.file = args.positional()[0];
  options.shapes = args.GetAll("--shape");
  options.patterns = args.GetAll("--patterns");
  options.params_dir = args.GetOr("--params", "");
  options.script = args.GetOr("--script", "");
  options.timing = !args.Has("--no-timing");
  return repl::RunRepl(options, env);
}

}  // namespace

int RunReplay(const ParsedArgs& args, Env& env) {
  if (!args.positional().empty() || args.Has("--pipeline")) {
    *env.err << "carve opt: --replay FILE takes no other FILE and no -p\n"
                "usage: carve opt --replay FILE [--patterns F.pat]... [-o OUT] [--types]\n";
    return kExitUsage;
  }
  // The REPL's own `load`, which replays the header: the same code the
  // session ran, so the same module. Its step lines are not wanted here.
  std::ostringstream steps;
  Env quiet = env;
  quiet.out = &steps;
  repl::Session session(quiet, repl::SessionOptions{args.GetOr("--params", "")});
  for (const std::string& p : args.GetAll("--patterns")) {
    if (absl::Status s = repl::RunCommandLine(session, "patterns " + p); !s.ok()) {
      return ReportError(env, s);
    }
  }
  if (absl::Status s = repl::RunCommandLine(session, "load " + *args.Get("--replay")); !s.ok()) {
    return ReportError(env, s);
  }
  PrintOptions options;
  options.show_types = args.Has("--types");
  options.meta_attrs = args.Has("--meta-attrs");
  const Module& mod = session.history().Current().module;
  absl::Status written =
      WriteOutputChunks(env, args.GetOr("--output", "-"),
                        [&](const ChunkWriter& write) { PrintModuleTo(mod, options, write); });
  return written.ok() ? kExitOk : ReportError(env, written);
}

void AddReplCommands(std::vector<Command>& commands) {
  commands.push_back(Command{
      "repl",
      "carve repl [FILE] [--shape NAME=D1,...]... [--patterns F.pat]... [--params DIR] [--script S] "
      "[--no-timing]",
      "debug a pass pipeline at a prompt: step, undo, diff, why, match, run, compare",
      {{"--shape", true, true, "",
        "NAME=D1,D2,...: fix a symbolic input dimension of an ONNX FILE (as carve import)"},
       {"--patterns", true, true, "", "F.pat: load a pattern file first (`patterns F.pat`)"},
       {"--params", true, false, "", "bind DIR/NAME.npy to the parameter %NAME of @main on load"},
       {"--script", true, false, "",
        "S: run the commands of S (as if piped to standard input) and exit"},
       {"--no-timing", false, false, "", "print no times (`set timing off`), for golden scripts"}},
      RunReplCommand});
}

}  // namespace carve::cli
