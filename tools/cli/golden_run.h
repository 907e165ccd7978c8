// Running the commands of a golden case's RUN line in process: `carve`
// commands connected by pipes, `not`, `2>&1`, and the substitutions
// %s, %S, %t, %shared and %%. See docs/golden-tests.md.
#pragma once

#include <string>

#include "tools/cli/env.h"
#include "tools/cli/golden_case.h"

namespace carve::cli {

// What RUN lines substitute.
struct Substitutions {
  std::string virtual_name;  // %s: the case, read in memory
  std::string test_dir;      // %S
  std::string shared_dir;    // %shared
  std::string temp_path;     // %t
};

// `word` with the substitutions made; other `%` words (%0, %x: Relay
// names) stay as they are, as lit keeps them.
std::string Substitute(const std::string& word, const Substitutions& subst);

struct RunOutput {
  std::string out;          // the last command's standard output
  std::string err;          // the commands' standard error (without 2>&1)
  int exit_code = 0;        // as with `set -o pipefail`, after `not`
  std::string exit_report;  // each command's exit code, for messages
};

// Runs the carve commands of `run` in `outer`'s world, each reading the
// previous one's output; `%s` reads `case_text`.
RunOutput RunPipeline(const RunLine& run, const Substitutions& subst, const std::string& case_text,
                      Env& outer);

}  // namespace carve::cli
