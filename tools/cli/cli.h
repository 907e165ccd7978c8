// The carve command line: subcommands in the style of mlir-opt / git.
// Exit codes: 0 success, 1 user error (bad input, failed check), 2 bad usage.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/fold/bind_params.h"
#include "tools/cli/args.h"
#include "tools/cli/env.h"

namespace carve::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitUsage = 2;
// Stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
inline constexpr int kExitInterrupted = 130;

struct Command {
  std::string name;
  std::string usage;    // "carve fmt FILE [-o OUT] [--types]"
  std::string summary;  // one line
  std::vector<OptionSpec> options;
  // Runs the command; returns the exit code.
  std::function<int(const ParsedArgs& args, Env& env)> run;
  // The command's modes, when options select what it does (`run --compare`,
  // `opt --list-passes`). With OptionSpec::modes they make an option that
  // does not apply a usage error, checked before `run` is called; a new
  // command gets this by declaring its modes and its options' modes.
  std::vector<CommandMode> modes = {};
  // Whether Ctrl-C stops the command cleanly (support/cancellation.h): it
  // then ends with its error line, no partial output file, and exit 130.
  bool cancellable = false;
};

// Runs carve with `args` (without the program name) in `env`.
int RunCarve(const std::vector<std::string>& args, Env& env);

// Renders `status` (with its source spans) on env.err and returns 1.
int ReportError(Env& env, const absl::Status& status);
// A usage error: "carve CMD: message" + hint, returns 2.
int UsageError(Env& env, const Command& cmd, const std::string& message);
// The same for the command named `command` (for run functions, which do
// not hold their Command): every usage error ends with the command's one
// usage line.
int UsageError(Env& env, std::string_view command, const std::string& message);
// Renders an error of ParsePipeline on a pipeline typed on the command line
// (`-p PIPELINE`). An error in that text (syntax, an unknown pass, an
// argument a pass rejects) is bad usage, like an unknown option: it
// returns 2. An error in a file the pipeline names (a rule file that does
// not parse or cannot be read) is bad input: 1.
int ReportPipelineError(Env& env, const absl::Status& status);

// Command groups, one per cmd_*.cc file.
void AddFormatCommands(std::vector<Command>& commands);   // fmt, check, equal
void AddTestCommands(std::vector<Command>& commands);     // test
void AddPassCommands(std::vector<Command>& commands);     // opt, partition (cmd_opt.cc)
void AddPatternCommands(std::vector<Command>& commands);  // match (cmd_match.cc)
void AddWhyCommands(std::vector<Command>& commands);      // why (cmd_why.cc)
void AddRunCommands(std::vector<Command>& commands);      // run (cmd_run.cc)
void AddCodegenCommands(std::vector<Command>& commands);  // codegen (cmd_codegen.cc)
void AddReplCommands(std::vector<Command>& commands);     // repl (cmd_repl.cc)
void AddImportCommands(std::vector<Command>& commands);   // import (cmd_import.cc)

// `carve opt --replay FILE` (cmd_repl.cc): replays a REPL reproduction file
// and prints the module it leads to.
int RunReplay(const ParsedArgs& args, Env& env);
// `carve run FILE --compare BACKEND[,...]` (cmd_compare.cc); cmd_run.cc
// hands over when --compare is given.
int RunCompare(const ParsedArgs& args, Env& env);
// Shared by codegen and run --compare (cmd_compare.cc): registers the
// backends of every `--patterns F.pat` file (read through `env`: `-` is
// standard input); reads `--params DIR`.
absl::Status RegisterPatternFiles(const ParsedArgs& args, Env& env);
absl::StatusOr<ParamMap> ReadParamsOption(Env& env, const ParsedArgs& args);
// The parameters to bind before partitioning: `--params DIR`, plus the
// @main inputs named by `--bind NAME,...` with the values `carve run` gives
// them (`--input`, `--seed`), as TVM tests pass random weights as params.
absl::StatusOr<ParamMap> BoundParams(Env& env, const ParsedArgs& args, const Function& main);

}  // namespace carve::cli
