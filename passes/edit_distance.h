// "Did you mean" suggestions for names the user typed (passes, targets,
// pass arguments).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace carve {

// Levenshtein distance between two strings.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `name`, or "" when none is reasonably close
// (within max(2, |name| / 3) edits). Ties go to the earlier candidate.
std::string NearestName(std::string_view name, std::span<const std::string> candidates);

}  // namespace carve
