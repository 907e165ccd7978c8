// A FileCheck for `carve test`: the semantics of LLVM's FileCheck (checked
// against /usr/lib/llvm-14/bin/FileCheck by tests/tools_cli/filecheck_diff_test.cc)
// with RE2 for the regular expressions, plus a strict mode that rejects
// malformed directives instead of skipping them.
//
// Directives (PREFIX is CHECK unless other prefixes are given):
//   PREFIX: pat          matches after the previous match
//   PREFIX-NEXT: pat     ... on the line right after it
//   PREFIX-SAME: pat     ... on the same line
//   PREFIX-EMPTY:        the next line is empty
//   PREFIX-NOT: pat      does not occur between the surrounding matches
//   PREFIX-DAG: pat      a group of these matches in any order
//   PREFIX-LABEL: pat    splits the output into blocks checked separately
//   PREFIX-COUNT-N: pat  matches N times in a row
//   PREFIX{LITERAL}: pat no {{ }} or [[ ]] inside pat
// Patterns: literal text (runs of spaces and tabs match any run of spaces
// and tabs), `{{regex}}` (RE2 syntax, never across a line end),
// `[[NAME:regex]]` defines NAME, `[[NAME]]` uses a value defined by an
// earlier directive, `[[@LINE]]`, `[[@LINE+N]]`, `[[@LINE-N]]` (also
// `[[#@LINE+N]]`) the line number of the directive. COM: and RUN: lines are
// comments.
//
// Known differences from LLVM's FileCheck, each an error rather than a
// different answer: numeric blocks `[[#VAR...]]` other than @LINE, and the
// use of a variable on the line that defines it (a back-reference, which RE2
// does not have). Regexes are RE2, not POSIX: `\d`, `\s` work here; POSIX
// classes such as `[[:digit:]]` work in both. An empty input is allowed (as
// FileCheck --allow-empty).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace carve::filecheck {

struct CheckOptions {
  std::vector<std::string> check_prefixes;    // empty = {"CHECK"}
  std::vector<std::string> comment_prefixes;  // empty = {"COM", "RUN"}
  // Reject what FileCheck skips silently: a prefix followed by an unknown
  // suffix (`CHECK-FOO:`, `CHECK-NEXTT:`), by `_` (`CHECK_NEXT:`), by
  // space before the colon (`CHECK :`), or by bad modifiers.
  bool strict = false;
  // No error when a prefix has no directive (FileCheck's
  // --allow-unused-prefixes); checks() is then empty when none has one.
  bool allow_unused_prefixes = false;
};

enum class Kind { kPlain, kNext, kSame, kNot, kDag, kLabel, kEmpty, kEof };

// One piece of a pattern.
struct Piece {
  enum Type { kLiteral, kRegex, kDefine, kUse, kLine };
  Type type = kLiteral;
  std::string text;  // literal text or regex
  std::string name;  // variable name (kDefine, kUse)
  int line = 0;      // kLine: the value
  int group = 0;     // kDefine: its capture group in the assembled regex
};

struct Pattern {
  Kind kind = Kind::kPlain;
  int count = 1;
  bool literal = false;  // PREFIX{LITERAL}:
  std::string prefix;
  std::vector<Piece> pieces;
  int line = 0;               // of the directive, 1-based (the value of @LINE)
  size_t prefix_offset = 0;   // where the prefix starts in the check text
  size_t pattern_offset = 0;  // where the pattern starts
  // The name the directive is shown as: CHECK-NEXT, CHECK-COUNT, ...
  std::string Description() const;
};

// A positive directive with the CHECK-DAG / CHECK-NOT directives before it.
struct CheckString {
  Pattern pattern;
  std::vector<Pattern> dag_not;
};

class CheckFile {
 public:
  // Parses the directives of `text`; an error is rendered FileCheck-style
  // (`name:line:col: error: message`, the line and a caret).
  static absl::StatusOr<CheckFile> Parse(std::string name, std::string_view text,
                                         const CheckOptions& options = {});

  // Matches `input`; "" when every directive holds, otherwise the failure
  // report: the failing directive as `name:line:col: error: ...`, where in
  // the input the search began or the excluded text was found, and the
  // input lines around that point.
  std::string Match(std::string_view input, std::string_view input_name) const;

  const std::vector<CheckString>& checks() const { return checks_; }

 private:
  std::string name_;
  std::string text_;
  std::vector<CheckString> checks_;
};

// The Damerau (optimal string alignment) edit distance, used to tell a
// misspelled directive (`CHEKC:`) from prose.
int EditDistance(std::string_view a, std::string_view b);

}  // namespace carve::filecheck
