// Type constraints, `where` predicates, attribute values, literals and
// rewrite templates.
#include <bit>
#include <cstring>

#include "fmt/format.h"
#include "grammar/pattern_parser_impl.h"
#include "patterns/builders.h"

namespace carve::pattern_dsl {

// ---- Type constraints ----

std::optional<DataType> DslParser::ParseDType() {
  if (!At(TokenKind::kIdent)) {
    ErrorExpected("a dtype");
    return std::nullopt;
  }
  Token t = Next();
  std::optional<DataType> dtype = DataType::Parse(Text(t));
  if (!dtype || dtype->is_void()) {
    Error(SpanOf(t), fmt::format("unknown dtype '{}'", Text(t)));
    return std::nullopt;
  }
  return dtype;
}

Pattern DslParser::ParseConstraint(const Pattern& inner) {
  if (AtWord("Tensor")) return ParseTensorConstraint(inner);
  if (At(TokenKind::kLParen)) {
    const Type* t = ParseConcreteType();
    return t ? HasType(t, inner) : Pattern();
  }
  std::optional<DataType> dtype = ParseDType();
  return dtype ? HasDType(*dtype, inner) : Pattern();
}

// `Tensor[(1, _, ?), float32]`: an exact type, or shape and dtype constraints
// when a dim or the dtype is `_`.
Pattern DslParser::ParseTensorConstraint(const Pattern& inner) {
  Next();  // 'Tensor'
  TokenPos bracket = Peek();
  if (!Expect(TokenKind::kLBracket, "'[' after 'Tensor'")) return Pattern();
  TokenPos paren = Peek();
  if (!Expect(TokenKind::kLParen, "'(' and the shape")) return Pattern();
  std::vector<DimPattern> dims;
  std::vector<Dim> exact;
  bool wildcard_dim = false;
  while (!At(TokenKind::kRParen)) {
    Token t = Next();
    if (t.kind == TokenKind::kInt && t.int_value >= 0) {
      dims.push_back(DimPattern(t.int_value));
      exact.push_back(Dim{t.int_value, t.dtype.bits == 64});
    } else if (t.kind == TokenKind::kUnderscore) {
      dims.push_back(DimPattern::Any());
      wildcard_dim = true;
    } else if (t.kind == TokenKind::kQuestion) {
      dims.push_back(DimPattern::Dynamic());
      exact.push_back(Dim::Any());
    } else {
      Error(SpanOf(t), "expected a dimension (an extent, '_' or '?')");
      return Pattern();
    }
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRParen, "')'", &paren) || !Expect(TokenKind::kComma, "','")) {
    return Pattern();
  }
  std::optional<DataType> dtype;
  if (!Accept(TokenKind::kUnderscore)) {
    dtype = ParseDType();
    if (!dtype) return Pattern();
  }
  if (!Expect(TokenKind::kRBracket, "']'", &bracket)) return Pattern();
  if (!dtype) return HasShape(std::move(dims), inner);
  if (wildcard_dim) return HasShape(std::move(dims), HasDType(*dtype, inner));
  return HasType(TensorTy(*dtype, exact), inner);
}

// A fully written type: `Tensor[(1, 3), float32]`, `float32`, `(T, U)`.
const Type* DslParser::ParseConcreteType() {
  NestingGuard guard(*this);
  if (!guard.ok()) return nullptr;
  if (At(TokenKind::kLParen)) {
    TokenPos open = Next();
    std::vector<const Type*> fields;
    bool comma = false;
    while (!At(TokenKind::kRParen)) {
      const Type* t = ParseConcreteType();
      if (t == nullptr) return nullptr;
      fields.push_back(t);
      comma = Accept(TokenKind::kComma);
      if (!comma) break;
    }
    if (!Expect(TokenKind::kRParen, "')'", &open)) return nullptr;
    if (fields.size() == 1 && !comma) return fields[0];
    return TupleTy(fields);
  }
  if (AtWord("Tensor")) {
    TokenPos at = Peek();
    Pattern p = ParseTensorConstraint(Wildcard());
    const auto* t = p ? DynCast<TypePattern>(p.get()) : nullptr;
    if (t == nullptr) {
      if (p) Error(SpanFrom(at), "a type inside a tuple type cannot contain '_'");
      return nullptr;
    }
    return t->type();
  }
  std::optional<DataType> dtype = ParseDType();
  return dtype ? ScalarTy(*dtype) : nullptr;
}

