// Python functions called from inside carve (MergeComposite checks,
// register_op_attr rules). They see the nodes of the module being
// transformed, so a pass run from Python names that module's arena here;
// and since C++ callers expect a bool, a Python exception is held here and
// raised again when the pass returns.
#pragma once

#include <memory>
#include <optional>

#include <pybind11/pybind11.h>

#include "absl/status/status.h"

#include "handles.h"

namespace carve::python {

// Marks `arena` as the one being transformed for the duration of a run.
class RunningArena {
 public:
  explicit RunningArena(std::shared_ptr<Arena> arena);
  ~RunningArena();
  RunningArena(const RunningArena&) = delete;
  RunningArena& operator=(const RunningArena&) = delete;

 private:
  std::shared_ptr<Arena> previous_;
};

// Calls `fn(expr)` and returns its truth value. On a Python exception,
// records it (the first one) and returns false.
bool CallPredicate(const pybind11::object& fn, const Expr* expr);

// Keeps the first Python exception a callback of the current run raised,
// for RaisePendingCallbackError; whether one was kept already.
void RecordCallbackError(pybind11::error_already_set&& e);
bool CallbackFailed();

// Runs `call()`, which calls Python, for a C++ caller that expects a status:
// an exception it raises (a Python one, or a pybind11 one such as a
// type_error it throws) is recorded as above and `stopped` returned; after a
// recorded failure, `call` is not run again.
template <typename F>
auto CallPython(F&& call, absl::Status stopped) -> decltype(call()) {
  if (CallbackFailed()) return stopped;
  try {
    return call();
  } catch (pybind11::error_already_set& e) {
    RecordCallbackError(std::move(e));
  } catch (pybind11::builtin_exception& e) {
    e.set_error();
    RecordCallbackError(pybind11::error_already_set());
  }
  return stopped;
}

// Raises the exception a callback recorded during the run, if any.
void RaisePendingCallbackError();

// Runs `run()` (which may call Python callbacks) with `arena` as the one
// being transformed, then raises what a callback raised, if anything.
template <typename F>
auto WithCallbacks(const std::shared_ptr<Arena>& arena, F&& run) {
  auto result = [&] {
    RunningArena running(arena);
    return run();
  }();
  RaisePendingCallbackError();
  return result;
}

}  // namespace carve::python
