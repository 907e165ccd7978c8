// Statements and operators:
//   expr   := item (';' item)*
//   item   := 'let' %x (':' type)? '=' binop ';' expr
//           | %N '=' binop ';' expr            -- a DAG name, no Let node
//           | 'free_var' %x (':' type)? ';' expr
//           | '{' expr '}' | binop
//   binop  := postfix (INFIX postfix)*         -- TVM's precedence table
//   postfix:= atomic ('(' args ')' | '.' INT)*
// Statement sequences, infix chains and postfix chains are loops with
// explicit stacks, so a million-binding chain parses in constant C++ stack.
#include "fmt/format.h"
#include "grammar/parser_impl.h"

namespace carve::parser_internal {
namespace {

struct InfixOp {
  std::string_view op_name;
  int precedence;
};

// tvm-reference.md 1.6; all left-associative. nullopt for non-infix tokens.
std::optional<InfixOp> Infix(TokenKind kind) {
  switch (kind) {
    case TokenKind::kStar:
      return InfixOp{"multiply", 12};
    case TokenKind::kSlash:
      return InfixOp{"divide", 12};
    case TokenKind::kPlus:
      return InfixOp{"add", 10};
    case TokenKind::kMinus:
      return InfixOp{"subtract", 10};
    case TokenKind::kLess:
      return InfixOp{"less", 8};
    case TokenKind::kLessEqual:
      return InfixOp{"less_equal", 8};
    case TokenKind::kGreater:
      return InfixOp{"greater", 8};
    case TokenKind::kGreaterEqual:
      return InfixOp{"greater_equal", 8};
    case TokenKind::kEqualEqual:
      return InfixOp{"equal", 7};
    case TokenKind::kBangEqual:
      return InfixOp{"not_equal", 7};
    default:
      return std::nullopt;
  }
}

}  // namespace

const Expr* Parser::ParseExpr(ExprContext context) {
  NestingGuard guard(*this, "expression");
  if (!guard.ok()) return nullptr;
  const size_t base = pending_.size();
  PushScope();
  bool failed = false;
  const Expr* result = nullptr;
  for (;;) {
    if (ParseStatement(context, &result)) {
      if (result != nullptr) break;
      continue;
    }
    failed = true;
    // Only block bodies resynchronise: an argument or a parenthesised
    // expression fails as a whole and its block recovers.
    if (context != ExprContext::kBlock || !SynchronizeStatement()) break;
    // Recovered after a `;`; but `...; }` ends the block rather than
    // lacking a final expression (that was the error already reported).
    if (At(TokenKind::kRBrace) || At(TokenKind::kEof) || At(TokenKind::kMetadata)) break;
  }
  const Expr* body = failed ? nullptr : result;
  for (size_t i = pending_.size(); body != nullptr && i > base; --i) {
    const PendingLet& p = pending_[i - 1];
    body = b_.MakeLet(p.var, p.value, body, Span{lex_.file_id(), p.begin, body->span().end});
  }
  pending_.resize(base);
  PopScope();
  return body;
}

bool Parser::ParseStatement(ExprContext context, const Expr** result) {
  switch (Peek().kind) {
    case TokenKind::kLet:
      return ParseLetBinding();
    case TokenKind::kFreeVar:
      return ParseFreeVar();
    case TokenKind::kGraph:
      if (Peek(1).kind == TokenKind::kEqual) return ParseGraphBinding();
      break;
    case TokenKind::kLocal:
      if (Peek(1).kind == TokenKind::kEqual) {
        // `%x = v;`: a let without its keyword. Say so, and read it as one
        // so that later uses of %x do not cascade.
        Error(SpanOf(Peek(1)), "unexpected '=': bind a local variable with 'let %x = ...;'");
        return ParseLetBinding();
      }
      break;
    default:
      break;
  }
  const uint32_t begin = Peek().begin;
  const Expr* item = At(TokenKind::kLBrace) ? ParseBlock("block") : ParseBinop();
  if (item == nullptr) return false;
  if (context != ExprContext::kArgument && Accept(TokenKind::kSemicolon)) {
    // `e1; e2` sequences: a Let with an anonymous variable.
    pending_.push_back({b_.MakeVar("", nullptr, item->span()), item, begin});
  } else {
    *result = item;
  }
  return true;
}

const Expr* Parser::ParseBlock(std::string_view what) {
  if (!At(TokenKind::kLBrace)) {
    ErrorExpected(fmt::format("'{{' to start the {}", what));
    return nullptr;
  }
  TokenPos open = Next();
  const Expr* body = ParseExpr(ExprContext::kBlock);
  if (body == nullptr) {
    // Recovery stopped at this block's '}' (or at a `def` / the end).
    Accept(TokenKind::kRBrace);
    return nullptr;
  }
  if (!Expect(TokenKind::kRBrace, fmt::format("'}}' after the {}", what), &open)) return nullptr;
  return body;
}

bool Parser::ParseLetBinding() {
  const uint32_t begin = Peek().begin;
  Accept(TokenKind::kLet);  // absent for the `%x = v;` mistake
  if (!At(TokenKind::kLocal)) {
    ErrorExpected("a local variable such as '%x' after 'let'");
    return false;
  }
  const Token& name = Next();
  const std::string_view name_text = lex_.Name(name);
  const Span name_span = SpanOf(name);
  const Type* type = nullptr;
  if (Accept(TokenKind::kColon) && (type = ParseType()) == nullptr) return false;
  const Var* var = b_.MakeVarWithStableName(name_text, type, name_span);
  // Bound before its value, as in TVM, so let-bound functions can recurse.
  BindLocal(var);
  if (!Expect(TokenKind::kEqual, "'=' after the let-bound variable")) return false;
  const Expr* value = ParseBinop();
  if (value == nullptr) return false;
  if (!Expect(TokenKind::kSemicolon, "';' after the let value")) return false;
  pending_.push_back({var, value, begin});
  return true;
}

bool Parser::ParseGraphBinding() {
  if (ParseGraphBindingFast()) return true;
  const Token& n = Next();
  const int64_t number = n.int_value;
  const Span span = SpanOf(n);
  Next();  // '='
  const Expr* value = ParseBinop();
  // A failed value still binds the number, so its uses do not cascade into
  // "undefined variable" errors.
  BindGraph(number, value != nullptr ? value : Placeholder(span), span);
  if (value == nullptr) return false;
  return Expect(TokenKind::kSemicolon, "';' after the graph binding");
}

bool Parser::ParseFreeVar() {
  Next();  // free_var
  if (!At(TokenKind::kLocal)) {
    ErrorExpected("a local variable such as '%x' after 'free_var'");
    return false;
  }
  const Token& name = Next();
  const std::string_view name_text = lex_.Name(name);
  const Span name_span = SpanOf(name);
  const Type* type = nullptr;
  if (Accept(TokenKind::kColon) && (type = ParseType()) == nullptr) return false;
  const Var* var = b_.MakeVarWithStableName(name_text, type, name_span);
  BindLocal(var);
  free_vars_.push_back(var);
  return Expect(TokenKind::kSemicolon, "';' after the free_var declaration");
}

const Expr* Parser::ParseBinop() {
  const Expr* first = ParsePostfix();
  if (first == nullptr) return nullptr;
  if (!Infix(Peek().kind)) return first;  // the common case: no operator
  // Operator-precedence parsing with explicit stacks (shared with nested
  // operands, which restore them before returning).
  const size_t operand_base = operands_.size();
  const size_t operator_base = operators_.size();
  operands_.push_back(first);
  auto reduce = [&] {
    PendingInfix op = operators_.back();
    operators_.pop_back();
    const Expr* rhs = operands_.back();
    operands_.pop_back();
    const Expr* lhs = operands_.back();
    Span span = lhs->span().Merge(rhs->span());
    operands_.back() =
        op.op != nullptr ? b_.MakeCall(op.op, {lhs, rhs}, nullptr, span) : Placeholder(span);
  };
  while (std::optional<InfixOp> infix = Infix(Peek().kind)) {
    const Span op_span = SpanOf(Next());
    while (operators_.size() > operator_base && operators_.back().precedence >= infix->precedence) {
      reduce();
    }
    const OpExpr* op = GetOp(infix->op_name);
    if (op == nullptr) Error(op_span, UnknownOpMessage(infix->op_name));
    operators_.push_back({op, infix->precedence});
    const Expr* rhs = ParsePostfix();
    if (rhs == nullptr) {
      operands_.resize(operand_base);
      operators_.resize(operator_base);
      return nullptr;
    }
    operands_.push_back(rhs);
  }
  while (operators_.size() > operator_base) reduce();
  const Expr* result = operands_.back();
  operands_.resize(operand_base);
  return result;
}

const Expr* Parser::ParsePostfix() {
  const uint32_t begin = Peek().begin;
  const Expr* e = ParseAtomic();
  while (e != nullptr) {
    if (At(TokenKind::kLParen)) {
      e = ParseCallRest(e, begin);
    } else if (At(TokenKind::kDot) && Peek(1).kind == TokenKind::kInt) {
      Next();
      const Token& index = Next();
      if (index.int_value < 0 || index.dtype != DataType::Int(32)) {
        Error(SpanOf(index), fmt::format("invalid tuple index '{}'", lex_.TextOf(index)));
      }
      e = b_.MakeTupleGetItem(e, static_cast<int>(index.int_value),
                              Span{lex_.file_id(), begin, index.end});
    } else {
      break;
    }
  }
  return e;
}

}  // namespace carve::parser_internal
