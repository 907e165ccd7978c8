#include "tools/cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <ostream>

#include "fmt/format.h"
#include "ir/tensor_limit.h"
#include "support/edit_distance.h"
#include "support/cancellation.h"
#include "support/diagnostics.h"
#include "support/printable.h"
#include "tools/cli/cmd_viz.h"
#include "tools/cli/reduce.h"

namespace carve::cli {
namespace {

std::vector<Command> AllCommands() {
  std::vector<Command> commands;
  AddFormatCommands(commands);
  AddTestCommands(commands);
  AddPassCommands(commands);
  AddPatternCommands(commands);
  AddWhyCommands(commands);
  AddRunCommands(commands);
  AddCodegenCommands(commands);
  AddReplCommands(commands);
  AddImportCommands(commands);
  AddReduceCommands(commands);
  AddVizCommands(commands);
  return commands;
}

std::string CommandHelp(const Command& cmd) {
  std::string out = fmt::format("usage: {}\n\n{}\n", cmd.usage, cmd.summary);
  std::vector<OptionSpec> options = cmd.options;
  options.push_back({"--help", false, false, "-h", "show this help"});
  out += "\noptions:\n" + FormatOptions(options, cmd.modes);
  return out;
}

std::string MainHelp(const std::vector<Command>& commands) {
  std::string out =
      "usage: carve COMMAND [ARGS...]\n\n"
      "carve reads Relay text, matches dataflow patterns, partitions graphs for\n"
      "BYOC backends and runs them. `-` reads standard input.\n\ncommands:\n";
  for (const Command& c : commands) out += fmt::format("  {:<10} {}\n", c.name, c.summary);
  out += "\nRun `carve COMMAND --help` (or `carve help COMMAND`) for the options of a\n"
         "command, `carve --version` for the version, git revision, compiler and CPU\n"
         "features of this build.\n";
  return out;
}

}  // namespace

int ReportError(Env& env, const absl::Status& status) {
  *env.err << RenderStatus(status);
  return kExitUserError;
}

int UsageError(Env& env, const Command& cmd, const std::string& message) {
  // The message quotes the command line (`unknown option 'X'`): escaped, as
  // a diagnostic's text is (support/printable.h).
  *env.err << fmt::format("carve {}: {}\nusage: {}\n", cmd.name,
                          EscapeNonPrintable(message, /*keep_line_breaks=*/true), cmd.usage);
  return kExitUsage;
}

int UsageError(Env& env, std::string_view command, const std::string& message) {
  for (const Command& cmd : AllCommands()) {
    if (cmd.name == command) return UsageError(env, cmd, message);
  }
  *env.err << fmt::format("carve {}: {}\n", command, message);
  return kExitUsage;
}

int ReportPipelineError(Env& env, const absl::Status& status) {
  const std::vector<Diagnostic> diags = StatusToDiagnostics(status);
  const SourceFile* file =
      diags.empty() ? nullptr : SourceManager::Global().Get(diags.front().span.file);
  // ParsePipeline registers the text it parses as `<pipeline>`
  // (passes/pass_registry.h).
  const bool in_pipeline_text = file != nullptr && file->name() == "<pipeline>";
  ReportError(env, status);
  return in_pipeline_text && status.code() == absl::StatusCode::kInvalidArgument ? kExitUsage
                                                                                 : kExitUserError;
}

// Runs a cancellable command with SIGINT requesting cancellation. A command
// that noticed the request fails with its own one-line error ("...:
// interrupted ..."); one that finished first has written all its output and
// keeps its exit code. A command run inside another (a golden file's RUN
// line in `carve test`) leaves the flag to the outer one, which must see a
// Ctrl-C that stopped the inner one too.
int RunCancellable(const Command& cmd, const ParsedArgs& args, Env& env) {
  static thread_local int depth = 0;
  const bool outermost = depth == 0;
  ScopedSigintCancellation sigint;
  if (outermost) ClearCancellation();
  ++depth;
  int code = cmd.run(args, env);
  --depth;
  bool interrupted = CancellationRequested() && code != kExitOk;
  if (outermost) ClearCancellation();
  return interrupted ? kExitInterrupted : code;
}

// RunCarve's work, on a standard error that escapes what it is given.
static int RunCommandLine(const std::vector<std::string>& args, Env& env) {
  std::vector<Command> commands = AllCommands();
  // Read by every command that creates tensors (ir/tensor_limit.h); a typo
  // in it must not silently leave the default in force.
  if (const char* limit = std::getenv("CARVE_MAX_TENSOR_BYTES")) {
    if (absl::StatusOr<int64_t> v = ParseByteSize(limit); !v.ok()) {
      *env.err << fmt::format("carve: CARVE_MAX_TENSOR_BYTES: {}\n",
                              std::string(v.status().message()));
      return kExitUsage;
    }
  }
  const bool asks_help = !args.empty() && (args[0] == "help" || args[0] == "--help" ||
                                           args[0] == "-h");
  // `carve help COMMAND` (git's and go's spelling) is `carve COMMAND --help`.
  if (asks_help && args.size() == 2) {
    for (const Command& cmd : commands) {
      if (cmd.name != args[1]) continue;
      *env.out << CommandHelp(cmd);
      return kExitOk;
    }
    return RunCommandLine({args[1]}, env);  // the unknown-command error
  }
  // `carve help fmt opt` printed the command list and ignored both names.
  if (asks_help && args.size() > 2) {
    *env.err << fmt::format("carve {}: expected at most one COMMAND, got {} words\n"
                            "usage: carve help [COMMAND]\n",
                            args[0], args.size() - 1);
    return kExitUsage;
  }
  if (args.empty() || asks_help) {
    *(args.empty() ? env.err : env.out) << MainHelp(commands);
    return args.empty() ? kExitUsage : kExitOk;
  }
  for (const Command& cmd : commands) {
    if (cmd.name != args[0]) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const std::string& a : rest) {
      if (a == "--help" || a == "-h") {
        *env.out << CommandHelp(cmd);
        return kExitOk;
      }
    }
    absl::StatusOr<ParsedArgs> parsed = ParseArgs(rest, cmd.options);
    if (!parsed.ok()) return UsageError(env, cmd, std::string(parsed.status().message()));
    if (absl::Status applies = CheckOptionsApply(*parsed, cmd.options, cmd.modes); !applies.ok()) {
      return UsageError(env, cmd, std::string(applies.message()));
    }
    // Standard input can be read once: a second `-` would read nothing and
    // report a confusing error about an empty input.
    if (StdinUses(*parsed) > 1) {
      return UsageError(env, cmd, "'-' (standard input) can be given only once");
    }
    return cmd.cancellable ? RunCancellable(cmd, *parsed, env) : cmd.run(*parsed, env);
  }
  // `carve --versio` is a misspelt option of carve itself, not a command.
  const bool option = args[0].starts_with('-');
  std::vector<std::string> names;
  if (option) {
    names = {"--help", "--version"};
  } else {
    for (const Command& c : commands) names.push_back(c.name);
  }
  std::string near = NearestName(args[0], names);
  *env.err << fmt::format("carve: unknown {} '{}'{}\n\n{}", option ? "option" : "command",
                          EscapeNonPrintable(args[0]),
                          near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                          MainHelp(commands));
  return kExitUsage;
}

