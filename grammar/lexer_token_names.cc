// The names of token kinds in diagnostics ("expected ')'"): a flat switch.
#include "grammar/lexer.h"

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

}  // namespace carve
