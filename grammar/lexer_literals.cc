// Tokens that carry text: `meta[Key][index]` references, string literals
// (and their decoded values) and the `#[version = "..."]` / `#[metadata]`
// attributes.
#include <algorithm>
#include <string>
#include <string_view>

#include "fmt/format.h"
#include "grammar/lexer.h"
#include "grammar/lexer_chars.h"

namespace carve {

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
