// Text from the user's input, made safe to echo on a terminal. Input files
// and command lines may hold raw binary: a NUL, an escape sequence, a bidi
// override or a malformed UTF-8 byte echoed verbatim under `error:` would
// garble the terminal or show text that is not what the file holds, so
// such bytes are shown as escapes (`\x00`, `\u202e`) instead.
#pragma once

#include <cstddef>
#include <ostream>
#include <streambuf>
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

// A stream buffer that forwards everything written to it to `sink` as
// EscapeNonPrintable(text, keep_line_breaks=true) shows it. carve puts its
// standard error behind one (tools/cli/cli.cc), so that no message, however
// it was written, echoes a user's raw bytes to the terminal. A UTF-8
// sequence cut between two writes is held until its rest arrives, and
// escaped byte by byte if the buffer is destroyed first.
class PrintableStreamBuf : public std::streambuf {
 public:
  explicit PrintableStreamBuf(std::ostream& sink) : sink_(sink) {}
  ~PrintableStreamBuf() override;
  PrintableStreamBuf(const PrintableStreamBuf&) = delete;
  PrintableStreamBuf& operator=(const PrintableStreamBuf&) = delete;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  // Writes `held_` escaped, but for a trailing incomplete UTF-8 sequence
  // unless `all`.
  void Forward(bool all);

  std::ostream& sink_;
  std::string held_;
};

}  // namespace carve
