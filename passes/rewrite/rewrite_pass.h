// Rewrite: applies the rewrite rules of `.pat` files
// (`rule NAME = PATTERN => REPLACEMENT;`, patterns.md) to every global
// function of a module, to a fixpoint (patterns/rewrite.h: TVM's `rewrite`
// semantics, without its abort after 100 rounds).
//
// Pipeline signature (TVM style, positional first, then keywords):
//
//   Rewrite(file=, rules..., max_rounds=100, max_rewrites=16777216, max_nodes=0)
//
//   Rewrite(rules.pat)                      every rule of rules.pat, file order
//   Rewrite(rules.pat,fold_bias,fold_relu)  only these, in the order given
//   Rewrite(rules.pat,rules=[a,b])          the same with the keyword
//   Rewrite                                 every rule of the `--patterns` files
//   Rewrite(rules=[fold_bias])              ... or some of them
//   Rewrite(rules.pat,max_rounds=500)       a higher limit
//
// The file path is relative to the current directory. passes/ does not link
// the DSL parser (grammar/), so the tool installs a RuleFiles (the loader and
// the `--patterns` files) while it builds and runs a pipeline.
//
// The rule file is loaded when the pass is created (so an unknown rule name
// is reported at the pipeline text, with the nearest known name); errors in
// the file itself keep their `file:line:col` diagnostics and are reported
// when the pass runs. Rules whose pattern reads types (`: Tensor[...]`,
// `dtype(?x)` ...) see a re-typed function before each of their passes. The
// module is typed after the pass, as TVM's passes leave it. Rewriting that
// does not converge within the limits, or grows a function's graph past
// max_nodes, fails with ResourceExhausted naming the function, the rules
// still firing with their counts, the graph sizes, and the argument that
// raises the limit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass.h"
#include "patterns/library.h"

namespace carve {

// Loads a `.pat` file (as the DSL parser does: ParsePatternFile).
using RuleFileLoader =
    std::function<absl::StatusOr<std::shared_ptr<const PatternLibrary>>(const std::string& path)>;

// Where Rewrite passes find their rules.
struct RuleFiles {
  RuleFileLoader load;
  // The `--patterns` files: `Rewrite` without a file applies their rules.
  std::vector<std::string> defaults;
};

// Installs `files` for the Rewrite passes created during the guard's
// lifetime (restoring the previous ones afterwards). Not thread-safe, like
// the tool's other process-wide settings.
class ScopedRuleFiles {
 public:
  explicit ScopedRuleFiles(RuleFiles files);
  ~ScopedRuleFiles();
  ScopedRuleFiles(const ScopedRuleFiles&) = delete;
  ScopedRuleFiles& operator=(const ScopedRuleFiles&) = delete;

 private:
  RuleFiles previous_;
};

// The arguments of a Rewrite pass.
struct RewritePassOptions {
  // The rule file; empty: the `--patterns` files.
  std::string file;
  // The rules to apply, in this order; empty: every rule, in file order.
  std::vector<std::string> rules;
  int max_rounds = 100;
  int64_t max_rewrites = int64_t{1} << 24;
  // The largest graph a function may grow to (patterns/rewrite.h); 0 = 16
  // times its starting size, at least 65536 nodes.
  int64_t max_nodes = 0;
};

// Builds the pass, loading its rules through the installed RuleFiles.
// Errors (InvalidArgument): no loader installed, an unreadable file, no
// rule to apply, an unknown or repeated rule name, a limit below 1 (below 0
// for max_nodes).
absl::StatusOr<PassPtr> RewritePass(const RewritePassOptions& options);

// The pass over rules already loaded (`libraries` keep their constants
// alive); options.file and options.rules only name the pass and its hints.
PassPtr RewritePass(std::vector<RewriteRule> rules,
                    std::vector<std::shared_ptr<const PatternLibrary>> libraries,
                    const RewritePassOptions& options);

}  // namespace carve
