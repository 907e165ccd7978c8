// A unified diff of two runs of lines (`diff -u` hunks), for the REPL's
// `diff` command.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace carve::repl {

struct DiffSide {
  std::vector<std::string_view> lines;
  size_t first_line = 0;  // 0-based number of lines[0] in its whole text
};

// The hunks (`@@ -l,n +l,n @@ section`, then ` `, `-` and `+` lines) that
// turn `a` into `b`, with `context` unchanged lines around each change; ""
// when they are equal. Line numbers count from each side's first_line.
// Uses Myers' O(ND) algorithm after stripping the common prefix and suffix;
// when more than `max_edits` lines differ, the differing middle is reported
// as one replacement (still a correct diff, not a minimal one).
std::string UnifiedDiff(const DiffSide& a, const DiffSide& b, int context, std::string_view section,
                        size_t max_edits = 2000);

}  // namespace carve::repl
