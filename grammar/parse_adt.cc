// Algebraic data types (TVM v0.16's parser.cc: ParseTypeDef, ParseMatch,
// ParsePattern, ParseNonPrimitiveType):
//   type_def := 'extern'? 'type' IDENT ('[' IDENT,* ']')? ('{' ctor,* ','? '}')?
//   ctor     := IDENT ('(' type,* ')')?
//   match    := ('match' | 'match' '?') atom '{' clause,* ','? '}'
//   clause   := pattern '=>' (block | expr)
//   pattern  := '_' | LOCAL (':' type)? | IDENT ('(' pattern,* ')')? | '(' pattern,* ')'
//   adt type := IDENT ('[' type,* ']')?     -- `List[A]`; bare `Foo` is `Foo[]`
// A data type may be named before its definition (recursive and mutually
// recursive types); names never defined are reported when the text ends.
// A constructor is known from its definition on, as in TVM.
#include "fmt/format.h"
#include "grammar/parser_impl.h"
#include "ir/adt.h"

namespace carve::parser_internal {

void Parser::ParseTypeDefinition() {
  TokenPos keyword = Peek();
  const bool external = Accept(TokenKind::kExtern);
  if (!Expect(TokenKind::kType, "'type' after 'extern'")) return SynchronizeDefinition();
  if (!At(TokenKind::kIdent)) {
    ErrorExpected("the name of the type after 'type'");
    return SynchronizeDefinition();
  }
  const Token& name_token = Next();
  const std::string_view name = lex_.TextOf(name_token);
  const Span name_span = SpanOf(name_token);
  const GlobalTypeVar* header = GlobalTypeVarTy(name);
  auto [previous, first] = type_definitions_.try_emplace(header->name(), name_span);
  if (!first) {
    Error(name_span, fmt::format("redefinition of type '{}'", name),
          {Note{previous->second, "previous definition is here"}});
  }
  const size_t type_var_mark = type_vars_.size();
  std::vector<const TypeVar*> type_vars;
  bool ok = true;
  if (At(TokenKind::kLBracket)) {
    Signature sig;
    ok = ParseTypeParams(sig);
    type_vars = sig.type_params;
  }
  std::vector<const Constructor*> ctors;
  if (ok && At(TokenKind::kLBrace)) ok = ParseConstructors(header, ctors);
  type_vars_.resize(type_var_mark);
  if (!ok) return SynchronizeDefinition();
  if (external && !ctors.empty()) {
    Error(SpanFrom(keyword), "an external type may not have any constructors");
    return;
  }
  if (first) {
    module_.AddTypeDefinition(
        MakeTypeData(b_.arena(), header, type_vars, ctors, SpanFrom(keyword)));
  }
}

// `{ ctor, ... }` of data type `header`, appended to `ctors`; false after
// an error that needs synchronizing.
bool Parser::ParseConstructors(const GlobalTypeVar* header,
                               std::vector<const Constructor*>& ctors) {
  TokenPos open = Next();
  while (At(TokenKind::kIdent)) {
    const Token& ctor_token = Next();
    const std::string_view ctor_name = lex_.TextOf(ctor_token);
    const Span ctor_span = SpanOf(ctor_token);
    std::vector<const Type*> inputs;
    if (At(TokenKind::kLParen) && !ParseConstructorFields(inputs)) return false;
    if (const Constructor* other = module_.FindConstructor(ctor_name)) {
      Error(ctor_span, fmt::format("a constructor named '{}' was defined before", ctor_name),
            {Note{other->span(), "previous definition is here"}});
    }
    ctors.push_back(MakeConstructor(b_.arena(), ctor_name, inputs, header,
                                    static_cast<int32_t>(ctors.size()), ctor_span));
    if (!Accept(TokenKind::kComma)) break;
  }
  return Expect(TokenKind::kRBrace, "'}' after the constructors", &open);
}

// A constructor's `(type, ...)`, appended to `inputs`.
bool Parser::ParseConstructorFields(std::vector<const Type*>& inputs) {
  TokenPos paren = Next();
  while (!At(TokenKind::kRParen)) {
    const Type* input = ParseType();
    if (input == nullptr) return false;
    inputs.push_back(input);
    if (!Accept(TokenKind::kComma)) break;
  }
  return Expect(TokenKind::kRParen, "')' after the constructor's field types", &paren);
}

const Type* Parser::ParseAdtType(std::string_view name, Span name_span) {
  const GlobalTypeVar* header = GlobalTypeVarTy(name);
  const size_t base = type_items_.size();
  if (At(TokenKind::kLBracket)) {
    TokenPos open = Next();
    while (!At(TokenKind::kRBracket)) {
      const Type* arg = ParseType();
      if (arg == nullptr) {
        type_items_.resize(base);
        return nullptr;
      }
      type_items_.push_back(arg);
      if (!Accept(TokenKind::kComma)) break;
    }
    if (!Expect(TokenKind::kRBracket, "']' after the type arguments", &open)) {
      type_items_.resize(base);
      return nullptr;
    }
  }
  std::vector<const Type*> args(type_items_.begin() + base, type_items_.end());
  type_items_.resize(base);
  type_uses_.push_back({header, args.size(), Span{lex_.file_id(), name_span.begin, prev_end_}});
  return TypeCallTy(header, args);
}

void Parser::CheckUndefinedTypes() {
  for (const TypeUse& use : type_uses_) {
    const TypeData* data = module_.LookupTypeDefinition(use.header->name());
    if (data == nullptr) {
      Error(use.span, fmt::format("unknown type '{}'", use.header->name()));
    } else if (data->type_vars().size() != use.num_args) {
      Error(use.span, fmt::format("type '{}' takes {} type argument{}, got {}",
                                  use.header->name(), data->type_vars().size(),
                                  data->type_vars().size() == 1 ? "" : "s", use.num_args));
    }
  }
  type_uses_.clear();
}

const Expr* Parser::ParseConstructorUse(const Constructor* ctor) {
  const Token& t = Next();
  // TVM reads a nullary constructor on its own as its call: `Nil` is the
  // empty list, not the constructor.
  if (ctor->inputs().empty() && !At(TokenKind::kLParen)) {
    return b_.MakeCall(ctor, std::span<const Expr* const>{}, nullptr, SpanOf(t));
  }
  return ctor;
}

const Expr* Parser::ParseMatch() {
  NestingGuard guard(*this, "match");
  if (!guard.ok()) return nullptr;
  TokenPos keyword = Next();
  const bool complete = !(At(TokenKind::kQuestion) && !Peek().space_before());
  if (!complete) Next();
  const Expr* data = ParseAtomic();
  if (data == nullptr) return nullptr;
  if (!At(TokenKind::kLBrace)) {
    ErrorExpected("'{' to start the clauses of the match");
    return nullptr;
  }
  TokenPos open = Next();
  std::vector<Clause> clauses;
  while (!At(TokenKind::kRBrace)) {
    PushScope();
    const AdtPattern* lhs = ParsePattern();
    const Expr* rhs = nullptr;
    if (lhs != nullptr) {
      bool arrow = Accept(TokenKind::kFatArrow);
      if (!arrow && At(TokenKind::kEqual) && Peek(1).kind == TokenKind::kGreater) {
        Next();
        Next();
        arrow = true;
      }
      if (!arrow) {
        ErrorExpected("'=>' after the pattern");
      } else {
        rhs = At(TokenKind::kLBrace) ? ParseBlock("clause") : ParseExpr(ExprContext::kNested);
      }
    }
    PopScope();
    if (rhs == nullptr) return nullptr;
    clauses.push_back(Clause{lhs, rhs});
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRBrace, "'}' after the clauses of the match", &open)) return nullptr;
  return MakeMatch(b_.arena(), data, clauses, complete, SpanFrom(keyword));
}

