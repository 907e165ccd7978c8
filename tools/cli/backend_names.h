// The backend names a user may type: `--backend` (partition, codegen),
// `--compare` (run), and the REPL's `partition`, `compare`, `report` and its
// Tab completion, one list for all of them.
//
// They are carve's registered backends (BuiltinBackendNames, backends/), then
// every other target in TargetRegistry::Global(): the backends of the
// pattern files loaded (`--patterns`, the REPL's `patterns`) and the seed
// demo's `byoc_target`, whose flow is the default recipe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace carve::cli {

// Registered backends in listing order, then the other targets by name.
std::vector<std::string> UserBackendNames();

// Checks the comma-separated `list` a user typed: InvalidArgument for an
// empty name, a name given twice, or a name not in UserBackendNames() (the
// message suggests the nearest and lists the known ones). Callers report it
// as bad usage (exit 2) where they have an exit code.
absl::Status CheckBackendNames(std::string_view list);

}  // namespace carve::cli
