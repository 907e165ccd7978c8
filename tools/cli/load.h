// Loading modules for commands: read, parse and (optionally) type-check.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "tools/cli/env.h"

namespace carve::cli {

// Reads and parses `path` ("-" = standard input, shown as "<stdin>").
absl::StatusOr<Module> LoadModule(Env& env, const std::string& path);
// LoadModule followed by InferType and, as TVM's parser does, the filling of
// missing type annotations (parameters, return types).
absl::StatusOr<Module> LoadTypedModule(Env& env, const std::string& path);
// LoadModule followed by InferType only: for commands that report and print
// nothing of the module (`carve check`), which need not pay for the fill.
absl::StatusOr<Module> LoadCheckedModule(Env& env, const std::string& path);

}  // namespace carve::cli
