// A small command-line parser for carve's subcommands: positional
// arguments, `--flag`, `--key=value`, `--key value`, `-o value`, repeated
// options, and `--` to end options. Unknown options are usage errors, and so
// are options that do not apply to the mode the command runs in (see
// CommandMode), an option not marked OptionSpec::repeated given twice
// (with the same value or not), an empty value (but `--disabled-pass ''`,
// the empty list), and an empty or repeated name in a comma-separated list
// (`--backend dnnl,`, `--compare dnnl,dnnl`): an option is never accepted
// and then ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace carve::cli {

struct OptionSpec {
  std::string name;        // "--types" or "-o"
  bool takes_value = false;
  bool repeated = false;   // may be given more than once (GetAll); else twice is an error
  std::string alias = {};  // "-o" for "--output", optional
  std::string help = {};
  // The modes (CommandMode::name) this option applies to; empty = every
  // mode of its command. Given in another mode, it is a usage error.
  std::vector<std::string> modes = {};
  // A flag that may carry a value after `=` only (`--report` or
  // `--report=json`); Get() returns "" for the bare flag.
  bool optional_value = false;
};

// One way of running a command, chosen by an option: `carve run` evaluates,
// `carve run --compare` compares with backends; `carve opt --list-passes`
// lists instead of running. A command without modes has one implicit mode.
// The mode is the first one (in declaration order) whose selector is given,
// else the one with an empty selector.
struct CommandMode {
  std::string name;      // "compare"; what OptionSpec::modes names
  std::string selector;  // "--compare"; "" for the default mode
};

class ParsedArgs {
 public:
  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The last value of `name`, or nullopt.
  std::optional<std::string> Get(const std::string& name) const;
  std::string GetOr(const std::string& name, const std::string& fallback) const;
  // Every value of a repeated option, in order.
  std::vector<std::string> GetAll(const std::string& name) const;
  // The options given (canonical names), sorted.
  std::vector<std::string> Given() const;

 private:
  friend absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>&,
                                              const std::vector<OptionSpec>&);
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
};

// The names of a NAME[,NAME...] value, split at every comma (`a,,b` has an
// empty name, "" is one empty name).
std::vector<std::string> SplitNameList(std::string_view list);

// Parses `args` (without the program and subcommand names) against `specs`.
// Errors are InvalidArgument with a message for the user.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<OptionSpec>& specs);

// The mode `args` selects among `modes` (the name; "" when `modes` is
// empty or none matches and there is no default).
std::string SelectedMode(const ParsedArgs& args, const std::vector<CommandMode>& modes);

// How many times `args` reads standard input: a `-` FILE argument, and the
// `-` value of an option that names a file to read (`--patterns -`,
// `--replay -`, `--input NAME=-`). Standard input can be read once.
int StdinUses(const ParsedArgs& args);

// InvalidArgument when `args` gives an option whose OptionSpec::modes
// exclude the selected mode, e.g. "option '--rtol' applies only with
// --compare" or "option '--stats' does not apply with --compare".
absl::Status CheckOptionsApply(const ParsedArgs& args, const std::vector<OptionSpec>& specs,
                               const std::vector<CommandMode>& modes);

// The options section of a help text (with the modes each option needs).
std::string FormatOptions(const std::vector<OptionSpec>& specs,
                          const std::vector<CommandMode>& modes = {});

}  // namespace carve::cli
