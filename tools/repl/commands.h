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

// Command groups (commands_*.cc).
void AddHistoryCommands(
    std::vector<ReplCommand>& commands);                    // steps, undo, redo, goto, print, diff
void AddPassCommands(std::vector<ReplCommand>& commands);   // load, pass, partition, patterns, save
void AddQueryCommands(std::vector<ReplCommand>& commands);  // match, why, report, run, compare
void AddSessionCommands(std::vector<ReplCommand>& commands);  // set, help, quit

}  // namespace carve::repl
