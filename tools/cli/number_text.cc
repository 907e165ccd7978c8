#include "tools/cli/number_text.h"

#include <charconv>
#include <cmath>

namespace carve::cli {
namespace {

template <typename T>
std::optional<T> Whole(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<uint64_t> ParseUnsignedText(std::string_view text) { return Whole<uint64_t>(text); }

std::optional<int64_t> ParseIntegerText(std::string_view text) { return Whole<int64_t>(text); }

std::optional<double> ParseFiniteText(std::string_view text) {
  std::optional<double> v = Whole<double>(text);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

}  // namespace carve::cli
