#include "tools/repl/repl.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "fmt/format.h"
#include "support/cancellation.h"
#include "support/diagnostics.h"
#include "support/printable.h"
#include "tools/repl/commands.h"
#include "tools/repl/line_editor.h"
#include "tools/repl/session.h"

namespace carve::repl {
namespace {

// Renders `status` for the user: `where: error: message`, or, when a
// diagnostic points into a text (a pipeline, a module), `where: ` before its
// rendering (`file:line:col: error: message`, the line and a caret), so the
// message is printed once. Messages quote the line typed (`unknown command
// 'X'`), which may hold control bytes: they are escaped (support/printable.h).
std::string RenderFailure(const absl::Status& status, const std::string& where) {
  std::string out;
  for (const Diagnostic& d : StatusToDiagnostics(status)) {
    if (!d.span.valid()) {
      out += fmt::format("{}: error: {}\n", where, EscapeNonPrintable(d.message, true));
    } else {
      out += fmt::format("{}: {}", where, RenderDiagnostic(d));
    }
  }
  return out;
}

// The command part of a script line: "" for comments; a trailing ` //`
// comment is removed.
std::string_view CommandPart(std::string_view line) {
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  line = line.substr(b);
  if (line.starts_with('#') || line.starts_with("//")) return {};
  if (size_t c = line.find(" //"); c != std::string_view::npos) line = line.substr(0, c);
  return line;
}

bool RunOne(Session& s, std::string_view line, const std::string& where) {
  ClearCancellation();
  absl::Status status = RunCommandLine(s, line);
  s.out().flush();
  if (status.ok()) return true;
  if (absl::IsCancelled(status)) {
    status = absl::CancelledError(fmt::format("{} (Ctrl-C); the steps made before it are kept",
                                              std::string(status.message())));
  }
  *s.env().err << RenderFailure(status, where);
  s.env().err->flush();
  return false;
}

// Session start: pattern files, then the module (replaying its header).
bool Start(Session& s, const ReplOptions& options, const std::string& where) {
  bool ok = true;
  for (const std::string& p : options.patterns) ok &= RunOne(s, "patterns " + p, where);
  if (!options.file.empty()) {
    // `load`'s own --shape: the step's command line then replays the same import.
    std::string load = "load " + options.file;
    for (const std::string& spec : options.shapes) load += " --shape " + spec;
    ok &= RunOne(s, load, where);
  }
  return ok;
}

int RunScript(Session& s, std::istream& in, const std::string& name) {
  bool ok = true;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string_view command = CommandPart(line);
    if (command.empty()) continue;
    ok &= RunOne(s, command, fmt::format("{}:{}", name, number));
    if (s.quit_requested) break;
  }
  return ok ? 0 : 1;
}

std::string HistoryFile() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return fmt::format("{}/.carve_history", home);
}

int RunInteractive(Session& s) {
  // Ctrl-C interrupts a running pass or run (support/cancellation.h) and a
  // line being typed (the terminal read returns EINTR).
  ScopedSigintCancellation sigint;
  LineEditor editor(stdin, stdout, HistoryFile(),
                    [&s](std::string_view before) { return Complete(s, before); });
  std::string line;
  while (!s.quit_requested) {
    std::string prompt =
        s.history().empty() ? "carve> " : fmt::format("carve:{}> ", s.history().current());
    LineEditor::Result r = editor.ReadLine(prompt, line);
    if (r == LineEditor::Result::kEof) {
      std::cout << "\n";
      break;
    }
    if (r == LineEditor::Result::kInterrupted) {
      std::cout << "^C\n";
      continue;
    }
    editor.AddHistory(line);
    if (std::string_view command = CommandPart(line); !command.empty()) {
      RunOne(s, command, "carve");
    }
  }
  return 0;
}

// `env` whose read_file refuses `-` while the commands come from standard
// input: `patterns -` typed at the prompt read the rest of the session (the
// terminal until Ctrl-D) as a pattern file.
cli::Env CommandsOnStdinEnv(const cli::Env& env) {
  cli::Env out = env;
  out.read_file = [read = env.read_file](const std::string& path) -> absl::StatusOr<std::string> {
    if (path == "-") {
      return absl::InvalidArgumentError(
          "'-' (standard input) holds the REPL's commands; name a file (or start the REPL "
          "with --script S to free standard input)");
    }
    return read(path);
  };
  return out;
}

}  // namespace

int RunRepl(const ReplOptions& options, cli::Env& base_env) {
  // Without --script (or with --script -) the commands come from standard
  // input, which no command may then read as a file.
  cli::Env env = options.script.empty() || options.script == "-" ? CommandsOnStdinEnv(base_env)
                                                                   : base_env;
  Session session(env, SessionOptions{options.params_dir});
  session.show_timing = options.timing;
  const bool interactive =
      options.script.empty() && env.in == &std::cin && isatty(STDIN_FILENO) != 0;
  if (interactive) {
    session.colour = isatty(STDOUT_FILENO) != 0;
    Start(session, options, "carve");
    return RunInteractive(session);
  }
  std::string name = options.script.empty() ? "<stdin>" : options.script;
  // The FILE and --patterns of the command line are not lines of the
  // script: their errors are the command's.
  bool started = Start(session, options, "carve repl");
  int status = 0;
  if (options.script.empty()) {
    status = RunScript(session, *env.in, name);
  } else {
    absl::StatusOr<std::string> text = base_env.read_file(options.script);
    if (!text.ok()) {
      *env.err << RenderFailure(text.status(), "carve repl");
      return 1;
    }
    std::istringstream in(*text);
    status = RunScript(session, in, name);
  }
  return started ? status : 1;
}

}  // namespace carve::repl
