// Edit distances for "did you mean" suggestions on names the user typed
// (ops, attributes, passes, targets, patterns, pass arguments).
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace carve {

// Levenshtein distance between two strings, or `limit + 1` as soon as it is
// known to exceed `limit`: a caller that only wants close names (all of
// them) need not fill the whole table for far ones, which matters where
// every unknown name is compared with hundreds of candidates (the parser's
// unknown ops, and so a fuzzer, which makes many).
size_t EditDistance(std::string_view a, std::string_view b,
                    size_t limit = std::numeric_limits<size_t>::max() - 1);

// The candidate closest to `name`, or "" when none is reasonably close
// (within max(2, |name| / 3) edits). Ties go to the earlier candidate.
std::string NearestName(std::string_view name, std::span<const std::string> candidates);

}  // namespace carve
