// The REPL's commands: a table of names, usages and help texts (for `help`
// and completion) and the function that runs each on a session. A command
// writes its output to the session's stream and returns an error status
// for the loop to report; an error never ends the session.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/repl/session.h"

namespace carve::repl {

// What a command's arguments are, for completion.
enum class ArgKind {
  kNone,
  kFile,      // a path
  kPipeline,  // pass names with their argument lists
  kBackends,  // backend names, comma-separated
  kPattern,   // pattern text / names, then node names (why)
  kNode,      // @function or %N names of the current step
  kStep,      // step numbers
  kCommand,   // command names (help)
  kSetting,   // `set` options
};

struct ReplCommand {
  std::string name;
  std::string usage;    // "pass PIPELINE"
  std::string summary;  // one line
  std::string help;     // more lines for `help NAME` (may be empty)
  ArgKind args = ArgKind::kNone;
  // Runs the command with the text after its name (trimmed).
  std::function<absl::Status(Session& session, std::string_view args)> run;
};

// Every command, in the order `help` lists them.
const std::vector<ReplCommand>& ReplCommands();
// The command named `name`, or nullptr.
const ReplCommand* FindReplCommand(std::string_view name);

// Runs one command line (without comments); "" and whitespace do nothing.
// Unknown commands are InvalidArgument with a suggestion.
absl::Status RunCommandLine(Session& session, std::string_view line);

// Splits arguments into words: whitespace separates, '...' and "..."
// quote.
std::vector<std::string> SplitArgs(std::string_view text);

// The arguments of a command that takes one FILE and options (`load FILE
// [--shape S]...`, `save [--repro] FILE`, `patterns FILE`).
struct PathAndOptions {
  std::string path;  // "" when none was given
  // Each option word with its value, if it takes one, in order ("--shape",
  // "x=1,2"; "--shape=x=1,2" stays one word).
  std::vector<std::string> options;
};
// An option of such a command: its name and whether it takes a value
// (`--shape S` or `--shape=S`).
struct PathCommandOption {
  std::string_view name;
  bool takes_value = false;
};
// Options are unquoted words starting with '-' (but "-", standard input).
// The rest is the path: one quoted word, or the unquoted text between the
// options as typed, spaces included, so `load my model.relay` needs no
// quotes. InvalidArgument (mentioning `usage`) for an option not in
// `known`, an option without its value, and a path in several pieces
// (options between them, or quoted and unquoted parts mixed).
absl::StatusOr<PathAndOptions> SplitPathAndOptions(std::string_view text,
                                                   const std::vector<PathCommandOption>& known,
                                                   std::string_view usage);

// Command groups (commands_*.cc).
void AddHistoryCommands(
    std::vector<ReplCommand>& commands);                    // steps, undo, redo, goto, print, diff
void AddPassCommands(std::vector<ReplCommand>& commands);   // load, pass, partition, patterns, save
void AddQueryCommands(std::vector<ReplCommand>& commands);  // match, why, report, run, compare, viz
void AddSessionCommands(std::vector<ReplCommand>& commands);  // set, help, quit

}  // namespace carve::repl