// ---- Predicates ----

std::shared_ptr<const Predicate> DslParser::ParsePredicate() {
  NestingGuard guard(*this);
  if (!guard.ok()) return nullptr;
  std::shared_ptr<const Predicate> p = ParseConjunction();
  std::list<NestingGuard> chain;  // Or(Or(a, b), c) nests (ParseAlt)
  while (p != nullptr && AcceptWord("or")) {
    if (!chain.emplace_back(*this).ok()) return nullptr;
    std::shared_ptr<const Predicate> q = ParseConjunction();
    if (q == nullptr) return nullptr;
    p = Predicate::Or(p, q);
  }
  return p;
}

std::shared_ptr<const Predicate> DslParser::ParseConjunction() {
  std::shared_ptr<const Predicate> p = ParseNegation();
  std::list<NestingGuard> chain;  // And(And(a, b), c) nests (ParseAlt)
  while (p != nullptr && AcceptWord("and")) {
    if (!chain.emplace_back(*this).ok()) return nullptr;
    std::shared_ptr<const Predicate> q = ParseNegation();
    if (q == nullptr) return nullptr;
    p = Predicate::And(p, q);
  }
  return p;
}

std::shared_ptr<const Predicate> DslParser::ParseNegation() {
  NestingGuard guard(*this);
  if (!guard.ok()) return nullptr;
  if (AcceptWord("not")) {
    std::shared_ptr<const Predicate> p = ParseNegation();
    return p ? Predicate::Not(p) : nullptr;
  }
  if (At(TokenKind::kLParen)) {
    TokenPos open = Next();
    std::shared_ptr<const Predicate> p = ParsePredicate();
    if (p == nullptr || !Expect(TokenKind::kRParen, "')'", &open)) return nullptr;
    return p;
  }
  return ParseComparison();
}

std::optional<std::string> DslParser::ParseCaptureRef() {
  if (!Expect(TokenKind::kQuestion, "a capture ('?name' or '?')")) return std::nullopt;
  if (At(TokenKind::kIdent) && !AtWord("is")) return std::string(Text(Next()));
  return std::string();
}

std::shared_ptr<const Predicate> DslParser::ParseComparison() {
  if (At(TokenKind::kQuestion) && (AtWord("is", 1) || AtWord("is", 2))) {
    std::optional<std::string> cap = ParseCaptureRef();
    if (!cap || !AcceptWord("is")) return nullptr;
    static constexpr NodeClass kClasses[] = {NodeClass::kConst, NodeClass::kVar, NodeClass::kCall,
                                             NodeClass::kTuple, NodeClass::kFunction};
    for (NodeClass c : kClasses) {
      if (AtWord(NodeClassSpelling(c)) || (c == NodeClass::kFunction && At(TokenKind::kFn))) {
        Next();
        return Predicate::Is(*cap, c);
      }
    }
    ErrorExpected("'const', 'var', 'call', 'tuple' or 'fn' after 'is'");
    return nullptr;
  }
  std::optional<PredicateTerm> lhs = ParseTerm();
  if (!lhs) return nullptr;
  if (AcceptWord("in")) {
    TokenPos open = Peek();
    if (!Expect(TokenKind::kLBracket, "'[' after 'in'")) return nullptr;
    std::vector<PredicateTerm> items;
    while (!At(TokenKind::kRBracket)) {
      std::optional<PredicateTerm> t = ParseTerm();
      if (!t) return nullptr;
      items.push_back(std::move(*t));
      if (!Accept(TokenKind::kComma)) break;
    }
    if (!Expect(TokenKind::kRBracket, "']'", &open)) return nullptr;
    return Predicate::In(std::move(*lhs), std::move(items));
  }
  CompareOp op;
  switch (Peek().kind) {
    case TokenKind::kEqualEqual:
      op = CompareOp::kEq;
      break;
    case TokenKind::kBangEqual:
      op = CompareOp::kNe;
      break;
    case TokenKind::kLess:
      op = CompareOp::kLt;
      break;
    case TokenKind::kLessEqual:
      op = CompareOp::kLe;
      break;
    case TokenKind::kGreater:
      op = CompareOp::kGt;
      break;
    case TokenKind::kGreaterEqual:
      op = CompareOp::kGe;
      break;
    default:
      ErrorExpected("a comparison ('==', '!=', '<', ...) or 'in'");
      return nullptr;
  }
  Next();
  std::optional<PredicateTerm> rhs = ParseTerm();
  if (!rhs) return nullptr;
  return Predicate::Compare(std::move(*lhs), op, std::move(*rhs));
}

