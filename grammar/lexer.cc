// The hand-written lexer (see lexer.h for the rules). The hot path is a
// dispatch on the first byte through a character-class table; comments are
// skipped without producing tokens.
#include "grammar/lexer.h"

#include <array>
#include <cstring>
#include <new>

#include "fmt/format.h"
#include "grammar/lexer_chars.h"
#include "grammar/lexer_keywords.h"

namespace carve {

using lexer_keywords::KeywordKind;

namespace {

// The token of each byte that is a whole token by itself (kEof for the
// others), so that `(`, `,` and `;` skip the punctuation switch.
constexpr std::array<TokenKind, 256> MakeSinglePunct() {
  std::array<TokenKind, 256> t{};
  t[uint8_t('(')] = TokenKind::kLParen;
  t[uint8_t(')')] = TokenKind::kRParen;
  t[uint8_t('[')] = TokenKind::kLBracket;
  t[uint8_t(']')] = TokenKind::kRBracket;
  t[uint8_t('{')] = TokenKind::kLBrace;
  t[uint8_t('}')] = TokenKind::kRBrace;
  t[uint8_t(',')] = TokenKind::kComma;
  t[uint8_t(';')] = TokenKind::kSemicolon;
  t[uint8_t(':')] = TokenKind::kColon;
  t[uint8_t('+')] = TokenKind::kPlus;
  t[uint8_t('*')] = TokenKind::kStar;
  t[uint8_t('/')] = TokenKind::kSlash;  // comments were skipped before
  t[uint8_t('?')] = TokenKind::kQuestion;
  t[uint8_t('|')] = TokenKind::kPipe;
  return t;
}
constexpr std::array<TokenKind, 256> kSinglePunct = MakeSinglePunct();

}  // namespace

Lexer::Lexer(std::string_view text, uint32_t file_id, DiagnosticEngine* diags)
    : text_(text),
      file_(file_id),
      diags_(diags),
      cur_(text.data()),
      end_(text.data() + text.size()) {
  // Editors on Windows start UTF-8 files with a byte-order mark; it carries
  // no meaning in UTF-8, so skip it rather than reject the file. Spans stay
  // offsets into the whole text, so carets still point at the right bytes.
  if (text.starts_with("\xEF\xBB\xBF")) cur_ += 3;
}

void Lexer::Fill(uint32_t k) {
  if (k > kMaxPeek) k = kMaxPeek;
  while (count_ <= k) {
    // Constructed in place: copying a freshly written token costs a
    // store-forwarding stall per token.
    new (&ring_[(head_ + count_) & kRingMask]) Token(Lex());
    ++count_;
  }
}

Token Lexer::Make(TokenKind kind, const char* begin, const char* end) {
  Token t;
  t.kind = kind;
  t.flags = space_before_ ? Token::kSpaceBefore : 0;
  t.begin = static_cast<uint32_t>(begin - text_.data());
  t.end = static_cast<uint32_t>(end - text_.data());
  cur_ = end;
  space_before_ = false;
  last_kind_ = kind;
  return t;
}

Token Lexer::Error(const char* begin, const char* end, std::string message) {
  Token t = Make(TokenKind::kError, begin, end);
  if (diags_ != nullptr) diags_->Error(SpanOf(t), std::move(message));
  return t;
}

bool Lexer::SkipTrivia() {
  const char* p = cur_;
  for (;;) {
    while (p < end_ && IsSpace(*p)) ++p;
    if (p + 1 >= end_ || p[0] != '/') break;
    if (p[1] == '/') {
      const void* nl = std::memchr(p, '\n', size_t(end_ - p));
      p = nl ? static_cast<const char*>(nl) + 1 : end_;
    } else if (p[1] == '*') {
      const char* open = p;
      p = SkipBlockComment(p + 2);
      if (p == nullptr) {
        space_before_ = true;
        Error(open, open + 2, "unterminated block comment");
        cur_ = end_;
        return false;
      }
    } else {
      break;
    }
  }
  if (p != cur_) space_before_ = true;
  cur_ = p;
  return true;
}

const char* Lexer::SkipBlockComment(const char* p) const {
  // Every `/*` and `*/` contains a '*', so jump from star to star. `resume`
  // is the first byte not consumed yet: a '/' before it closed a comment and
  // cannot also open one (`*/*`).
  int depth = 1;
  const char* resume = p;
  while (resume < end_) {
    const void* hit = std::memchr(resume, '*', size_t(end_ - resume));
    if (hit == nullptr) return nullptr;
    const char* star = static_cast<const char*>(hit);
    if (star > resume && star[-1] == '/') {
      ++depth;
      resume = star + 1;
    } else if (star + 1 < end_ && star[1] == '/') {
      resume = star + 2;
      if (--depth == 0) return resume;
    } else {
      resume = star + 1;
    }
  }
  return nullptr;
}

Token Lexer::Lex() {
  // Fast path: spaces and newlines only (the indentation of printed text).
  const char* p = cur_;
  const char* const end = end_;
  if (p < end && IsSpace(*p)) {
    do ++p;
    while (p < end && IsSpace(*p));
    space_before_ = true;
    cur_ = p;
  }
  if (p < end && *p == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*')) {
    if (!SkipTrivia()) return Make(TokenKind::kError, end_, end_);
    p = cur_;
  }
  if (p == end_) return Make(TokenKind::kEof, p, p);
  char c = *p;
  if (TokenKind single = kSinglePunct[uint8_t(c)]; single != TokenKind::kEof) {
    return Make(single, p, p + 1);
  }
  if (IsIdentStart(c)) return LexIdentifier(p);
  if (IsDigit(c)) {
    if (last_kind_ == TokenKind::kDot) return LexTupleIndex(p);
    return LexNumber(p, p, false);
  }
  switch (c) {
    case '%':
    case '@':
      return LexSigilName(p);
    case '"':
      return LexString(p);
    case '#':
      return LexHashAttribute(p);
    case '-':
      return LexMinus(p);
    default:
      return LexPunctuation(p);
  }
}

Token Lexer::LexPunctuation(const char* p) {
  auto next_is = [&](char c) { return p + 1 < end_ && p[1] == c; };
  switch (*p) {
    case '(':
      return Make(TokenKind::kLParen, p, p + 1);
    case ')':
      return Make(TokenKind::kRParen, p, p + 1);
    case '[':
      return Make(TokenKind::kLBracket, p, p + 1);
    case ']':
      return Make(TokenKind::kRBracket, p, p + 1);
    case '{':
      return Make(TokenKind::kLBrace, p, p + 1);
    case '}':
      return Make(TokenKind::kRBrace, p, p + 1);
    case ',':
      return Make(TokenKind::kComma, p, p + 1);
    case ';':
      return Make(TokenKind::kSemicolon, p, p + 1);
    case ':':
      return Make(TokenKind::kColon, p, p + 1);
    case '+':
      return Make(TokenKind::kPlus, p, p + 1);
    case '*':
      return Make(TokenKind::kStar, p, p + 1);
    case '/':
      return Make(TokenKind::kSlash, p, p + 1);
    case '?':
      return Make(TokenKind::kQuestion, p, p + 1);
    case '|':
      return Make(TokenKind::kPipe, p, p + 1);
    case '.':
      if (next_is('.') && p + 2 < end_ && p[2] == '.') return Make(TokenKind::kEllipsis, p, p + 3);
      return Make(TokenKind::kDot, p, p + 1);
    case '=':
      if (next_is('=')) return Make(TokenKind::kEqualEqual, p, p + 2);
      if (next_is('>')) return Make(TokenKind::kFatArrow, p, p + 2);
      return Make(TokenKind::kEqual, p, p + 1);
    case '<':
      if (next_is('=')) return Make(TokenKind::kLessEqual, p, p + 2);
      return Make(TokenKind::kLess, p, p + 1);
    case '>':
      if (next_is('=')) return Make(TokenKind::kGreaterEqual, p, p + 2);
      return Make(TokenKind::kGreater, p, p + 1);
    case '!':
      if (next_is('=')) return Make(TokenKind::kBangEqual, p, p + 2);
      return Make(TokenKind::kBang, p, p + 1);
    default:
      return LexUnknown(p);
  }
}

Token Lexer::LexUnknown(const char* p) {
  // One error for a whole run of bytes that cannot start a token, so that
  // binary garbage yields a handful of messages, not one per byte.
  const char* q = p + 1;
  while (q < end_ && !IsSpace(*q) && !CanStartToken(*q)) ++q;
  unsigned char c = static_cast<unsigned char>(*p);
  std::string shown =
      c >= 0x20 && c < 0x7f ? fmt::format("'{}'", char(c)) : fmt::format("'\\x{:02x}'", c);
  return Error(p, q, fmt::format("unexpected character {}", shown));
}

Token Lexer::LexMinus(const char* p) {
  // A run of '-' not followed by a number stays a run of minus tokens;
  // remember its end, so that a long run is scanned once, not once per '-'.
  if (p >= plain_minus_end_) {
    const char* q = p;
    while (q < end_ && *q == '-') ++q;
    if (q < end_) {
      bool negative = (q - p) % 2 == 1;
      if (IsDigit(*q)) return LexNumber(p, q, negative);
      if (size_t n = InfNanLength(q)) return LexInfNan(p, q, n, negative);
    }
    plain_minus_end_ = q;
  }
  if (p + 1 < end_ && p[1] == '>') return Make(TokenKind::kArrow, p, p + 2);
  return Make(TokenKind::kMinus, p, p + 1);
}

Token Lexer::LexIdentifier(const char* p) {
  const char* q = p + 1;
  const char* const end = end_;
  while (q < end && IsIdentContinue(*q)) ++q;
  std::string_view word(p, size_t(q - p));
  // Only words starting with one of "lfdietmrTFn_" can be anything but a
  // plain identifier (`_`, keywords, meta[, inff, nanf).
  switch (*p) {
    case 'a': case 'b': case 'c': case 'g': case 'h': case 'j': case 'k': case 'o':
    case 'p': case 'q': case 's': case 'u': case 'v': case 'w': case 'x': case 'y':
    case 'z':
      return Make(TokenKind::kIdent, p, q);
    default:
      break;
  }
  if (word.size() == 1 && word[0] == '_') return Make(TokenKind::kUnderscore, p, q);
  if (word == "meta" && q < end && *q == '[') return LexMeta(p);
  if (size_t n = InfNanLength(p); n == word.size()) return LexInfNan(p, p, n, false);
  return Make(KeywordKind(word), p, q);
}

Token Lexer::LexSigilName(const char* p) {
  const char sigil = *p;
  const char* q = p + 1;
  if (q < end_ && IsDigit(*q) && sigil == '%') {
    uint64_t n;
    const char* number_end = ScanGraphNumber(q, end_, &n);
    if (number_end == nullptr) return LexGraphChecked(p);
    Token t = Make(TokenKind::kGraph, p, number_end);
    t.int_value = static_cast<int64_t>(n);
    return t;
  }
  const char* name_end = ScanSigilName(q, end_);
  if (name_end == nullptr) return SigilNameError(p, q);
  return Make(sigil == '%' ? TokenKind::kLocal : TokenKind::kGlobal, p, name_end);
}

Token Lexer::SigilNameError(const char* p, const char* q) {
  return Error(p, q, fmt::format("expected a name after '{}'", *p));
}

Token Lexer::LexGraphChecked(const char* p) {
  const char* q = p + 1;
  uint64_t n = 0;
  bool overflow = false;
  while (q < end_ && IsDigit(*q)) {
    overflow |= n > (uint64_t(INT64_MAX) - 9) / 10;
    n = n * 10 + uint64_t(*q++ - '0');
  }
  if (q < end_ && IsIdentContinue(*q)) {
    while (q < end_ && IsIdentContinue(*q)) ++q;
    return Error(p, q,
                 fmt::format("invalid variable name '{}': a name cannot start with a digit",
                             std::string_view(p, size_t(q - p))));
  }
  if (overflow) return Error(p, q, "graph variable number is too large");
  Token t = Make(TokenKind::kGraph, p, q);
  t.int_value = static_cast<int64_t>(n);
  return t;
}

}  // namespace carve
