#include "support/diagnostics_excerpt.h"

#include <algorithm>
#include <vector>

#include "support/printable.h"

namespace carve {
namespace {

// The line cut into the units it is shown as: a tab, a printable code point
// (one column), or bytes shown as an escape (`\x00`: one column per escape
// character), so that the caret line can pad by what is shown.
struct ShownUnit {
  size_t begin = 0;   // byte offset in the line
  std::string shown;  // the escape, or empty when the bytes are shown as is
};

std::vector<ShownUnit> Units(std::string_view line) {
  std::vector<ShownUnit> units;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '\t') {
      units.push_back({i, ""});
      ++i;
      continue;
    }
    PrintableUnit u = NextPrintableUnit(line, i);
    units.push_back({i, u.escaped ? std::move(u.shown) : std::string()});
    i += u.size;
  }
  return units;
}

}  // namespace

SourceExcerpt MakeSourceExcerpt(std::string_view line, uint32_t column,
                                size_t max_chars) {
  std::vector<ShownUnit> units = Units(line);
  const size_t count = units.size();
  auto begin_of = [&](size_t u) { return u < count ? units[u].begin : line.size(); };
  // The byte the caret points at; a column past the end points just after it.
  size_t target = column == 0 ? 0 : std::min<size_t>(column - 1, line.size());
  // Index of the unit holding `target` (`count` when at the end).
  size_t target_unit = std::upper_bound(units.begin(), units.end(), target,
                                        [](size_t t, const ShownUnit& u) { return t < u.begin; }) -
                       units.begin();
  target_unit = target_unit == 0 ? 0 : target_unit - 1;
  if (target >= line.size()) target_unit = count;
  size_t first = 0, last = count;  // unit window [first, last)
  if (count > max_chars) {
    max_chars = std::max<size_t>(max_chars, 8);
    first = target_unit > max_chars / 2 ? target_unit - max_chars / 2 : 0;
    last = std::min(count, first + max_chars);
    if (last - first < max_chars) first = last > max_chars ? last - max_chars : 0;
  }
  SourceExcerpt ex;
  if (first > 0) ex.text = "...";
  ex.caret.assign(first > 0 ? 3 : 0, ' ');
  for (size_t u = first; u < last; ++u) {
    const ShownUnit& unit = units[u];
    std::string_view bytes = line.substr(unit.begin, begin_of(u + 1) - unit.begin);
    ex.text += unit.shown.empty() ? bytes : std::string_view(unit.shown);
    if (u >= target_unit) continue;
    // The caret line pads by what the terminal shows: a tab as a tab, an
    // escape by its length, a character by one column.
    if (bytes == "\t") {
      ex.caret.push_back('\t');
    } else {
      ex.caret.append(unit.shown.empty() ? 1 : unit.shown.size(), ' ');
    }
  }
  if (last < count) ex.text += "...";
  ex.caret.push_back('^');
  return ex;
}

}  // namespace carve