std::optional<PredicateTerm> DslParser::ParseTerm() {
  if (At(TokenKind::kQuestion)) {
    TokenPos at = Peek();
    std::optional<std::string> cap = ParseCaptureRef();
    if (!cap) return std::nullopt;
    if (!Accept(TokenKind::kDot) || !At(TokenKind::kIdent)) {
      Error(SpanFrom(at),
            "a capture is not a value here; write ?x.attr, dtype(?x), shape(?x), "
            "rank(?x) or '?x is const'");
      return std::nullopt;
    }
    return PredicateTerm::Attr(*cap, std::string(Text(Next())));
  }
  for (std::string_view fn : {"dtype", "shape", "rank"}) {
    if (!AtWord(fn) || Peek(1).kind != TokenKind::kLParen) continue;
    Next();
    TokenPos open = Next();
    std::optional<std::string> cap = ParseCaptureRef();
    if (!cap || !Expect(TokenKind::kRParen, "')'", &open)) return std::nullopt;
    if (fn == "dtype") return PredicateTerm::DType(*cap);
    if (fn == "rank") return PredicateTerm::Rank(*cap);
    if (!At(TokenKind::kLBracket)) return PredicateTerm::Shape(*cap);
    TokenPos bracket = Next();
    if (!At(TokenKind::kInt)) {
      ErrorExpected("a dimension index");
      return std::nullopt;
    }
    int64_t index = Next().int_value;
    if (!Expect(TokenKind::kRBracket, "']'", &bracket)) return std::nullopt;
    return PredicateTerm::ShapeDim(*cap, index);
  }
  if (At(TokenKind::kIdent) && !AtWord("None")) {
    // A bare word is a string: `dtype(?x) in [float32, float16]`.
    return PredicateTerm::Literal(AttrValue::Str(Text(Next())));
  }
  std::optional<AttrValue> v = ParseAttrValue();
  if (!v) return std::nullopt;
  return PredicateTerm::Literal(*v);
}