const AdtPattern* Parser::ParsePattern() {
  NestingGuard guard(*this, "pattern");
  if (!guard.ok()) return nullptr;
  Arena* arena = b_.arena();
  switch (Peek().kind) {
    case TokenKind::kUnderscore:
      Next();
      return MakePattern(arena, AdtPattern::Wildcard());
    case TokenKind::kLocal: {
      const Token& name = Next();
      const std::string_view text = lex_.Name(name);
      const Span span = SpanOf(name);
      const Type* type = nullptr;
      if (Accept(TokenKind::kColon) && (type = ParseType()) == nullptr) return nullptr;
      const Var* var = b_.MakeVarWithStableName(text, type, span);
      BindLocal(var);
      return MakePattern(arena, AdtPattern::Bind(var));
    }
    case TokenKind::kIdent: {
      const Token& name = Next();
      const std::string_view text = lex_.TextOf(name);
      const Constructor* ctor = module_.FindConstructor(text);
      if (ctor == nullptr) {
        Error(SpanOf(name), fmt::format("undefined constructor '{}' (a pattern variable is "
                                        "written '%{}')",
                                        text, text));
        return nullptr;
      }
      std::vector<const AdtPattern*> fields;
      if (At(TokenKind::kLParen) && !ParsePatternList(fields)) return nullptr;
      return MakePattern(arena, AdtPattern::Of(ctor, fields));
    }
    case TokenKind::kLParen: {
      std::vector<const AdtPattern*> fields;
      if (!ParsePatternList(fields)) return nullptr;
      return MakePattern(arena, AdtPattern::TupleOf(fields));
    }
    default:
      ErrorExpected("a pattern ('_', '%x', a constructor or a tuple)");
      return nullptr;
  }
}

bool Parser::ParsePatternList(std::vector<const AdtPattern*>& out) {
  TokenPos open = Next();  // '('
  while (!At(TokenKind::kRParen)) {
    const AdtPattern* field = ParsePattern();
    if (field == nullptr) return false;
    out.push_back(field);
    if (!Accept(TokenKind::kComma)) break;
  }
  return Expect(TokenKind::kRParen, "')' after the patterns", &open);
}

}  // namespace carve::parser_internal
