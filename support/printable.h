// Text from the user's input, made safe to echo on a terminal. Input files
// and command lines may hold raw binary: a NUL, an escape sequence, a bidi
// override or a malformed UTF-8 byte echoed verbatim under `error:` would
// garble the terminal or show text that is not what the file holds, so
// such bytes are shown as escapes (`\x00`, `\u202e`) instead.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace carve {

// One unit of text as it is shown: a printable code point copied as is, or
// bytes shown as an escape.
struct PrintableUnit {
  size_t size = 0;     // bytes of the input it covers (at least 1)
  bool escaped = false;
  std::string shown;   // the escape, when `escaped`
};

// The unit starting at byte `i` of `text` (i < text.size()). Escaped: C0
// control bytes (tab too: callers that keep tabs test for it first), DEL,
// C1 controls, the bidi controls (U+200E-F, U+202A-E, U+2066-9), the line
// and paragraph separators (U+2028-9), and every byte of a malformed or
// overlong UTF-8 sequence, one `\xHH` escape per byte (a code point
// from U+0080 up is shown as `\uHHHH`). Other well-formed UTF-8 is copied.
PrintableUnit NextPrintableUnit(std::string_view text, size_t i);

// `text` with every escaped unit (above) replaced by its escape; with
// `keep_line_breaks`, '\n' and '\t' are kept (a message's own layout).
std::string EscapeNonPrintable(std::string_view text, bool keep_line_breaks = false);

}  // namespace carve
