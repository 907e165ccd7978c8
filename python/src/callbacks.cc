#include "callbacks.h"

namespace py = pybind11;

namespace carve::python {
namespace {

std::shared_ptr<Arena>& Running() {
  static std::shared_ptr<Arena> arena;
  return arena;
}

// Never destroyed (it may hold Python objects at exit, after finalization).
std::optional<py::error_already_set>& Pending() {
  static auto* pending = new std::optional<py::error_already_set>();
  return *pending;
}

}  // namespace

RunningArena::RunningArena(std::shared_ptr<Arena> arena) : previous_(std::move(Running())) {
  Running() = std::move(arena);
}

RunningArena::~RunningArena() { Running() = std::move(previous_); }

void RecordCallbackError(py::error_already_set&& e) {
  if (!Pending()) Pending() = std::move(e);
}

bool CallbackFailed() { return Pending().has_value(); }

bool CallPredicate(const py::object& fn, const Expr* expr) {
  if (Pending()) return false;  // stop calling back after a failure
  try {
    return py::bool_(fn(WrapExpr(Running(), expr)));
  } catch (py::error_already_set& e) {
    RecordCallbackError(std::move(e));
    return false;
  }
}

void RaisePendingCallbackError() {
  if (!Pending()) return;
  py::error_already_set e = std::move(*Pending());
  Pending().reset();
  throw e;
}

}  // namespace carve::python
