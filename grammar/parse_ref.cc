// References: `ref(v)`, `ref_read(r)` and `ref_write(r, v)` (TVM v0.16's
// parser reads each as a keyword followed by parenthesized expressions).
#include "grammar/parser_impl.h"

namespace carve::parser_internal {

const Expr* Parser::ParseRef() {
  TokenPos keyword = Next();
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' after the reference keyword")) return nullptr;
  const Expr* first = ParseExpr();
  if (first == nullptr) return nullptr;
  const Expr* second = nullptr;
  if (keyword.kind == TokenKind::kRefWrite) {
    if (!Expect(TokenKind::kComma, "',' between the reference and the value", &open)) {
      return nullptr;
    }
    second = ParseExpr();
    if (second == nullptr) return nullptr;
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return nullptr;
  switch (keyword.kind) {
    case TokenKind::kRef:
      return b_.MakeRefCreate(first, SpanFrom(keyword));
    case TokenKind::kRefRead:
      return b_.MakeRefRead(first, SpanFrom(keyword));
    default:
      return b_.MakeRefWrite(first, second, SpanFrom(keyword));
  }
}

}  // namespace carve::parser_internal
