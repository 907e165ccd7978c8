// Status helpers. Abseil 20220623 (Debian 12) ships no status macros, so carve
// defines its own, once, here.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define CARVE_CONCAT_INNER_(a, b) a##b
#define CARVE_CONCAT_(a, b) CARVE_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` yields a non-OK status.
#define CARVE_RETURN_IF_ERROR(expr)                 \
  do {                                              \
    ::absl::Status carve_status_ = (expr);          \
    if (!carve_status_.ok()) return carve_status_;  \
  } while (0)

// `lhs = value of expr`, or returns the error status of `expr`.
#define CARVE_ASSIGN_OR_RETURN(lhs, expr) \
  CARVE_ASSIGN_OR_RETURN_IMPL_(CARVE_CONCAT_(carve_statusor_, __LINE__), lhs, expr)

#define CARVE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
