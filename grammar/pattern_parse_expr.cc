// Patterns: alternation, postfix operators (calls, optional calls,
// projections, captures, type constraints) and primaries.
#include <list>

#include "fmt/format.h"
#include "grammar/pattern_parser_impl.h"
#include "patterns/builders.h"
#include "patterns/compile.h"

namespace carve::pattern_dsl {
namespace {

// Capture names bound anywhere inside `p`.
std::vector<std::string> CaptureNames(const Pattern& p) {
  std::vector<std::string> names;
  absl::flat_hash_map<const PatternNode*, bool> seen;
  std::vector<const PatternNode*> stack = {p.get()};
  while (!stack.empty()) {
    const PatternNode* n = stack.back();
    stack.pop_back();
    if (!seen.emplace(n, true).second) continue;
    if (const auto* cap = DynCast<CapturePattern>(n)) names.push_back(cap->name());
    for (const Pattern& c : n->children()) stack.push_back(c.get());
  }
  return names;
}

}  // namespace

Pattern DslParser::ParseDef() {
  Pattern p = ParseAlt();
  if (!p || !AcceptWord("where")) return p;
  TokenPos at = Peek();
  std::shared_ptr<const Predicate> pred = ParsePredicate();
  if (pred == nullptr) return Pattern();
  CheckPredicateCaptures(*pred, SpanFrom(at), /*self_only=*/false, CalledOpOf(p));
  return Where(p, pred);
}

Pattern DslParser::ParseAlt() {
  NestingGuard guard(*this);
  if (!guard.ok()) return Pattern();
  Pattern p = ParsePostfix();
  // Alt(Alt(a, b), c): each `|` nests the pattern one level deeper, and
  // the compiler and matcher recurse on it, so a chain counts against
  // kMaxNesting like parentheses do.
  std::list<NestingGuard> chain;
  while (p && Accept(TokenKind::kPipe)) {
    if (!chain.emplace_back(*this).ok()) return Pattern();
    Pattern q = ParsePostfix();
    if (!q) return Pattern();
    p = Alt(p, q);
  }
  return p;
}

Pattern DslParser::ParsePostfix() {
  TokenPos start = Peek();
  Pattern p = ParsePrimary();
  // A chain of suffixes nests like `|` does (ParseAlt): the second and
  // later ones count against kMaxNesting.
  std::list<NestingGuard> chain;
  for (int suffixes = 0; p; ++suffixes) {
    if (suffixes > 0 && !chain.emplace_back(*this).ok()) return Pattern();
    if (At(TokenKind::kLParen)) {
      p = ParseCallSuffix(p, false, start);
    } else if (At(TokenKind::kQuestion) && Peek(1).kind == TokenKind::kLParen) {
      Next();
      p = ParseCallSuffix(p, true, start);
    } else if (At(TokenKind::kDot) && Peek(1).kind == TokenKind::kInt) {
      Next();
      Token index = Next();
      if (index.int_value < 0 || index.int_value > INT32_MAX) {
        Error(SpanOf(index), "projection index out of range");
        return Pattern();
      }
      p = IsTupleGetItem(p, static_cast<int>(index.int_value));
    } else if (At(TokenKind::kDot) && Peek(1).kind == TokenKind::kUnderscore) {
      Next();
      Next();
      p = IsTupleGetItem(p);
    } else if (At(TokenKind::kDot)) {
      Next();
      ErrorExpected("a field index or '_' after '.'");
      return Pattern();
    } else if (AtWord("as")) {
      Next();
      TokenPos at = Peek();
      if (!Expect(TokenKind::kQuestion, "'?name' after 'as'")) return Pattern();
      if (!At(TokenKind::kIdent)) {
        ErrorExpected("a capture name after '?'");
        return Pattern();
      }
      std::string name(Text(Next()));
      p = CaptureAs(p, name, SpanFrom(at));
    } else if (Accept(TokenKind::kColon)) {
      p = ParseConstraint(p);
    } else {
      break;
    }
  }
  return p;
}

bool DslParser::AtAttr() {
  return Peek().kind == TokenKind::kIdent && Peek(1).kind == TokenKind::kEqual;
}

Pattern DslParser::ParseCallSuffix(const Pattern& callee, bool optional, const TokenPos& start) {
  TokenPos open = Next();  // '('
  std::vector<Pattern> args;
  std::vector<ParsedAttr> attrs;
  bool any = false;
  bool first = true;
  while (!At(TokenKind::kRParen)) {
    if (!first && !Expect(TokenKind::kComma, "',' or ')'", &open)) return Pattern();
    first = false;
    if (At(TokenKind::kRParen)) break;  // trailing comma
    if (AtAttr()) {
      std::optional<ParsedAttr> a = ParseAttr();
      if (!a) return Pattern();
      attrs.push_back(std::move(*a));
      continue;
    }
    TokenPos at = Peek();
    if (!attrs.empty() || any) {
      Error(SpanOf(at), attrs.empty() ? "no arguments may follow '...'"
                                      : "arguments must come before attributes");
      return Pattern();
    }
    if (Accept(TokenKind::kEllipsis)) {
      if (!args.empty()) {
        Error(SpanFrom(at), "'...' stands for all the arguments; it cannot follow others");
        return Pattern();
      }
      any = true;
      continue;
    }
    Pattern a = ParseDef();
    if (!a) return Pattern();
    args.push_back(a);
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return Pattern();
  if (optional && (any || args.empty())) {
    Error(SpanFrom(start), "an optional call needs its optional input as first argument");
    return Pattern();
  }
  const auto* op = DynCast<OperatorPattern>(callee.get());
  Pattern call = any ? IsCallAnyArgs(callee) : IsCall(callee, args);
  if (!attrs.empty()) call = WithCallAttrs(call, attrs, op ? op->op() : nullptr);
  if (!call) return Pattern();
  return optional ? Alt(args[0], call) : call;
}

Pattern DslParser::WithCallAttrs(const Pattern& call, const std::vector<ParsedAttr>& attrs,
                                 const OpInfo* op) {
  std::vector<AttrEntry> entries;
  for (const ParsedAttr& a : attrs) {
    AttrValue value = a.value;
    if (op != nullptr) {
      int index = op->attrs ? op->attrs->FieldIndex(a.key) : -1;
      if (index < 0) {
        Error(a.span, op->attrs ? fmt::format("{} has no attribute '{}'", op->name, a.key)
                                : fmt::format("{} takes no attributes", op->name));
        return Pattern();
      }
      auto coerced = CoerceAttrValue(op->attrs->fields[index], a.value);
      if (!coerced.ok()) {
        Error(a.span, std::string(coerced.status().message()));
        return Pattern();
      }
      value = *coerced;
    }
    entries.push_back({a.key, value});
  }
  return HasAttr(std::move(entries), call);
}

Pattern DslParser::ParsePrimary() {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kUnderscore:
      Next();
      return Wildcard();
    case TokenKind::kQuestion: {
      TokenPos at = Next();
      if (!At(TokenKind::kIdent)) {
        ErrorExpected("a capture name after '?'");
        return Pattern();
      }
      std::string name(Text(Next()));
      return CaptureUse(name, SpanFrom(at));
    }
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kTrue:
    case TokenKind::kFalse:
      return Literal(Next());
    case TokenKind::kLParen:
      return ParseParenthesized();
    case TokenKind::kIf:
      return ParseIf();
    case TokenKind::kLet:
      return ParseLet();
    case TokenKind::kFn:
      return ParseFunction();
    case TokenKind::kIdent: {
      std::string_view word = Text(t);
      if (word == "const") {
        Next();
        return IsConstant();
      }
      if (word == "var") {
        Next();
        if (!At(TokenKind::kLParen)) return IsVar();
        TokenPos open = Next();
        if (!At(TokenKind::kString)) {
          ErrorExpected("a variable name in quotes");
          return Pattern();
        }
        std::string scratch;
        std::string name(lex_.StringValue(Next(), scratch));
        if (!Expect(TokenKind::kRParen, "')'", &open)) return Pattern();
        return IsVar(name);
      }
      if (word == "dominates") return ParseDominates();
      if (word == "has_attr") return ParseHasAttr();
      return ParseNamedOrOp(t);
    }
    default:
      ErrorExpected("a pattern");
      return Pattern();
  }
}

Pattern DslParser::ParseNamedOrOp(const Token& first) {
  Span span;
  std::optional<std::string> name = ParseName("a pattern", &span);
  if (!name) return Pattern();
  if (scope_ != nullptr && !scope_->name.empty() && *name == scope_->name) {
    if (scope_->self == nullptr) scope_->self = std::make_shared<const RecursivePattern>(*name);
    return Pattern(scope_->self);
  }
  const NamedPattern* named = library_.FindPattern(*name);
  if (named == nullptr && imports_ != nullptr) named = imports_->FindPattern(*name);
  if (named != nullptr) return ReferencePattern(*named, span);
  if (const OpInfo* op = FindOp(*name)) return IsOp(op);
  const OpInfo* near = NearestOp(*name);
  Error(span, near ? fmt::format("unknown operator or pattern '{}' (did you mean '{}'?)", *name,
                                 near->name)
                   : fmt::format("unknown operator or pattern '{}'", *name));
  return Pattern();
}

Pattern DslParser::ReferencePattern(const NamedPattern& named, Span span) {
  for (const std::string& cap : CaptureNames(named.pattern)) {
    if (scope_->own.contains(cap)) {
      Error(span, fmt::format("capture ?{} is also bound inside pattern '{}'", cap, named.name),
            {{named.span, fmt::format("'{}' is defined here", named.name)}});
      return Pattern();
    }
    scope_->imported.emplace(cap, named.name);
  }
  return named.pattern;
}

Pattern DslParser::CaptureUse(const std::string& name, Span span) {
  auto it = scope_->own.find(name);
  if (it != scope_->own.end()) return it->second;
  auto imp = scope_->imported.find(name);
  if (imp != scope_->imported.end()) {
    Error(span, fmt::format("capture ?{} is bound inside pattern '{}'; use another name", name,
                            imp->second));
    return Pattern();
  }
  Pattern p = Capture(name);
  scope_->own.emplace(name, p);
  return p;
}

Pattern DslParser::CaptureAs(const Pattern& inner, const std::string& name, Span span) {
  if (scope_->own.contains(name) || scope_->imported.contains(name)) {
    Error(span, fmt::format("capture ?{} is already bound", name));
    return Pattern();
  }
  Pattern p = Capture(name, inner);
  scope_->own.emplace(name, p);
  return p;
}

Pattern DslParser::Literal(const Token& t) { return IsExpr(MakeConstant(t), library_.arena()); }

Pattern DslParser::ParseParenthesized() {
  TokenPos open = Next();
  if (Accept(TokenKind::kRParen)) return IsTuple({});
  if (At(TokenKind::kEllipsis) && Peek(1).kind == TokenKind::kRParen) {
    Next();
    Next();
    return IsAnyTuple();
  }
  Pattern first = ParseDef();
  if (!first) return Pattern();
  if (Accept(TokenKind::kRParen)) return first;
  std::vector<Pattern> fields = {first};
  while (Accept(TokenKind::kComma)) {
    if (At(TokenKind::kRParen)) break;
    Pattern f = ParseDef();
    if (!f) return Pattern();
    fields.push_back(f);
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return Pattern();
  return IsTuple(std::move(fields));
}

Pattern DslParser::ParseIf() {
  Next();  // 'if'
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' after 'if'")) return Pattern();
  Pattern cond = ParseDef();
  if (!cond || !Expect(TokenKind::kRParen, "')'", &open)) return Pattern();
  Pattern branches[2];
  for (int i = 0; i < 2; ++i) {
    if (i == 1 && !Expect(TokenKind::kElse, "'else'")) return Pattern();
    TokenPos brace = Peek();
    if (!Expect(TokenKind::kLBrace, "'{'")) return Pattern();
    branches[i] = ParseDef();
    if (!branches[i] || !Expect(TokenKind::kRBrace, "'}'", &brace)) return Pattern();
  }
  return IsIf(cond, branches[0], branches[1]);
}

Pattern DslParser::ParseLet() {
  Next();  // 'let'
  Pattern var = ParsePostfix();
  if (!var || !Expect(TokenKind::kEqual, "'=' after the let variable")) return Pattern();
  Pattern value = ParseDef();
  if (!value || !Expect(TokenKind::kSemicolon, "';' after the let value")) return Pattern();
  Pattern body = ParseAlt();
  if (!body) return Pattern();
  return IsLet(var, value, body);
}

Pattern DslParser::ParseFunction() {
  Next();  // 'fn'
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' after 'fn'")) return Pattern();
  std::vector<Pattern> params;
  bool any = false;
  if (Accept(TokenKind::kEllipsis)) {
    any = true;
  } else {
    while (!At(TokenKind::kRParen)) {
      Pattern p = ParseDef();
      if (!p) return Pattern();
      params.push_back(p);
      if (!Accept(TokenKind::kComma)) break;
    }
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return Pattern();
  TokenPos brace = Peek();
  if (!Expect(TokenKind::kLBrace, "'{' before the function body")) return Pattern();
  Pattern body = ParseDef();
  if (!body || !Expect(TokenKind::kRBrace, "'}'", &brace)) return Pattern();
  return any ? IsFunctionAnyParams(body) : IsFunction(std::move(params), body);
}

Pattern DslParser::ParseDominates() {
  Next();  // 'dominates'
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' after 'dominates'")) return Pattern();
  Pattern parts[3];
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && !Expect(TokenKind::kComma, "','", &open)) return Pattern();
    parts[i] = ParseDef();
    if (!parts[i]) return Pattern();
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return Pattern();
  return Dominates(parts[0], parts[1], parts[2]);
}

Pattern DslParser::ParseHasAttr() {
  Next();  // 'has_attr'
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' after 'has_attr'")) return Pattern();
  Pattern inner = ParseDef();
  if (!inner) return Pattern();
  std::vector<AttrEntry> attrs;
  while (Accept(TokenKind::kComma)) {
    if (At(TokenKind::kRParen)) break;
    std::optional<ParsedAttr> a = ParseAttr();
    if (!a) return Pattern();
    attrs.push_back({InternString(a->key), a->value});
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return Pattern();
  return HasAttr(std::move(attrs), inner);
}

}  // namespace carve::pattern_dsl
