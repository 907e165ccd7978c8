// The cases of a golden file and their directives, parsed strictly: a
// directive that is malformed, misspelled (`CHEK:`, `CHECK-FOO:`,
// `Check:`), applies to nothing, or a case without a RUN line is an error
// of the case, never skipped. See docs/golden-tests.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/cli/golden_compare.h"

namespace carve::cli {

// The line that separates the cases of a golden file.
inline constexpr std::string_view kCaseSeparator = "// -----";

// `text` split at '\n' (a last line without '\n' is kept; no trailing empty line).
std::vector<std::string> SplitLines(const std::string& text);

// One command of a RUN pipeline.
struct RunStage {
  bool negate = false;             // `not carve ...`: must exit non-zero
  bool merge_stderr = false;       // `... 2>&1`: stderr joins the piped stdout
  std::vector<std::string> words;  // after `not`, without `2>&1`, unsubstituted
};

// `// RUN: [not] carve ARGS [2>&1] [| [not] carve ARGS]... [| FileCheck %s [OPTIONS]]`
struct RunLine {
  int line = 0;                       // 1-based, in the golden file
  int column = 0;                     // of `RUN:`, 1-based
  std::vector<RunStage> stages;       // the carve commands
  bool filecheck = false;             // ends in `| FileCheck %s`
  std::vector<std::string> prefixes;  // its --check-prefix(es); empty = CHECK
  bool allow_empty = false;           // its --allow-empty
};

struct ExpectedDiag {
  int line = 0;
  int column = 0;  // 0 = any
  std::string severity;
  std::string message;
  bool found = false;
};

struct GoldenCase {
  int first_line = 0;  // 0-based index of its first line in the file
  std::string text;    // the file with the other cases' lines blanked
  std::vector<RunLine> runs;
  std::vector<ExpectedDiag> diags;
  std::optional<int> exit_code;  // EXIT: of the last RUN line
  // TOLERANCE: numbers in this case's part of the .expected file compare
  // within it (golden_compare.h).
  std::optional<NumericTolerance> tolerance;
  std::string directive_error;  // "" or why the case's directives are wrong
};

// Splits `text` at `// -----` lines and parses each case's RUN, EXIT,
// TOLERANCE and expected-* directives, and lints every directive-looking
// comment against the known directives (RUN, EXIT, TOLERANCE, COM and the
// check prefixes: `default_prefixes` and those named on the case's RUN
// lines). `file` names the file in messages.
std::vector<GoldenCase> ParseGoldenCases(const std::string& file, const std::string& text,
                                         const std::vector<std::string>& default_prefixes);

}  // namespace carve::cli
