#include "tools/cli/golden_compare.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace carve::cli {
namespace {

// One piece of a line: a run of text, or a number with its spelling.
struct Token {
  bool number = false;
  std::string_view text;
  double value = 0;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The length of the decimal literal at s[i] (0 if none starts there).
size_t NumberLength(std::string_view s, size_t i) {
  size_t j = i;
  if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
  const size_t digits_from = j;
  while (j < s.size() && IsDigit(s[j])) ++j;
  bool any = j > digits_from;
  if (j < s.size() && s[j] == '.') {
    const size_t frac_from = ++j;
    while (j < s.size() && IsDigit(s[j])) ++j;
    any = any || j > frac_from;
  }
  if (!any) return 0;
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    size_t e = j + 1;
    if (e < s.size() && (s[e] == '-' || s[e] == '+')) ++e;
    if (e < s.size() && IsDigit(s[e])) {
      while (e < s.size() && IsDigit(s[e])) ++e;
      j = e;
    }
  }
  return j - i;
}

std::vector<Token> Tokenize(std::string_view line) {
  std::vector<Token> tokens;
  size_t text_from = 0;
  for (size_t i = 0; i < line.size();) {
    // A number may not continue an identifier or another number.
    const bool boundary = i == 0 || !(IsIdentChar(line[i - 1]) || line[i - 1] == '.');
    const size_t len = boundary ? NumberLength(line, i) : 0;
    if (len == 0) {
      ++i;
      continue;
    }
    if (i > text_from) tokens.push_back(Token{false, line.substr(text_from, i - text_from)});
    std::string_view spelled = line.substr(i, len);
    std::string_view digits = spelled[0] == '+' ? spelled.substr(1) : spelled;
    double value = 0;
    std::from_chars(digits.data(), digits.data() + digits.size(), value);
    tokens.push_back(Token{true, spelled, value});
    i += len;
    text_from = i;
  }
  if (text_from < line.size()) tokens.push_back(Token{false, line.substr(text_from)});
  return tokens;
}

// Lines of `text`; a final '\n' ends the last line rather than starting
// an empty one (CompareTolerant checks it separately).
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', from)) {
    lines.push_back(text.substr(from, nl - from));
    from = nl + 1;
  }
  if (from < text.size()) lines.push_back(text.substr(from));
  return lines;
}

bool Close(double expected, double actual, const NumericTolerance& tol) {
  return std::fabs(actual - expected) <= tol.atol + tol.rtol * std::fabs(expected);
}

// "" when the lines match, else why not.
std::string CompareLine(std::string_view expected, std::string_view actual,
                        const NumericTolerance& tol) {
  if (expected == actual) return "";
  const std::vector<Token> e = Tokenize(expected), a = Tokenize(actual);
  for (size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
    if (i >= e.size() || i >= a.size()) return "the lines hold different numbers of fields";
    if (e[i].number != a[i].number) {
      return fmt::format("'{}' against '{}': a number against text", e[i].text, a[i].text);
    }
    if (!e[i].number) {
      if (e[i].text == a[i].text) continue;
      return fmt::format("text '{}' against '{}'", e[i].text, a[i].text);
    }
    if (!Close(e[i].value, a[i].value, tol)) {
      return fmt::format("{} against {}: outside rtol={} atol={}", e[i].text, a[i].text, tol.rtol,
                         tol.atol);
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<NumericTolerance> ParseTolerance(std::string_view spec) {
  NumericTolerance tol;
  bool any = false;
  size_t i = 0;
  while (i < spec.size()) {
    if (spec[i] == ' ' || spec[i] == '\t') {
      ++i;
      continue;
    }
    size_t end = spec.find_first_of(" \t", i);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view word = spec.substr(i, end - i);
    i = end;
    double* field = word.starts_with("rtol=") ? &tol.rtol
                    : word.starts_with("atol=") ? &tol.atol
                                                : nullptr;
    if (field == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("TOLERANCE: expected rtol=R or atol=A, got '{}'", word));
    }
    std::string_view value = word.substr(5);
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), *field);
    if (ec != std::errc() || ptr != value.data() + value.size() || !std::isfinite(*field) ||
        *field < 0) {
      return absl::InvalidArgumentError(
          fmt::format("TOLERANCE: '{}' is not a finite non-negative number", word));
    }
    any = true;
  }
  if (!any) return absl::InvalidArgumentError("TOLERANCE: expected rtol=R and/or atol=A");
  return tol;
}

std::string CompareTolerant(std::string_view expected, std::string_view actual,
                            const std::vector<std::optional<NumericTolerance>>& line_tolerance) {
  const std::vector<std::string_view> e = Lines(expected), a = Lines(actual);
  auto show = [](const std::vector<std::string_view>& lines, size_t i) {
    return i < lines.size() ? std::string(lines[i]) : std::string("<end of output>");
  };
  for (size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
    std::string why;
    if (i >= e.size() || i >= a.size()) {
      why = i >= a.size() ? "a line is missing" : "an extra line";
    } else if (e[i] != a[i]) {
      why = i < line_tolerance.size() && line_tolerance[i].has_value()
                ? CompareLine(e[i], a[i], *line_tolerance[i])
                : "the lines differ";
    }
    if (!why.empty()) {
      return fmt::format("output line {}:\n    expected: {}\n    actual:   {}\n    ({})", i + 1,
                         show(e, i), show(a, i), why);
    }
  }
  if (expected.ends_with('\n') != actual.ends_with('\n')) {
    return fmt::format("output line {}: {} final newline", e.size(),
                       actual.ends_with('\n') ? "an extra" : "a missing");
  }
  return "";
}

std::string CompareTolerant(std::string_view expected, std::string_view actual,
                            const NumericTolerance& tol) {
  const size_t lines = Lines(actual).size();
  return CompareTolerant(expected, actual,
                         std::vector<std::optional<NumericTolerance>>(lines, tol));
}

}  // namespace carve::cli