const OpInfo* CalledOpOf(const Pattern& p) {
  const PatternNode* n = p.get();
  while (n != nullptr) {
    switch (n->kind()) {
      case PatternKind::kCall:
        return static_cast<const CallPattern*>(n)->op();
      case PatternKind::kCapture:
      case PatternKind::kWhere:
      case PatternKind::kAttr:
      case PatternKind::kType:
      case PatternKind::kDType:
      case PatternKind::kShape:
        if (n->children().empty()) return nullptr;
        n = n->children()[0].get();
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

namespace {

std::string FieldList(const AttrsSchema* schema) {
  if (schema == nullptr || schema->fields.empty()) return "it has no attributes";
  std::string out = "its attributes: ";
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    out += fmt::format("{}{}", i ? ", " : "", schema->fields[i].name);
  }
  return out;
}

// A literal a dtype(...) term is compared with: a dtype name (a bare word
// or a string), else an error message.
std::optional<std::string> BadDTypeLiteral(const PredicateTerm& t) {
  if (t.kind != PredicateTerm::Kind::kLiteral || t.literal.kind() != AttrValue::Kind::kString) {
    return std::nullopt;
  }
  std::optional<DataType> dtype = DataType::Parse(t.literal.as_string());
  if (dtype && !dtype->is_void()) return std::nullopt;
  return fmt::format("unknown dtype '{}'", t.literal.as_string());
}

}  // namespace

void DslParser::CheckPredicateCaptures(const Predicate& p, Span span, bool self_only,
                                       const OpInfo* self_op) {
  for (const std::string& name : p.Captures()) {
    if (name.empty()) continue;
    if (self_only) {
      Error(span, fmt::format("an op rule can only test '?' (the call), not ?{}", name));
      return;
    }
    if (!scope_->own.contains(name) && !scope_->imported.contains(name)) {
      Error(span, fmt::format("unknown capture ?{} in the where clause", name));
      return;
    }
  }
  CheckPredicateTerms(p, span, self_op);
}

// A misspelt attribute or dtype would make the predicate false (or
// unknown) on every node, silently: the pattern would never match.
void DslParser::CheckPredicateTerms(const Predicate& p, Span span, const OpInfo* self_op) {
  for (const auto& operand : p.operands()) CheckPredicateTerms(*operand, span, self_op);
  bool dtype_compare = false;
  for (const PredicateTerm& t : p.terms()) dtype_compare |= t.kind == PredicateTerm::Kind::kDType;
  for (const PredicateTerm& t : p.terms()) {
    if (dtype_compare) {
      if (std::optional<std::string> bad = BadDTypeLiteral(t)) {
        Error(span, *bad);
        return;
      }
    }
    if (t.kind != PredicateTerm::Kind::kAttr) continue;
    const OpInfo* op = self_op;
    if (!t.capture.empty()) {
      op = nullptr;
      if (scope_ != nullptr) {
        if (auto it = scope_->own.find(t.capture); it != scope_->own.end()) op = CalledOpOf(it->second);
      }
    }
    if (op == nullptr || (op->attrs != nullptr && op->attrs->FieldIndex(t.key) >= 0)) continue;
    Error(span, fmt::format("?{}.{}: {} has no attribute '{}' ({})", t.capture, t.key, op->name,
                            t.key, FieldList(op->attrs)));
    return;
  }
}

// ---- Attribute values and literals ----

std::optional<ParsedAttr> DslParser::ParseAttr() {
  TokenPos at = Peek();
  if (!At(TokenKind::kIdent)) {
    ErrorExpected("an attribute name");
    return std::nullopt;
  }
  std::string key(Text(Next()));
  if (!Expect(TokenKind::kEqual, "'='")) return std::nullopt;
  std::optional<AttrValue> value = ParseAttrValue();
  if (!value) return std::nullopt;
  return ParsedAttr{std::move(key), *value, SpanFrom(at)};
}

std::optional<AttrValue> DslParser::ParseAttrValue() {
  NestingGuard guard(*this);
  if (!guard.ok()) return std::nullopt;
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kInt: {
      Token n = Next();
      return AttrValue::Int(n.int_value, n.dtype.bits);
    }
    case TokenKind::kFloat:
      return AttrValue::Float(Next().float_value);
    case TokenKind::kTrue:
      Next();
      return AttrValue::Bool(true);
    case TokenKind::kFalse:
      Next();
      return AttrValue::Bool(false);
    case TokenKind::kString: {
      std::string scratch;
      return AttrValue::Str(lex_.StringValue(Next(), scratch));
    }
    case TokenKind::kLBracket: {
      TokenPos open = Next();
      std::vector<AttrValue> items;
      while (!At(TokenKind::kRBracket)) {
        std::optional<AttrValue> v = ParseAttrValue();
        if (!v) return std::nullopt;
        items.push_back(*v);
        if (!Accept(TokenKind::kComma)) break;
      }
      if (!Expect(TokenKind::kRBracket, "']'", &open)) return std::nullopt;
      return AttrValue::Array(items);
    }
    default:
      if (AtWord("None")) {
        Next();
        return AttrValue();
      }
      ErrorExpected("a value");
      return std::nullopt;
  }
}

const Constant* DslParser::MakeConstant(const Token& t) {
  DataType dtype = t.dtype;
  uint64_t bits = 0;
  if (t.kind == TokenKind::kTrue || t.kind == TokenKind::kFalse) {
    dtype = DataType::Bool();
    bits = t.kind == TokenKind::kTrue;
  } else if (t.kind == TokenKind::kInt) {
    bits = static_cast<uint64_t>(t.int_value);
  } else if (dtype.bits == 16) {
    bits = FloatToHalf(static_cast<float>(t.float_value));
  } else if (dtype.bits == 32) {
    bits = std::bit_cast<uint32_t>(static_cast<float>(t.float_value));
  } else {
    bits = std::bit_cast<uint64_t>(t.float_value);
  }
  NDArray array = NDArray::Empty(dtype, std::span<const int64_t>{});
  std::memcpy(array.raw_data(), &bits, static_cast<size_t>(dtype.bytes()));
  return IRBuilder(library_.arena().get()).MakeConstant(array, SpanOf(t));
}

// ---- Templates ----

std::shared_ptr<const Template> DslParser::ParseTemplate() {
  NestingGuard guard(*this);
  if (!guard.ok()) return nullptr;
  std::shared_ptr<const Template> t = ParseTemplatePrimary();
  while (t != nullptr && At(TokenKind::kDot) && Peek(1).kind == TokenKind::kInt) {
    Next();
    t = Template::GetItem(t, static_cast<int>(Next().int_value));
  }
  return t;
}

std::shared_ptr<const Template> DslParser::ParseTemplatePrimary() {
  switch (Peek().kind) {
    case TokenKind::kQuestion:
      return ParseTemplateCapture();
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kTrue:
    case TokenKind::kFalse:
      return Template::ConstantOf(MakeConstant(Next()), library_.arena());
    case TokenKind::kLParen:
      return ParseTemplateTuple();
    case TokenKind::kIdent:
      return ParseTemplateCall();
    default:
      ErrorExpected("a replacement expression");
      return nullptr;
  }
}

// `?name`: a capture the pattern binds on every match.
std::shared_ptr<const Template> DslParser::ParseTemplateCapture() {
  TokenPos at = Next();
  if (!At(TokenKind::kIdent)) {
    ErrorExpected("a capture name after '?'");
    return nullptr;
  }
  std::string name(Text(Next()));
  if (!scope_->own.contains(name) && !scope_->imported.contains(name)) {
    Error(SpanFrom(at),
          fmt::format("the replacement uses ?{}, which the pattern does not bind", name));
    return nullptr;
  }
  if (scope_->always_bound && !scope_->always_bound->contains(name)) {
    Error(SpanFrom(at), fmt::format("the replacement uses ?{}, which the pattern binds only "
                                    "on some matches (in one alternative or on a dominator's "
                                    "path)",
                                    name));
    return nullptr;
  }
  return Template::CaptureRef(name);
}

// `(a, b)`, `(a,)` or a parenthesised `(a)`.
std::shared_ptr<const Template> DslParser::ParseTemplateTuple() {
  TokenPos open = Next();
  std::vector<std::shared_ptr<const Template>> fields;
  bool comma = false;
  while (!At(TokenKind::kRParen)) {
    std::shared_ptr<const Template> f = ParseTemplate();
    if (f == nullptr) return nullptr;
    fields.push_back(f);
    comma = Accept(TokenKind::kComma);
    if (!comma) break;
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return nullptr;
  if (fields.size() == 1 && !comma) return fields[0];
  return Template::MakeTuple(std::move(fields));
}

// `op(args, key=value)`: attributes are checked against the op's schema.
std::shared_ptr<const Template> DslParser::ParseTemplateCall() {
  const OpInfo* op = ParseOpName();
  if (op == nullptr) return nullptr;
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, fmt::format("'(' after {}", op->name))) return nullptr;
  std::vector<std::shared_ptr<const Template>> args;
  std::vector<AttrEntry> attrs;
  while (!At(TokenKind::kRParen)) {
    if (AtAttr()) {
      std::optional<AttrEntry> attr = ParseTemplateAttr(op);
      if (!attr) return nullptr;
      attrs.push_back(*attr);
    } else {
      std::shared_ptr<const Template> arg = ParseTemplate();
      if (arg == nullptr) return nullptr;
      args.push_back(arg);
    }
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRParen, "')'", &open)) return nullptr;
  return Template::OpCall(op, std::move(args), std::move(attrs));
}

// `key=value` of a call of `op`, coerced to the field's type.
std::optional<AttrEntry> DslParser::ParseTemplateAttr(const OpInfo* op) {
  std::optional<ParsedAttr> a = ParseAttr();
  if (!a) return std::nullopt;
  int index = op->attrs ? op->attrs->FieldIndex(a->key) : -1;
  absl::StatusOr<AttrValue> v =
      index < 0
          ? absl::InvalidArgumentError(fmt::format("{} has no attribute '{}'", op->name, a->key))
          : CoerceAttrValue(op->attrs->fields[index], a->value);
  if (!v.ok()) {
    Error(a->span, std::string(v.status().message()));
    return std::nullopt;
  }
  return AttrEntry{InternString(a->key), *v};
}

}  // namespace carve::pattern_dsl
