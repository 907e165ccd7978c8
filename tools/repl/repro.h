// Reproduction files (`save --repro FILE`): the step-0 module as Relay text
// under a header of `// replay: COMMAND` lines, the commands that led from
// step 0 to the current step. The header is made of comments, so the file
// is still a module for every other command; `carve opt --replay FILE` and
// `carve repl FILE` replay it.
//
//   // carve repl reproduction: replay with `carve opt --replay FILE` or `carve repl FILE`
//   // replay: patterns my_rules.pat
//   // replay: pass MergeComposite(byoc_target)
//   // replay: partition dnnl
//   // replay: goto 3
//   #[version = "0.0.5"]
//   def @main(...) { ... }
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "tools/repl/session.h"

namespace carve::repl {

// The commands that rebuild the session's current step from step 0: the
// pattern files loaded, the commands that made steps 1..current (each
// once), and a `goto` when the current step is inside a command's steps.
std::vector<std::string> ReplayCommands(const Session& session);

// The whole reproduction file for the session.
std::string ReproText(Session& session);

// The `// replay:` commands at the top of `text` (before the first line
// that is not a `//` comment).
std::vector<std::string> ReadReplayHeader(std::string_view text);

// Runs `commands` on `session` (whose step 0 is loaded) as the REPL would;
// stops at the first failure, naming the command. Only commands a header
// holds are accepted (patterns, pass, partition, goto).
absl::Status Replay(Session& session, const std::vector<std::string>& commands,
                    const std::string& file);

}  // namespace carve::repl
