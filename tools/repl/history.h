// The REPL's history of steps. Step 0 is the loaded module; every pass adds
// a step holding the module it produced. IR nodes are immutable and a
// Module is a small map of function pointers sharing one arena, so a step
// is a copy of that map (no deep copy), and moving in the history (undo,
// redo, goto) only changes an index.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "ir/module.h"

namespace carve::repl {

struct StepText;  // step_text.h: the printed text, made on first use

struct Step {
  Module module;
  std::string command;   // the REPL command that made it ("partition dnnl")
  int command_id = 0;    // steps made by one command share it
  std::string pass;      // the pass that made it ("MergeComposite(dnnl)")
  bool changed = true;   // whether the pass changed the module
  double seconds = 0;    // the pass's wall time
  size_t functions = 0;  // global functions
  size_t nodes = 0;      // distinct expression nodes reachable from them
  size_t ops = 0;        // calls of operators among them
  // Caches of derived data, filled on first use (the step itself never
  // changes, so they never go stale).
  std::shared_ptr<StepText> text[2] = {};  // printed without / with types
};

class History {
 public:
  // Starts a new history whose step 0 is `step`.
  void Reset(Step step);
  // Adds `step` after the current one, dropping the steps that undo left
  // for redo (as editors do), and makes it current.
  void Push(Step step);
  bool empty() const { return steps_.empty(); }
  size_t size() const { return steps_.size(); }
  size_t current() const { return current_; }
  Step& at(size_t i) { return steps_[i]; }
  const Step& at(size_t i) const { return steps_[i]; }
  Step& Current() { return steps_[current_]; }
  const Step& Current() const { return steps_[current_]; }

  // Undo/redo/goto move the current step; they fail (FailedPrecondition or
  // OutOfRange with a message for the user) when there is nowhere to go.
  absl::Status Undo();
  absl::Status Redo();
  absl::Status Goto(size_t n);

 private:
  std::vector<Step> steps_;
  size_t current_ = 0;
};

// Fills the counts of steps (functions, nodes, ops) from their modules.
// Counts of a function are cached by its address, so a step that changed
// one function only walks that one. Clear() when the history is reset (the
// old arena may be freed and its addresses reused).
class NodeCounter {
 public:
  void Count(Step& step);
  void Clear() { by_function_.clear(); }

 private:
  struct Counts {
    size_t nodes = 0, ops = 0;
  };
  absl::flat_hash_map<const Function*, Counts> by_function_;
};

}  // namespace carve::repl
