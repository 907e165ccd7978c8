// The hand-written lexer (see lexer.h for the rules). The hot path is a
// dispatch on the first byte through a character-class table; comments are
// skipped without producing tokens.
#include "grammar/lexer.h"

#include <array>
#include <cstring>
#include <new>

#include "fmt/format.h"
#include "grammar/lexer_chars.h"

namespace carve {

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof:
      return "end of file";
    case TokenKind::kError:
      return "invalid token";
    case TokenKind::kIdent:
      return "identifier";
    case TokenKind::kLocal:
      return "local variable";
    case TokenKind::kGraph:
      return "graph variable";
    case TokenKind::kGlobal:
      return "global name";
    case TokenKind::kInt:
      return "integer literal";
    case TokenKind::kFloat:
      return "float literal";
    case TokenKind::kString:
      return "string literal";
    case TokenKind::kMeta:
      return "meta reference";
    case TokenKind::kVersion:
      return "version attribute";
    case TokenKind::kMetadata:
      return "metadata section";
    case TokenKind::kLet:
      return "'let'";
    case TokenKind::kFn:
      return "'fn'";
    case TokenKind::kDef:
      return "'def'";
    case TokenKind::kIf:
      return "'if'";
    case TokenKind::kElse:
      return "'else'";
    case TokenKind::kType:
      return "'type'";
    case TokenKind::kMatch:
      return "'match'";
    case TokenKind::kExtern:
      return "'extern'";
    case TokenKind::kFreeVar:
      return "'free_var'";
    case TokenKind::kRef:
      return "'ref'";
    case TokenKind::kRefRead:
      return "'ref_read'";
    case TokenKind::kRefWrite:
      return "'ref_write'";
    case TokenKind::kTrue:
      return "'True'";
    case TokenKind::kFalse:
      return "'False'";
    case TokenKind::kLParen:
      return "'('";
    case TokenKind::kRParen:
      return "')'";
    case TokenKind::kLBracket:
      return "'['";
    case TokenKind::kRBracket:
      return "']'";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kDot:
      return "'.'";
    case TokenKind::kEllipsis:
      return "'...'";
    case TokenKind::kEqual:
      return "'='";
    case TokenKind::kSemicolon:
      return "';'";
    case TokenKind::kColon:
      return "':'";
    case TokenKind::kPlus:
      return "'+'";
    case TokenKind::kMinus:
      return "'-'";
    case TokenKind::kStar:
      return "'*'";
    case TokenKind::kSlash:
      return "'/'";
    case TokenKind::kLess:
      return "'<'";
    case TokenKind::kLessEqual:
      return "'<='";
    case TokenKind::kGreater:
      return "'>'";
    case TokenKind::kGreaterEqual:
      return "'>='";
    case TokenKind::kEqualEqual:
      return "'=='";
    case TokenKind::kBangEqual:
      return "'!='";
    case TokenKind::kBang:
      return "'!'";
    case TokenKind::kQuestion:
      return "'?'";
    case TokenKind::kPipe:
      return "'|'";
    case TokenKind::kArrow:
      return "'->'";
    case TokenKind::kFatArrow:
      return "'=>'";
    case TokenKind::kUnderscore:
      return "'_'";
  }
  return "token";
}

