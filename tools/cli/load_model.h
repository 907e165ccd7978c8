// Loading a model for the commands that only look at it (`carve viz`,
// `carve why`): an ONNX file or Relay text.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "tools/cli/env.h"

namespace carve::cli {

// An `.onnx` file is imported as `carve import MODEL` does by default
// (weights frozen into constants, TVM's from_onnx) and typed, so that its
// `%N` names are those of `carve import MODEL | carve fmt -`; anything else
// is LoadModule's Relay text (untyped). `command` names the caller in the
// hint of an import that needs `--shape`.
absl::StatusOr<Module> LoadModelOrText(Env& env, const std::string& path,
                                       const std::string& command);

}  // namespace carve::cli
