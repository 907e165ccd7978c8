// A small command-line parser for carve's subcommands: positional
// arguments, `--flag`, `--key=value`, `--key value`, `-o value`, repeated
// options, and `--` to end options. Unknown options are usage errors.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace carve::cli {

struct OptionSpec {
  std::string name;        // "--types" or "-o"
  bool takes_value = false;
  bool repeated = false;
  std::string alias;       // "-o" for "--output", optional
  std::string help;
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

 private:
  friend absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>&,
                                              const std::vector<OptionSpec>&);
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
};

// Parses `args` (without the program and subcommand names) against `specs`.
// Errors are InvalidArgument with a message for the user.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<OptionSpec>& specs);

// The options section of a help text.
std::string FormatOptions(const std::vector<OptionSpec>& specs);

}  // namespace carve::cli
