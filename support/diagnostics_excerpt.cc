#include "support/diagnostics_excerpt.h"

#include <algorithm>
#include <vector>

namespace carve {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Byte offsets where each code point of `line` starts, plus line.size().
// Byte 0 always starts one, even a stray continuation byte (binary input).
std::vector<size_t> CodePointStarts(std::string_view line) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < line.size(); ++i) {
    if (i == 0 || !IsContinuation(static_cast<unsigned char>(line[i]))) starts.push_back(i);
  }
  starts.push_back(line.size());
  return starts;
}

// Control bytes (but not tabs) would garble the terminal: show them as '?'.
void AppendShown(std::string& out, std::string_view bytes) {
  for (char c : bytes) {
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back(c == '\t' ? '\t' : (u < 0x20 || u == 0x7f) ? '?' : c);
  }
}

// One caret position per code point of `bytes`; tabs are kept as tabs.
void AppendPadding(std::string& out, std::string_view bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    char c = bytes[i];
    if (c == '\t') {
      out.push_back('\t');
    } else if (i == 0 || !IsContinuation(static_cast<unsigned char>(c))) {
      out.push_back(' ');
    }
  }
}

}  // namespace

SourceExcerpt MakeSourceExcerpt(std::string_view line, uint32_t column,
                                size_t max_chars) {
  std::vector<size_t> starts = CodePointStarts(line);
  size_t count = starts.size() - 1;  // code points in the line
  // The byte the caret points at; a column past the end points just after it.
  size_t target = column == 0 ? 0 : std::min<size_t>(column - 1, line.size());
  // Index of the code point holding `target` (the one after the last if at end).
  size_t target_cp =
      std::upper_bound(starts.begin(), starts.end(), target) - starts.begin() - 1;
  size_t first = 0, last = count;  // code point window [first, last)
  if (count > max_chars) {
    max_chars = std::max<size_t>(max_chars, 8);
    first = target_cp > max_chars / 2 ? target_cp - max_chars / 2 : 0;
    last = std::min(count, first + max_chars);
    if (last - first < max_chars) first = last > max_chars ? last - max_chars : 0;
  }
  SourceExcerpt ex;
  std::string_view window = line.substr(starts[first], starts[last] - starts[first]);
  if (first > 0) ex.text = "...";
  AppendShown(ex.text, window);
  if (last < count) ex.text += "...";
  ex.caret.assign(first > 0 ? 3 : 0, ' ');
  AppendPadding(ex.caret,
                line.substr(starts[first], starts[std::min(target_cp, last)] - starts[first]));
  ex.caret.push_back('^');
  return ex;
}

}  // namespace carve
