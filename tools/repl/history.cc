#include "tools/repl/history.h"

#include "fmt/format.h"
#include "ir/visit.h"

namespace carve::repl {

void History::Reset(Step step) {
  steps_.clear();
  steps_.push_back(std::move(step));
  current_ = 0;
}

void History::Push(Step step) {
  steps_.resize(current_ + 1);
  steps_.push_back(std::move(step));
  current_ = steps_.size() - 1;
}

absl::Status History::Undo() {
  if (steps_.empty()) return absl::FailedPreconditionError("no module loaded");
  if (current_ == 0) return absl::FailedPreconditionError("nothing to undo: at step 0");
  --current_;
  return absl::OkStatus();
}

absl::Status History::Redo() {
  if (steps_.empty()) return absl::FailedPreconditionError("no module loaded");
  if (current_ + 1 >= steps_.size()) {
    return absl::FailedPreconditionError(
        fmt::format("nothing to redo: step {} is the last", current_));
  }
  ++current_;
  return absl::OkStatus();
}

absl::Status History::Goto(size_t n) {
  if (steps_.empty()) return absl::FailedPreconditionError("no module loaded");
  if (n >= steps_.size()) {
    return absl::OutOfRangeError(
        fmt::format("no step {} (the history has steps 0-{})", n, steps_.size() - 1));
  }
  current_ = n;
  return absl::OkStatus();
}

void NodeCounter::Count(Step& step) {
  step.functions = step.module.size();
  step.nodes = step.ops = 0;
  for (const auto& [gv, fn] : step.module.Functions()) {
    auto [it, inserted] = by_function_.try_emplace(fn);
    if (inserted) {
      Counts& c = it->second;
      PostOrderVisit(fn, [&c](const Expr* e) {
        ++c.nodes;
        if (const auto* call = DynCast<Call>(e); call != nullptr && call->op() != nullptr) ++c.ops;
      });
    }
    step.nodes += it->second.nodes;
    step.ops += it->second.ops;
  }
}

}  // namespace carve::repl
