// The pattern queries, runs and comparisons of `carve match`, `carve why`,
// `carve run` and `carve run --compare`, on a module already in memory: the
// CLI commands load a file and call these; the REPL (tools/repl/) calls them
// on the module of its current step.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/runtime/call_timing.h"
#include "grammar/pattern_node_names.h"
#include "grammar/pattern_parser.h"
#include "ir/module.h"
#include "patterns/pattern.h"
#include "tools/cli/args.h"
#include "tools/cli/env.h"

namespace carve::cli {

// A pattern named on the command line.
struct NamedQuery {
  std::string name;  // for explanations: the pattern's name, or "pattern"
  Pattern pattern;
  std::shared_ptr<const PatternLibrary> library;  // keeps literal constants alive
};

// PATTERN as `carve match` reads it: `@file.pat:name`, `@BACKEND:name`, `-`
// (the text on standard input) or DSL text.
absl::StatusOr<NamedQuery> LoadQuery(Env& env, const std::string& arg);
// A pattern, rule or composite of `lib` by name (composites also by their
// short name when unambiguous); the error names `file` and suggests a name.
absl::StatusOr<NamedQuery> FindInLibrary(std::shared_ptr<const PatternLibrary> lib,
                                         const std::string& file, const std::string& name);

// `carve match` output for `names` (typed): one line per match, then
// "matches: N".
absl::StatusOr<std::string> MatchReport(const NamedQuery& query, const NodeNames& names,
                                        bool captures);
// `carve why` output: why `query` does or does not match the node `at`
// (%N, %var or @f); `file` names the module in the error for an unknown node.
absl::StatusOr<std::string> WhyReport(const NamedQuery& query, const NodeNames& names,
                                      const std::string& at, const std::string& file);

// `--repeat N` and `--warmup K` of `carve run` (both modes), or
// InvalidArgument (a count out of range, --warmup without --repeat).
absl::StatusOr<RepeatOptions> ParseRepeatOptions(const ParsedArgs& args);

// `carve run` on `mod` with the run options of `args` (its positional
// arguments are ignored): prints the output summaries on env.out.
absl::Status RunModule(const Module& mod, const ParsedArgs& args, Env& env);
// `carve run --compare` on `mod` with the options of `args` (its positional
// arguments are ignored): prints the comparison on env.out and returns
// whether every error is within the tolerance.
absl::StatusOr<bool> CompareModule(const Module& mod, const ParsedArgs& args, Env& env);

}  // namespace carve::cli
