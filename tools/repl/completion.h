// Tab completion for the REPL: given the line up to the cursor, what the
// word being typed can become. Command names; pass names (shown with their
// argument lists); op names; backend and pattern names; `@function` and
// `%N` names of the current step; step numbers; file paths.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tools/repl/session.h"

namespace carve::repl {

struct Candidate {
  std::string text;     // replaces the word being typed
  std::string display;  // shown in the list ("MergeComposite(pattern_table)")
};

struct Completion {
  size_t start = 0;                   // where the word being typed begins in the line
  std::vector<Candidate> candidates;  // sorted, unique
};

Completion Complete(Session& session, std::string_view before_cursor);

// The longest prefix all candidates share.
std::string CommonPrefix(const std::vector<Candidate>& candidates);

}  // namespace carve::repl
