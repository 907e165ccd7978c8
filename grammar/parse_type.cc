// Types:
//   type  := '(' ')' | '(' type ',' ')' | '(' type (',' type)+ ','? ')' | '(' type ')'
//          | 'fn' ('[' IDENT,* ']')? '(' type,* ')' '->' type
//          | 'Tensor' '[' '(' dim,* ')' ',' DTYPE ']'
//          | DTYPE                 -- an identifier starting int/uint/float/bfloat/bool
//          | IDENT                 -- a type variable in scope
//          | IDENT ('[' type,* ']')?  -- a data type (parse_adt.cc)
//          | '_'                   -- to be inferred
//          | 'ref' '(' type ')'    -- a reference (carve extension, see below)
//   dim   := INT | INT 'i64' | '?'
// carve also accepts type parameters on function types (TVM cannot parse
// what its printer writes there), `bfloat16` scalars and `ref(T)`, which
// TVM's printer writes for a reference type but its parser does not read.
#include "fmt/format.h"
#include "grammar/parser_impl.h"
#include "ir/tensor_size.h"

namespace carve::parser_internal {
namespace {

// Bound on the memo of tensor types.
constexpr size_t kMaxCachedTypes = 4096;

bool LooksLikeDType(std::string_view name) {
  return name.starts_with("int") || name.starts_with("uint") || name.starts_with("float") ||
         name.starts_with("bfloat") || name.starts_with("bool");
}

}  // namespace

const Type* Parser::ParseType() {
  NestingGuard guard(*this, "type");
  if (!guard.ok()) return nullptr;
  switch (Peek().kind) {
    case TokenKind::kLParen:
      return ParseTupleType();
    case TokenKind::kFn:
      return ParseFuncType();
    case TokenKind::kIdent:
      return ParseNamedType();
    case TokenKind::kUnderscore:
      Next();
      return NewIncompleteType();
    case TokenKind::kRef: {
      Next();
      TokenPos open = Peek();
      if (!Expect(TokenKind::kLParen, "'(' after ref")) return nullptr;
      const Type* value = ParseType();
      if (value == nullptr) return nullptr;
      if (!Expect(TokenKind::kRParen, "')' after the reference's type", &open)) return nullptr;
      return RefTy(value);
    }
    default:
      ErrorExpected("a type");
      return nullptr;
  }
}

const Type* Parser::ParseTupleType() {
  TokenPos open = Next();
  const size_t base = type_items_.size();
  bool trailing_comma = false;
  while (!At(TokenKind::kRParen)) {
    const Type* field = ParseType();
    if (field == nullptr) {
      type_items_.resize(base);
      return nullptr;
    }
    type_items_.push_back(field);
    if (!Accept(TokenKind::kComma)) break;
    trailing_comma = At(TokenKind::kRParen);
  }
  if (!Expect(TokenKind::kRParen, "')' after the tuple type", &open)) {
    type_items_.resize(base);
    return nullptr;
  }
  const size_t n = type_items_.size() - base;
  const Type* result = n == 1 && !trailing_comma
                           ? type_items_[base]  // `(T)` is T
                           : TupleTy(std::span<const Type* const>(type_items_.data() + base, n));
  type_items_.resize(base);
  return result;
}

const Type* Parser::ParseFuncType() {
  Next();  // fn
  const size_t type_var_mark = type_vars_.size();
  Signature sig;  // only its type params are used
  auto finish = [&](const Type* t) {
    type_vars_.resize(type_var_mark);
    return t;
  };
  if (At(TokenKind::kLBracket) && !ParseTypeParams(sig)) return finish(nullptr);
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' after 'fn' in a function type")) return finish(nullptr);
  const size_t base = type_items_.size();
  while (!At(TokenKind::kRParen)) {
    const Type* param = ParseType();
    if (param == nullptr) {
      type_items_.resize(base);
      return finish(nullptr);
    }
    type_items_.push_back(param);
    if (!Accept(TokenKind::kComma)) break;
  }
  std::vector<const Type*> params(type_items_.begin() + base, type_items_.end());
  type_items_.resize(base);
  if (!Expect(TokenKind::kRParen, "')' after the parameter types", &open)) return finish(nullptr);
  bool arrow = Accept(TokenKind::kArrow);
  if (!arrow && At(TokenKind::kMinus) && Peek(1).kind == TokenKind::kGreater) {
    Next();
    Next();
    arrow = true;
  }
  if (!arrow) {
    ErrorExpected("'->' and the result type of the function type");
    return finish(nullptr);
  }
  const Type* ret = ParseType();
  if (ret == nullptr) return finish(nullptr);
  return finish(FuncTy(params, ret, sig.type_params));
}

const Type* Parser::ParseNamedType() {
  const Token& name = Next();
  const std::string_view text = lex_.TextOf(name);
  const Span name_span = SpanOf(name);
  if (text == "Tensor" && At(TokenKind::kLBracket)) return ParseTensorType(name_span.begin);
  if (LooksLikeDType(text)) {
    if (std::optional<DataType> dtype = DataType::Parse(text)) return ScalarTy(*dtype);
    Error(name_span, fmt::format("unknown dtype '{}'", text));
    return nullptr;
  }
  if (const TypeVar* tv = FindTypeVar(text)) return tv;
  return ParseAdtType(text, name_span);
}

const Type* Parser::MatchRecentType(uint32_t begin, uint32_t* end) const {
  if (no_recent_memos_for_testing) return nullptr;
  const std::string_view all = lex_.text();
  const auto* hit =
      recent_types_.Match(all.data() + begin, kRecentKey, all.data() + all.size(), nullptr);
  if (hit == nullptr) return nullptr;
  *end = begin + hit->size;
  return hit->value;
}

const Type* Parser::ParseTensorType(uint32_t begin) {
  // Models repeat a few tensor types thousands of times: memoise them by
  // their text, found by a raw scan for the closing ']' (a memoised text was
  // parsed before without error, so its tokens need not be lexed again).
  // A text remembered by its bytes is tried first.
  const std::string_view all = lex_.text();
  uint32_t recent_end = 0;
  if (const Type* type = MatchRecentType(begin, &recent_end);
      type != nullptr && lex_.SkipTo(recent_end)) {
    prev_end_ = recent_end;
    return type;
  }
  std::string_view text;
  if (uint32_t close = lex_.ScanGroup(Peek().begin + 1, ']', 256); close != 0) {
    text = all.substr(begin, close + 1 - begin);
    auto it = type_cache_.find(text);
    if (it != type_cache_.end() && lex_.SkipTo(close + 1)) {
      prev_end_ = close + 1;
      recent_types_.Remember(text, kRecentKey, all.data() + all.size(), nullptr, it->second);
      return it->second;
    }
  }
  // Not memoised: lex the lookahead window up to the ']' as the parser
  // always has, so that lexical errors in it are reported in the same order.
  for (uint32_t k = 0; k < Lexer::kMaxPeek && Peek(k).kind != TokenKind::kRBracket &&
                       Peek(k).kind != TokenKind::kEof;
       ++k) {
  }
  const Type* type = ParseTensorShapeAndDType();
  if (type != nullptr && !text.empty() && prev_end_ == begin + text.size() &&
      type_cache_.size() < kMaxCachedTypes) {
    type_cache_.emplace(text, type);
  }
  return type;
}

const Type* Parser::ParseTensorShapeAndDType() {
  TokenPos bracket = Next();  // '['
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLParen, "'(' to start the tensor shape")) return nullptr;
  dims_.clear();
  while (!At(TokenKind::kRParen)) {
    if (!ParseDim(dims_)) return nullptr;
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRParen, "')' after the tensor shape", &open)) return nullptr;
  if (!Expect(TokenKind::kComma, "',' and a dtype after the tensor shape")) return nullptr;
  if (!At(TokenKind::kIdent)) {
    ErrorExpected("a dtype such as 'float32'");
    return nullptr;
  }
  const Token& dtype_token = Next();
  std::optional<DataType> dtype = DataType::Parse(lex_.TextOf(dtype_token));
  if (!dtype || dtype->is_void()) {
    Error(SpanOf(dtype_token), fmt::format("unknown dtype '{}'", lex_.TextOf(dtype_token)));
    return nullptr;
  }
  if (!Expect(TokenKind::kRBracket, "']' after the tensor type", &bracket)) return nullptr;
  const TensorType* type = TensorTy(*dtype, dims_);
  // No tensor of this type could exist, and every size computed from it
  // would overflow.
  if (FindOversizedTensor(type) != nullptr) {
    Error(SpanFrom(open), OversizedMessage(*type));
    return nullptr;
  }
  return type;
}

bool Parser::ParseDim(std::vector<Dim>& dims) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kQuestion) {
    Next();
    dims.push_back(Dim::Any());
    return true;
  }
  if (t.kind == TokenKind::kInt) {
    Next();
    if (t.int_value < 0 || t.dtype.is_uint()) {
      Error(SpanOf(t), fmt::format("invalid dimension '{}'", lex_.TextOf(t)));
      return false;
    }
    dims.push_back(Dim{t.int_value, t.dtype.bits == 64});
    return true;
  }
  if (t.kind == TokenKind::kMeta) {
    Error(SpanOf(t), "symbolic dimensions (meta[tir.Var]) are not supported");
    return false;
  }
  ErrorExpected("a dimension (an integer or '?')");
  return false;
}

const TypeVar* Parser::FindTypeVar(std::string_view name) const {
  for (auto it = type_vars_.rbegin(); it != type_vars_.rend(); ++it) {
    if ((*it)->name() == name) return *it;
  }
  return nullptr;
}

}  // namespace carve::parser_internal