namespace {

struct Keyword {
  std::string_view text;
  TokenKind kind;
};
constexpr Keyword kKeywords[] = {
    {"let", TokenKind::kLet},          {"fn", TokenKind::kFn},
    {"def", TokenKind::kDef},          {"if", TokenKind::kIf},
    {"else", TokenKind::kElse},        {"type", TokenKind::kType},
    {"match", TokenKind::kMatch},      {"extern", TokenKind::kExtern},
    {"free_var", TokenKind::kFreeVar}, {"ref", TokenKind::kRef},
    {"ref_read", TokenKind::kRefRead}, {"ref_write", TokenKind::kRefWrite},
    {"True", TokenKind::kTrue},        {"False", TokenKind::kFalse},
};

// The keyword spelled `word`, or kIdent. Keywords are short and start with a
// lowercase letter or 'T'/'F', so most identifiers leave after one test.
TokenKind KeywordKind(std::string_view word) {
  if (word.size() < 2 || word.size() > 9) return TokenKind::kIdent;
  for (const Keyword& k : kKeywords) {
    if (k.text == word) return k.kind;
  }
  return TokenKind::kIdent;
}

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

Token Lexer::LexMeta(const char* p) {
  // meta[Key][index]
  const char* q = p + 5;  // after "meta["
  const char* key_begin = q;
  while (q < end_ && (IsIdentContinue(*q) || *q == '.')) ++q;
  const char* key_end = q;
  bool ok = key_end > key_begin && q < end_ && *q == ']' && q + 1 < end_ && q[1] == '[';
  uint64_t index = 0;
  if (ok) {
    q += 2;
    const char* digits = q;
    while (q < end_ && IsDigit(*q) && q - digits < 12) index = index * 10 + uint64_t(*q++ - '0');
    ok = q > digits && q < end_ && *q == ']';
  }
  if (!ok) {
    while (q < end_ && *q != ']' && *q != '\n') ++q;
    return Error(p, q, "malformed meta reference: expected 'meta[TypeKey][index]'");
  }
  Token t = Make(TokenKind::kMeta, p, q + 1);
  t.aux = static_cast<uint32_t>(key_end - text_.data());
  t.int_value = static_cast<int64_t>(index);
  return t;
}

Token Lexer::LexString(const char* p) {
  const char* q = p + 1;
  bool escapes = false;
  while (q < end_ && *q != '"') {
    if (*q == '\\') {
      escapes = true;
      if (q + 1 >= end_) {
        q = end_;
        break;
      }
      char e = q[1];
      if (e != '"' && e != '\\' && e != 'n' && e != 't' && e != 'r') {
        // Report at the escape, then continue as though it were valid.
        if (diags_ != nullptr) {
          uint32_t at = static_cast<uint32_t>(q - text_.data());
          diags_->Error(Span{file_, at, at + 2},
                        fmt::format("unknown escape sequence '\\{}' in string literal",
                                    IsPrintable(e) ? std::string(1, e) : std::string("?")));
        }
        const char* close = q + 2;
        while (close < end_ && *close != '"') close += *close == '\\' ? 2 : 1;
        return Make(TokenKind::kError, p, std::min(close + 1, end_));
      }
      q += 2;
      continue;
    }
    ++q;
  }
  // An unterminated string swallows the rest of the text (strings may span
  // lines), so that its contents are not lexed as code.
  if (q >= end_) return Error(p, end_, "unterminated string literal");
  Token t = Make(TokenKind::kString, p, q + 1);
  if (escapes) t.flags |= Token::kHasEscapes;
  return t;
}

std::string_view Lexer::StringValue(const Token& t, std::string& scratch) const {
  std::string_view body = text_.substr(t.begin + 1, t.end - t.begin - 2);
  if (!(t.flags & Token::kHasEscapes)) return body;
  scratch.clear();
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '\\' && i + 1 < body.size()) {
      char e = body[++i];
      c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
    }
    scratch.push_back(c);
  }
  return scratch;
}

Token Lexer::LexHashAttribute(const char* p) {
  // #[version = "0.0.5"] or #[metadata]
  const char* q = p + 1;
  if (q >= end_ || *q != '[') return LexUnknown(p);
  const char* close = q;
  while (close < end_ && *close != ']' && *close != '\n') ++close;
  if (close >= end_ || *close != ']') {
    return Error(p, close, "unterminated attribute: expected ']'");
  }
  std::string_view body(q + 1, size_t(close - q - 1));
  auto trim = [](std::string_view s) {
    while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
    return s;
  };
  body = trim(body);
  if (body == "metadata") {
    Token t = Make(TokenKind::kMetadata, p, end_);
    t.aux = static_cast<uint32_t>(close + 1 - text_.data());
    return t;
  }
  if (body.starts_with("version")) {
    std::string_view rest = trim(body.substr(7));
    if (rest.starts_with("=")) {
      rest = trim(rest.substr(1));
      if (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"' &&
          rest.substr(1, rest.size() - 2).find('"') == std::string_view::npos) {
        Token t = Make(TokenKind::kVersion, p, close + 1);
        t.aux = static_cast<uint32_t>(rest.data() + 1 - text_.data());
        t.int_value = static_cast<int64_t>(rest.size() - 2);
        return t;
      }
    }
    return Error(p, close + 1, "malformed version attribute: expected '#[version = \"0.0.5\"]'");
  }
  return Error(p, close + 1,
               fmt::format("unsupported attribute '#[{}]' (expected '#[version = \"...\"]' "
                           "or '#[metadata]')",
                           body.substr(0, 40)));
}

}  // namespace carve
