// The keywords of the Relay text format. Internal to grammar/lexer*.cc:
// inline, because the lexer asks about every identifier.
#pragma once

#include <string_view>

#include "grammar/lexer.h"

namespace carve::lexer_keywords {

struct Keyword {
  std::string_view text;
  TokenKind kind;
};
inline constexpr Keyword kKeywords[] = {
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
inline TokenKind KeywordKind(std::string_view word) {
  if (word.size() < 2 || word.size() > 9) return TokenKind::kIdent;
  for (const Keyword& k : kKeywords) {
    if (k.text == word) return k.kind;
  }
  return TokenKind::kIdent;
}

}  // namespace carve::lexer_keywords
