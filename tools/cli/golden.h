// The golden-file test runner behind `carve test`.
//
// A golden file holds one or more cases separated by a line `// -----`. Each
// case carries its own directives in `//` comments:
//
//   // RUN: carve fmt %s | carve fmt -      one command pipeline per RUN line
//   // CHECK: text                          FileCheck-style, in order
//   // CHECK-NEXT: text / CHECK-NOT: text / CHECK-EMPTY:
//   // EXIT: 1                              expected exit code of the last RUN
//   %0 = foo(%x);  // expected-error {{unknown operator}}
//   // expected-error@+1:12 {{...}}        error on a later line (and column)
//
// Without CHECK or expected-error directives, the output of every case is
// compared with `<file>.expected` (cases separated by `// -----`), which
// `carve test --update` rewrites. See docs/golden-tests.md.
#pragma once

#include <string>
#include <vector>

#include "tools/cli/env.h"

namespace carve::cli {

struct GoldenResult {
  std::string file;
  int cases = 0;
  int failed = 0;
  bool updated = false;
  std::string report;  // failure details
};

struct GoldenOptions {
  bool update = false;
  std::string shared_dir;  // substituted for %shared; empty = auto-detect
};

// Runs every case of one golden file in process.
GoldenResult RunGoldenFile(const std::string& path, const GoldenOptions& options, Env& env);

// The golden files under `path` (a file or a directory, recursively), sorted.
std::vector<std::string> FindGoldenFiles(const std::string& path);

}  // namespace carve::cli
