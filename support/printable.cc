#include "support/printable.h"

#include "fmt/format.h"

namespace carve {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the well-formed UTF-8 sequence at `i` (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) and its code point,
// or 0 when the bytes there are not one.
size_t Utf8Sequence(std::string_view s, size_t i, char32_t& cp) {
  const unsigned char b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  const unsigned char b1 = static_cast<unsigned char>(s[i + 1]);
  if (b1 < lo || b1 > hi) return 0;
  cp = b0 & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if (!IsContinuation(b)) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  return n;
}

// Code points that print nothing visible or reorder the text around them.
bool IsInvisible(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

PrintableUnit NextPrintableUnit(std::string_view text, size_t i) {
  PrintableUnit unit;
  char32_t cp = 0;
  size_t n = Utf8Sequence(text, i, cp);
  if (n == 0) {  // a byte that is not (the start of) a well-formed character
    unit.size = 1;
    unit.escaped = true;
    unit.shown = fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
    return unit;
  }
  unit.size = n;
  if (IsInvisible(cp)) {
    unit.escaped = true;
    unit.shown = cp < 0x80 ? fmt::format("\\x{:02x}", static_cast<unsigned>(cp))
                            : fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
  }
  return unit;
}

std::string EscapeNonPrintable(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (keep_line_breaks && (text[i] == '\n' || text[i] == '\t')) {
      out.push_back(text[i++]);
      continue;
    }
    PrintableUnit unit = NextPrintableUnit(text, i);
    if (unit.escaped) {
      out += unit.shown;
    } else {
      out.append(text.substr(i, unit.size));
    }
    i += unit.size;
  }
  return out;
}

namespace {

// The length of a UTF-8 sequence that starts `text`'s last bytes and is cut
// short by its end (0 when the text ends on a whole character or on bytes
// that can never become one).
size_t IncompleteTail(std::string_view text) {
  for (size_t k = 1; k <= 3 && k <= text.size(); ++k) {
    const unsigned char b = static_cast<unsigned char>(text[text.size() - k]);
    if (IsContinuation(b)) continue;
    size_t needed = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3
                    : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    return needed > k ? k : 0;
  }
  return 0;
}

}  // namespace

PrintableStreamBuf::~PrintableStreamBuf() {
  Forward(/*all=*/true);
  sink_.flush();
}

PrintableStreamBuf::int_type PrintableStreamBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  xsputn(&ch, 1);
  return c;
}

std::streamsize PrintableStreamBuf::xsputn(const char* s, std::streamsize n) {
  held_.append(s, static_cast<size_t>(n));
  Forward(/*all=*/false);
  return n;
}

int PrintableStreamBuf::sync() {
  Forward(/*all=*/false);
  sink_.flush();
  return sink_ ? 0 : -1;
}

void PrintableStreamBuf::Forward(bool all) {
  const size_t keep = all ? 0 : IncompleteTail(held_);
  const std::string_view text = std::string_view(held_).substr(0, held_.size() - keep);
  if (!text.empty()) {
    const std::string shown = EscapeNonPrintable(text, /*keep_line_breaks=*/true);
    sink_.write(shown.data(), static_cast<std::streamsize>(shown.size()));
  }
  held_.erase(0, held_.size() - keep);
}

}  // namespace carve
