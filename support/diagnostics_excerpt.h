// The source-line echo under a diagnostic: the line (or, when it is too long
// to read, a window of it around the column, with "..." where it was cut) and
// a caret line whose '^' sits under the byte the column points at.
//
// Columns are 1-based byte offsets (support/source.h). The caret line copies
// tabs from the echoed text so that a terminal expands both lines alike, and
// advances one position per UTF-8 code point, not per byte, so the caret lands
// under the right character after multi-byte text. Bytes that would not print
// as themselves (control bytes, malformed UTF-8, bidi controls: see
// support/printable.h) are echoed as escapes (`\x00`) and the caret line
// pads by the escape's length, so the caret stays under the right character.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace carve {

struct SourceExcerpt {
  std::string text;   // the echoed line or window, unprintable bytes escaped
  std::string caret;  // whitespace then '^'
};

// Lines of at most `max_chars` code points (an escaped byte counts as one)
// are echoed whole. Longer lines are cut to a window of about `max_chars`
// code points around `column`, never inside a UTF-8 sequence, marked "..."
// at each cut end.
SourceExcerpt MakeSourceExcerpt(std::string_view line, uint32_t column,
                                size_t max_chars = 200);

}  // namespace carve
