// The lexer's lookahead for the parser's fast paths: scans over raw text
// that find where a bracketed group or a dotted name ends without making
// tokens, and SkipTo, which resumes lexing after such a scan.
#include <array>
#include <string_view>

#include "grammar/lexer.h"
#include "grammar/lexer_chars.h"
#include "grammar/lexer_keywords.h"

namespace carve {

using lexer_keywords::KeywordKind;

namespace {

// Bytes ScanGroup must look at: 1 for brackets and quotes, 2 for the bytes
// that make it give up.
constexpr std::array<uint8_t, 256> MakeScanTable() {
  std::array<uint8_t, 256> t{};
  for (char c : std::string_view("()[]\"")) t[uint8_t(c)] = 1;
  for (char c : std::string_view("/#{};")) t[uint8_t(c)] = 2;
  return t;
}
constexpr std::array<uint8_t, 256> kScanTable = MakeScanTable();

}  // namespace

uint32_t Lexer::ScanGroup(uint32_t from, char close, uint32_t limit) const {
  const char* p = text_.data() + from;
  const char* stop = text_.size() - from > limit ? p + limit : end_;
  int depth = 0;
  for (;; ++p) {
    while (p < stop && kScanTable[uint8_t(*p)] == 0) ++p;
    if (p >= stop) return 0;
    switch (*p) {
      case '(':
      case '[':
        ++depth;
        break;
      case ')':
      case ']':
        if (depth == 0) {
          return *p == close ? static_cast<uint32_t>(p - text_.data()) : 0;
        }
        --depth;
        break;
      case '"':
        for (++p; p < stop && *p != '"'; ++p) {
          if (*p == '\\') ++p;
        }
        if (p >= stop) return 0;
        break;
      default:
        return 0;
    }
  }
}

uint32_t Lexer::ScanDottedName(uint32_t from) const {
  const char* p = text_.data() + from;
  const char* q = p;
  while (q < end_ && IsIdentContinue(*q)) ++q;
  // Each `.word` glued on must lex as '.' then an identifier (not a
  // keyword, `_`, `inff`/`nanf` or `meta[`).
  while (q + 1 < end_ && *q == '.' && IsIdentStart(q[1])) {
    const char* w = q + 1;
    const char* e = w + 1;
    while (e < end_ && IsIdentContinue(*e)) ++e;
    std::string_view word(w, size_t(e - w));
    if (word == "_" || KeywordKind(word) != TokenKind::kIdent ||
        InfNanLength(w) == word.size() || (word == "meta" && e < end_ && *e == '[')) {
      break;
    }
    q = e;
  }
  return static_cast<uint32_t>(q - text_.data());
}

bool Lexer::SkipTo(uint32_t offset) {
  if (count_ > 0 && ring_[(head_ + count_ - 1) & kRingMask].end > offset) return false;
  count_ = 0;
  cur_ = text_.data() + offset;
  space_before_ = false;
  last_kind_ = TokenKind::kError;  // anything but kDot
  return true;
}

}  // namespace carve
