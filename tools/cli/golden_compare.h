// Output comparison for golden files under a numeric tolerance.
//
// Interpreter summaries print float statistics with six significant digits;
// sums rounded on AVX2, AVX-512 or portable builds can differ in that last
// digit. A case with `// TOLERANCE: rtol=R atol=A` compares its output with
// the expected text number by number (|actual - expected| <= A + R *
// |expected|) and everything else byte for byte, so a wrong shape, dtype,
// word or line still fails. See docs/golden-tests.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace carve::cli {

struct NumericTolerance {
  double rtol = 0;
  double atol = 0;
};

// Parses the argument of a TOLERANCE directive: `rtol=R`, `atol=A` or both,
// separated by spaces; each value a finite, non-negative number.
absl::StatusOr<NumericTolerance> ParseTolerance(std::string_view spec);

// "" when `actual` matches `expected`; otherwise a report of the first
// difference (output line, expected and actual text, and why). Lines are
// compared one to one, so a missing or extra line fails. Line i of `actual`
// is compared under line_tolerance[i]; a line without one (nullopt, or
// beyond the vector) must match byte for byte. Under a tolerance, numbers
// are decimal literals (optional sign, digits, fraction, exponent) that do
// not continue an identifier or another number: the 32 of `float32` and the
// 0 of `out0` are text, and all text must match exactly.
std::string CompareTolerant(std::string_view expected, std::string_view actual,
                            const std::vector<std::optional<NumericTolerance>>& line_tolerance);

// The same with one tolerance for every line.
std::string CompareTolerant(std::string_view expected, std::string_view actual,
                            const NumericTolerance& tol);

}  // namespace carve::cli
