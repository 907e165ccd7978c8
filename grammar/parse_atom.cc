// Atomic expressions: literals, variables, op names, meta references,
// tuples and grouping, `if`, `fn` literals, references, constructors and
// `match` (parse_adt.cc).
#include <algorithm>

#include "fmt/format.h"
#include "grammar/lexer_chars.h"
#include "grammar/parser_impl.h"

namespace carve::parser_internal {

const Expr* Parser::ParseAtomic() {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kTrue:
    case TokenKind::kFalse:
      return MakeLiteral(Next());
    case TokenKind::kLocal:
      return ParseLocalUse(Next());
    case TokenKind::kGraph:
      return ParseGraphUse(Next());
    case TokenKind::kGlobal:
      return ParseGlobalUse(Next());
    case TokenKind::kMeta:
      return ParseMetaExpr(Next());
    case TokenKind::kIdent:
      // Constructors before ops, as TVM's parser looks them up.
      if (module_.has_type_definitions()) {
        if (const Constructor* ctor = module_.FindConstructor(lex_.TextOf(t))) {
          return ParseConstructorUse(ctor);
        }
      }
      return ParseOpName();
    case TokenKind::kMatch:
      return ParseMatch();
    case TokenKind::kFn:
      return ParseFunctionLiteral();
    case TokenKind::kIf:
      return ParseIf();
    case TokenKind::kLParen:
      return ParseParenthesized();
    case TokenKind::kRef:
    case TokenKind::kRefRead:
    case TokenKind::kRefWrite:
      return ParseRef();
    case TokenKind::kError: {
      // A bad literal or name, already reported: stand in for it and go on.
      return Placeholder(SpanOf(Next()));
    }
    default:
      ErrorExpected("an expression");
      return nullptr;
  }
}

const Expr* Parser::ParseLocalUse(const Token& t) {
  std::string_view name = lex_.Name(t);
  if (const Var* var = LookupLocal(name)) return var;
  Error(SpanOf(t), fmt::format("undefined variable '%{}'", name));
  return Placeholder(SpanOf(t));
}

const Expr* Parser::ParseGraphUse(const Token& t) {
  if (const Expr* e = LookupGraph(t.int_value)) return e;
  Error(SpanOf(t), fmt::format("undefined variable '%{}'", t.int_value));
  return Placeholder(SpanOf(t));
}

const Expr* Parser::ParseGlobalUse(const Token& t) {
  std::string_view name = lex_.Name(t);
  if (!expr_mode_) {
    // Forward references and recursion: the GlobalVar exists from its first
    // mention; uses never defined are reported at the end.
    const GlobalVar* gv = module_.GetGlobalVar(name, SpanOf(t));
    global_uses_.emplace_back(gv, SpanOf(t));
    return gv;
  }
  // A standalone expression may only call what the module defines, and must
  // not add names to it.
  const GlobalVar* gv = module_.FindGlobalVar(name);
  if (gv != nullptr && module_.Lookup(gv) != nullptr) return gv;
  Error(SpanOf(t), fmt::format("undefined global '@{}'", name));
  return Placeholder(SpanOf(t));
}

const Expr* Parser::ParseOpName() {
  // Fast path: a name seen before is found by a raw scan of the text, and
  // its `.` and identifier tokens are skipped without lexing them.
  if (!op_cache_.empty()) {
    const uint32_t begin = Peek().begin;
    const std::string_view all = lex_.text();
    if (const OpExpr* op = RecentOp(begin)) return op;
    const uint32_t name_end = lex_.ScanDottedName(begin);
    const std::string_view name = all.substr(begin, name_end - begin);
    auto it = op_cache_.find(name);
    if (it != op_cache_.end() && lex_.SkipTo(name_end)) {
      prev_end_ = name_end;
      recent_ops_.Remember(name, OpKeyBytes(begin), all.data() + all.size(), nullptr, it->second);
      return it->second;
    }
  }
  TokenPos first = Next();
  uint32_t end = first.end;
  // Dotted names are written without spaces: `nn.conv2d`.
  while (At(TokenKind::kDot) && !Peek().space_before() && Peek(1).kind == TokenKind::kIdent &&
         !Peek(1).space_before()) {
    Next();
    end = Next().end;
  }
  Span span{lex_.file_id(), first.begin, end};
  std::string_view name = lex_.text().substr(first.begin, end - first.begin);
  auto it = op_cache_.find(name);
  if (it != op_cache_.end()) return it->second;
  if (const OpInfo* op = FindOp(name)) return op_cache_[name] = GetOp(op);
  if (name == "true" || name == "false") {
    Error(span, fmt::format("unknown operator '{}' (did you mean '{}'?)", name,
                            name == "true" ? "True" : "False"));
  } else {
    Error(span, UnknownOpMessage(name));
  }
  return Placeholder(span);
}

