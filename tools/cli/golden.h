// The golden-file test runner behind `carve test`.
//
// A golden file holds one or more cases separated by a line `// -----`. Each
// case carries its own directives in `//` comments:
//
//   // RUN: carve fmt %s | carve fmt -      one command pipeline per RUN line
//   // RUN: not carve check %s 2>&1 | FileCheck %s --check-prefix=ERR
//   // CHECK: text                          LLVM FileCheck directives
//   //   (-NEXT, -SAME, -NOT, -DAG, -LABEL, -EMPTY, -COUNT-N, {{re}}, [[V:re]])
//   // EXIT: 1                              expected exit code of the last RUN
//   %0 = foo(%x);  // expected-error {{unknown operator}}
//   // expected-error@+1:12 {{...}}        error on a later line (and column)
//
// The outputs of the RUN lines without FileCheck are checked by the case's
// CHECK lines, or its expected-* directives; without either they are
// compared with `<file>.expected` (cases separated by `// -----`), which
// `carve test --update` rewrites. Malformed or misspelled directives and
// cases without RUN fail. See docs/golden-tests.md.
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
  // Ctrl-C stopped the file (support/cancellation.h): `cases` counts the
  // cases that ran to the end, and no .expected file was compared or written.
  bool interrupted = false;
  std::string report;  // failure details
};

struct GoldenOptions {
  bool update = false;
  std::string shared_dir;  // substituted for %shared; empty = auto-detect
  // Check prefixes for RUN lines without their own FileCheck; empty = CHECK.
  std::vector<std::string> check_prefixes;
};

// Runs every case of one golden file in process.
GoldenResult RunGoldenFile(const std::string& path, const GoldenOptions& options, Env& env);

// The golden files under `path` (a file or a directory, recursively), sorted.
std::vector<std::string> FindGoldenFiles(const std::string& path);

}  // namespace carve::cli