// Standard error goes through a PrintableStreamBuf for the whole command:
// messages quote file names, option values, names and lines of the user's
// input, and a command that writes one directly (`carve opt: ...`) must not
// echo a raw escape sequence, bidi control or malformed UTF-8 any more than
// a rendered diagnostic does (support/printable.h). Text already escaped
// passes unchanged.
int RunCarve(const std::vector<std::string>& args, Env& env) {
  struct RestoreErr {
    Env& env;
    std::ostream* raw;
    ~RestoreErr() { env.err = raw; }
  };
  PrintableStreamBuf escaping(*env.err);
  std::ostream err(&escaping);
  RestoreErr restore{env, env.err};
  env.err = &err;
  int code = RunCommandLine(args, env);
  // Standard output redirected to a full disk (`carve fmt F > out` with no
  // space left) failed silently and exited 0 with `out` cut short. The
  // stream remembers the failure; errno names it when the final flush is
  // the write that fails, which it is for output smaller than the buffer.
  if (code == kExitOk && env.out == &std::cout) {
    errno = 0;
    std::cout.flush();
    const bool flush_failed = std::fflush(stdout) != 0;
    const int error = errno;
    if (flush_failed || std::cout.fail() || std::ferror(stdout)) {
      err << fmt::format("carve: error: error writing standard output{}\n",
                         error != 0 ? fmt::format(": {}", std::strerror(error)) : "");
      code = kExitUserError;
    }
  }
  err.flush();
  return code;
}

}  // namespace carve::cli