size_t Parser::OpKeyBytes(uint32_t begin) const {
  const std::string_view all = lex_.text();
  const size_t stop = std::min(all.size(), begin + kRecentKey);
  size_t end = begin;
  while (end < stop && (IsIdentContinue(all[end]) || all[end] == '.')) ++end;
  return end - begin;
}

const OpExpr* Parser::MatchRecentOp(uint32_t begin, uint32_t* end) const {
  if (no_recent_memos_for_testing) return nullptr;
  const std::string_view all = lex_.text();
  const auto* hit =
      recent_ops_.Match(all.data() + begin, OpKeyBytes(begin), all.data() + all.size(), nullptr);
  if (hit == nullptr) return nullptr;
  // The remembered name is what ScanDottedName found on the same bytes; it
  // finds it here too unless the byte after it would extend the name: a name
  // character, a glued `.word`, or the '[' that makes a last word `meta` a
  // meta reference.
  const size_t name_end = begin + hit->size;
  if (name_end < all.size() &&
      (IsIdentContinue(all[name_end]) || all[name_end] == '.' || all[name_end] == '[')) {
    return nullptr;
  }
  *end = static_cast<uint32_t>(name_end);
  return hit->value;
}

const OpExpr* Parser::RecentOp(uint32_t begin) {
  uint32_t end = 0;
  const OpExpr* op = MatchRecentOp(begin, &end);
  if (op == nullptr || !lex_.SkipTo(end)) return nullptr;
  prev_end_ = end;
  return op;
}

const Expr* Parser::ParseParenthesized() {
  TokenPos open = Next();
  if (Accept(TokenKind::kRParen)) return b_.MakeTuple({}, SpanFrom(open));
  const size_t base = items_.size();
  bool trailing_comma = false;
  for (;;) {
    const Expr* e = ParseExpr(ExprContext::kNested);
    if (e == nullptr) {
      items_.resize(base);
      return nullptr;
    }
    items_.push_back(e);
    if (!Accept(TokenKind::kComma)) break;
    if (At(TokenKind::kRParen)) {
      trailing_comma = true;
      break;
    }
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) {
    items_.resize(base);
    return nullptr;
  }
  const Expr* result;
  if (items_.size() - base == 1 && !trailing_comma) {
    result = items_[base];  // grouping: `(e)` is e
  } else {
    result = b_.MakeTuple(std::span<const Expr* const>(items_.data() + base, items_.size() - base),
                          SpanFrom(open));
  }
  items_.resize(base);
  return result;
}

const Expr* Parser::ParseIf() {
  TokenPos keyword = Next();
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' after 'if'")) return nullptr;
  const Expr* cond = ParseExpr();
  if (cond == nullptr) return nullptr;
  if (!Expect(TokenKind::kRParen, "')' after the condition", &open)) return nullptr;
  const Expr* then_branch = ParseBlock("then branch");
  if (then_branch == nullptr) return nullptr;
  if (!Expect(TokenKind::kElse, "'else' after the then branch (it is required)")) return nullptr;
  const Expr* else_branch = ParseBlock("else branch");
  if (else_branch == nullptr) return nullptr;
  return b_.MakeIf(cond, then_branch, else_branch, SpanFrom(keyword));
}

const Expr* Parser::ParseFunctionLiteral() {
  TokenPos keyword = Next();
  PushScope();
  const size_t type_var_mark = type_vars_.size();
  Signature sig;
  const Function* fn = nullptr;
  if (ParseSignature(sig)) {
    if (const Expr* body = ParseBlock("function body")) {
      fn = FinishFunction(sig, body, SpanFrom(keyword));
    }
  }
  type_vars_.resize(type_var_mark);
  PopScope();
  return fn;
}

}  // namespace carve::parser_internal
