// The `carve repl` loop: reads commands from a terminal (with line editing)
// or from a script (standard input that is not a terminal, or --script
// FILE), runs them on a Session and reports errors without ending it.
//
// Scripts print exactly what interactive use prints after each command (no
// prompt, no colours), report an error as `script:LINE: error: message`,
// keep going, and make the exit status 1 when any command failed. Lines
// whose first word starts with `#` or `//` are comments, and so is the rest
// of a line after ` //`, so a golden test file is itself a script.
#pragma once

#include <string>
#include <vector>

#include "tools/cli/env.h"

namespace carve::repl {

struct ReplOptions {
  std::string file;                   // loaded (and replayed) first; may be ""
  std::vector<std::string> shapes;    // --shape NAME=D1,... for an ONNX `file`
  std::vector<std::string> patterns;  // `patterns` files loaded first
  std::string params_dir;             // --params DIR
  std::string script;                 // --script FILE: commands from FILE
  bool timing = true;                 // false: --no-timing (`set timing off`)
};

// Runs the REPL; returns the exit status (0, or 1 when a command failed in
// a script or while loading FILE).
int RunRepl(const ReplOptions& options, cli::Env& env);

}  // namespace carve::repl
