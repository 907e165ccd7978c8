// Numbers in option values, read strictly: the whole text, no sign on an
// unsigned value, no leading blank, in range, finite. strtoull and strtod
// accept " 5", "-1" (as 2^64-1), "5x" and "nan", and saturate on overflow,
// which silently turned `--seed -1` and `--seed 99999999999999999999` into
// the same seed and `--rtol nan` into a comparison nothing passes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace carve::cli {

// A decimal integer in [0, 2^64).
std::optional<uint64_t> ParseUnsignedText(std::string_view text);
// A decimal integer in [INT64_MIN, INT64_MAX].
std::optional<int64_t> ParseIntegerText(std::string_view text);
// A finite decimal or exponent number ("1e-5", "0.25"; not inf or nan).
std::optional<double> ParseFiniteText(std::string_view text);

}  // namespace carve::cli
