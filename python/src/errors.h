// Errors crossing into Python: a failed absl::Status becomes a
// carve.CarveError (a ValueError) whose text is carve's rendered
// diagnostics (`file:line:col: error: message`, source line, caret, notes).
#pragma once

#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace carve::python {

// Registers carve.CarveError in `m`.
void BindErrors(pybind11::module_& m);

// Throws CarveError (as a C++ exception pybind11 translates) for a failed
// status; does nothing for OK.
void ThrowIfError(const absl::Status& status);

// Throws CarveError with `text` as it is (no diagnostic rendering).
[[noreturn]] void ThrowText(std::string text, absl::StatusCode code);

template <typename T>
T ValueOrThrow(absl::StatusOr<T> result) {
  ThrowIfError(result.status());
  return *std::move(result);
}

}  // namespace carve::python
