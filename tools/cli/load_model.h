// Loading a model for the commands that only look at it (`carve viz`,
// `carve why`, the REPL's `load`): an ONNX file or Relay text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "tools/cli/args.h"
#include "tools/cli/env.h"

namespace carve::cli {

// Graph input name -> the shape `--shape NAME=D1,...` gives it
// (ParseShapeOption, tools/cli/shared_options.h).
using InputShapes = std::map<std::string, std::vector<int64_t>>;

// The shapes of the repeatable `--shape NAME=D1,...` of `args` (the option
// `carve import` takes); InvalidArgument for a malformed one or a name
// given twice, which the commands report as bad usage.
absl::StatusOr<InputShapes> ShapeOptions(const ParsedArgs& args);

// An `.onnx` file is imported as `carve import MODEL [--shape ...]` does by
// default (weights frozen into constants, TVM's from_onnx; `shapes` fix the
// inputs' symbolic dimensions) and typed, so that its `%N` names are those
// of `carve import MODEL | carve fmt -`; anything else is LoadModule's
// Relay text (untyped), for which `shapes` must be empty (InvalidArgument:
// a shape that would be ignored). `command` names the caller ("viz", or
// "load" for the REPL) in the hint of an import that needs other options.
absl::StatusOr<Module> LoadModelOrText(Env& env, const std::string& path,
                                       const std::string& command,
                                       const InputShapes& shapes = {});

}  // namespace carve::cli
