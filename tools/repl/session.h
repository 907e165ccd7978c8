// The state of one `carve repl` session: the history of steps, the pattern
// files loaded, the printing options, and the caches derived from steps
// (printed text, node names). Commands (commands.h) act on it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grammar/pattern_node_names.h"
#include "passes/pass.h"
#include "passes/rewrite/rewrite_pass.h"
#include "patterns/library.h"
#include "tools/cli/env.h"
#include "tools/repl/history.h"
#include "tools/repl/step_text.h"

namespace carve::repl {

struct SessionOptions {
  std::string params_dir;  // `--params DIR`: bound into @main by every load
};

class Session {
 public:
  Session(cli::Env& env, SessionOptions options);

  cli::Env& env() { return env_; }
  std::ostream& out() { return *env_.out; }
  History& history() { return history_; }
  const History& history() const { return history_; }
  // FailedPrecondition "no module loaded (use `load FILE`)" when empty.
  absl::Status RequireModule() const;

  // Reads, types and (with --params) binds `path` as a new step 0. `shapes`
  // (ONNX input name -> dims) fix the inputs of an .onnx model, as `carve
  // import --shape` does; they are an error for any other file.
  absl::Status Load(const std::string& path, const std::string& command,
                    const std::map<std::string, std::vector<int64_t>>& shapes = {});
  // Runs `passes` one after another from the current step, each making a
  // step named after it (`command` is recorded on all of them), and prints
  // one line per step. Stops at the first failure or Ctrl-C; the steps made
  // before it stay.
  absl::Status RunPasses(const std::vector<PassPtr>& passes, const std::string& command);
  // Records `command` as having made a step computed by the caller.
  void PushStep(Module mod, const std::string& command, int command_id, std::string pass,
                bool changed, double seconds);
  int NewCommandId() { return ++last_command_id_; }
  // "step 3: MergeComposite(dnnl) (changed; 2 functions, 51 nodes, 13 ops; 0.4 ms)"
  std::string StepSummary(size_t index) const;

  // Loads a `.pat` file: registers its backends (replacing same-named ones)
  // and keeps its patterns and rules for `match`, `why` and `Rewrite`.
  absl::Status LoadPatterns(const std::string& path);
  const std::vector<std::string>& pattern_files() const { return pattern_files_; }
  // What a Rewrite pass reads its rules with (its file through env's
  // read_file, or the session's pattern files): installed (ScopedRuleFiles)
  // both while a pipeline is parsed, which loads the rule file, and while it runs.
  RuleFiles rule_files();
  const std::vector<std::shared_ptr<const PatternLibrary>>& libraries() const { return libraries_; }

  // The printed text of step `index` with the current printing options.
  const StepText& Text(size_t index);
  // The node names of step `index` (the printed text re-parsed and typed).
  absl::StatusOr<const NodeNames*> Names(size_t index);

  // Printing options (`set ...`).
  bool show_types = false;
  int diff_context = 3;
  bool show_timing = true;  // times in pass lines and `steps`
  bool quit_requested = false;
  bool colour = false;  // ANSI colours in diffs (interactive use on a terminal)

  const SessionOptions& options() const { return options_; }

 private:
  cli::Env& env_;
  SessionOptions options_;
  History history_;
  NodeCounter counter_;
  int last_command_id_ = 0;
  std::vector<std::string> pattern_files_;
  std::vector<std::shared_ptr<const PatternLibrary>> libraries_;
  std::vector<std::shared_ptr<NodeNames>> names_;  // by step; reset with history
};

}  // namespace carve::repl
