// Calls and attribute values:
//   args  := (expr,*)? (','? attr,*)? | expr,* ',' meta[<AttrsType>][i]
//   attr  := name ('.' name)* '=' aval        -- commas between attrs optional
//   aval  := INT | FLOAT | BOOL | STRING | '[' aval,* ']' | '(' aval ')' | None | nullptr
// Attribute values are first read generically (AttrValue); parse_attrs.cc
// converts them against the callee's schema.
#include <algorithm>

#include "fmt/format.h"
#include "grammar/lexer_chars.h"
#include "grammar/parser_impl.h"

namespace carve::parser_internal {

// Bound on the memo of list values (see ParseAttrValue).
constexpr size_t kMaxCachedLists = 4096;

const Expr* Parser::ParseCallRest(const Expr* callee, uint32_t begin) {
  TokenPos open = Next();  // '('
  const size_t base = items_.size();
  auto fail = [&]() -> const Expr* {
    items_.resize(base);
    return nullptr;
  };
  bool has_attrs = false;
  const Attrs* cached_attrs = nullptr;
  std::optional<Token> meta_attrs;
  while (!At(TokenKind::kRParen)) {
    if (AtAttribute()) {
      if ((cached_attrs = SkipCachedAttrs(callee)) != nullptr) break;
      call_attrs_.clear();
      const size_t errors = diags_.size();
      if (!ParseAttributeList(call_attrs_)) return fail();
      // OpAttrs memoises only texts read without any diagnostic (a lexical
      // error reads as None), since SkipCachedAttrs skips their tokens.
      attrs_clean_ = diags_.size() == errors;
      has_attrs = true;
      break;
    }
    if (At(TokenKind::kMeta) && Peek(1).kind == TokenKind::kRParen &&
        lex_.MetaKey(Peek()) != "relay.Constant") {
      meta_attrs = Next();  // a whole attrs object from the metadata section
      break;
    }
    // The common argument is a lone name or literal: skip the layers of the
    // expression grammar for it.
    TokenKind after = Peek(1).kind;
    const Expr* arg = after == TokenKind::kComma || after == TokenKind::kRParen
                          ? ParseAtomic()
                          : ParseExpr(ExprContext::kArgument);
    if (arg == nullptr) return fail();
    items_.push_back(arg);
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRParen, "')' after call arguments", &open)) return fail();
  const Attrs* attrs = cached_attrs;
  if (attrs == nullptr && meta_attrs) {
    attrs = MetaCallAttrs(callee, *meta_attrs);
  } else if (attrs == nullptr) {
    if (!has_attrs) call_attrs_.clear();
    attrs = CallAttrs(callee, call_attrs_);
    attrs_clean_ = true;
  }
  const Call* call =
      b_.MakeCall(callee, std::span<const Expr* const>(items_.data() + base, items_.size() - base),
                  attrs, Span{lex_.file_id(), begin, prev_end_});
  items_.resize(base);
  return call;
}

const Attrs* Parser::MatchRecentAttrs(uint32_t begin, const OpExpr* op, uint32_t* end) const {
  if (no_recent_memos_for_testing) return nullptr;
  const std::string_view all = lex_.text();
  const auto* hit = recent_attrs_.Match(all.data() + begin, AttrsKeyBytes(begin),
                                        all.data() + all.size(), op->info());
  if (hit == nullptr) return nullptr;
  // A remembered text holds no comment and ends with a non-space byte, so
  // when only spaces and the ')' follow the same bytes, SkipCachedAttrs'
  // scan would find the same text.
  const uint32_t text_end = begin + hit->size;
  uint32_t close = text_end;
  while (close < all.size() && IsSpace(all[close])) ++close;
  if (close == all.size() || all[close] != ')') return nullptr;
  *end = text_end;
  return hit->value;
}

const Attrs* Parser::SkipCachedAttrs(const Expr* callee) {
  const OpExpr* op = DynCast<OpExpr>(callee);
  if (op == nullptr || attrs_cache_.empty()) return nullptr;
  // Find the call's ')' in the raw text (not through the lexer: the tokens
  // of a repeated attribute text are most of a large graph's tokens), then
  // look the attribute text up. A text in the memo was parsed before without
  // any diagnostic, so the same bytes need not be lexed again.
  const uint32_t begin = Peek(0).begin;
  const std::string_view all = lex_.text();
  // A text remembered by its bytes is tried first.
  uint32_t recent_end = 0;
  if (const Attrs* attrs = MatchRecentAttrs(begin, op, &recent_end);
      attrs != nullptr && lex_.SkipTo(recent_end)) {
    return attrs;
  }
  if (const uint32_t close = lex_.ScanGroup(begin, ')'); close != 0) {
    uint32_t end = close;
    while (end > begin && IsSpace(all[end - 1])) --end;
    const std::string_view text = all.substr(begin, end - begin);
    auto it = attrs_cache_.find(std::make_pair(op->info(), text));
    if (it != attrs_cache_.end() && lex_.SkipTo(end)) {
      recent_attrs_.Remember(text, AttrsKeyBytes(begin), all.data() + all.size(), op->info(),
                             it->second);
      return it->second;
    }
  }
  // Not memoised: lex the lookahead window up to the call's ')' as the
  // parser always has, so that lexical errors in it are reported in the
  // same order.
  int depth = 0;
  for (uint32_t k = 0; k <= Lexer::kMaxPeek; ++k) {
    TokenKind kind = Peek(k).kind;
    if (kind == TokenKind::kLBracket || kind == TokenKind::kLParen) {
      ++depth;
    } else if (kind == TokenKind::kRBracket) {
      --depth;
    } else if (kind == TokenKind::kRParen) {
      if (depth-- == 0) break;
    } else if (kind == TokenKind::kEof || kind == TokenKind::kError) {
      break;
    }
  }
  return nullptr;
}

size_t Parser::AttrsKeyBytes(uint32_t begin) const {
  // Short attribute texts (`units=None`) are placed by their own bytes: those
  // before the first ')', which ends the call when nothing in the text does.
  const std::string_view all = lex_.text();
  const size_t stop = std::min(all.size(), begin + kRecentKey);
  size_t end = begin;
  while (end < stop && all[end] != ')') ++end;
  return end - begin;
}

bool Parser::AtAttribute() {
  if (Peek().kind != TokenKind::kIdent) return false;
  uint32_t i = 1;
  while (i + 2 <= Lexer::kMaxPeek && Peek(i).kind == TokenKind::kDot &&
         Peek(i + 1).kind == TokenKind::kIdent) {
    i += 2;
  }
  return Peek(i).kind == TokenKind::kEqual;
}

bool Parser::ParseAttributeList(std::vector<ParsedAttr>& out) {
  for (;;) {
    if (!AtAttribute()) {
      ErrorExpected("an attribute such as 'key=value' (arguments come before attributes)");
      return false;
    }
    std::optional<ParsedAttr> attr = ParseAttribute();
    if (!attr) return false;
    out.push_back(*attr);
    if (Accept(TokenKind::kComma)) {
      if (At(TokenKind::kRParen)) return true;
      continue;
    }
    if (!AtAttribute()) return true;  // TVM: commas between attributes are optional
  }
}

std::optional<ParsedAttr> Parser::ParseAttribute() {
  TokenPos first = Next();
  uint32_t end = first.end;
  while (At(TokenKind::kDot)) {
    Next();
    end = Next().end;
  }
  ParsedAttr attr;
  attr.key = lex_.text().substr(first.begin, end - first.begin);
  attr.key_span = Span{lex_.file_id(), first.begin, end};
  Next();  // '='
  const uint32_t value_begin = Peek().begin;
  std::optional<AttrValue> value = ParseAttrValue();
  if (!value) return std::nullopt;
  attr.value = *value;
  attr.value_span = Span{lex_.file_id(), value_begin, prev_end_};
  return attr;
}

std::optional<AttrValue> Parser::ParseAttrValue() {
  NestingGuard guard(*this, "attribute value");
  if (!guard.ok()) return std::nullopt;
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kInt: {
      AttrValue v = AttrValue::Int(t.int_value, t.dtype.bits);
      Next();
      return v;
    }
    case TokenKind::kFloat: {
      AttrValue v = AttrValue::Float(t.float_value);
      Next();
      return v;
    }
    case TokenKind::kTrue:
    case TokenKind::kFalse: {
      AttrValue v = AttrValue::Bool(t.kind == TokenKind::kTrue);
      Next();
      return v;
    }
    case TokenKind::kString: {
      AttrValue v = AttrValue::Str(lex_.StringValue(t, scratch_));
      Next();
      return v;
    }
    case TokenKind::kLParen: {
      TokenPos open = Next();
      std::optional<AttrValue> inner = ParseAttrValue();
      if (!inner || !Expect(TokenKind::kRParen, "')' after the attribute value", &open)) {
        return std::nullopt;
      }
      return inner;
    }
    case TokenKind::kLBracket:
      return ParseAttrList();
    case TokenKind::kIdent:
      if (lex_.TextOf(t) == "None" || lex_.TextOf(t) == "nullptr") {
        Next();
        return AttrValue();
      }
      break;
    case TokenKind::kMeta: {
      // TVM's ops that take a VirtualDevice (on_device, device_copy,
      // memory.alloc_storage) print it through the metadata section.
      if (lex_.MetaKey(t) != "VirtualDevice") {
        Error(SpanOf(t), "meta references are not supported as attribute values (except "
                         "meta[VirtualDevice][i])");
        return std::nullopt;
      }
      const VirtualDevice* device = MetaVirtualDevice(t);
      Next();
      if (device == nullptr) return std::nullopt;
      return AttrValue::Device(device);
    }
    case TokenKind::kError:
      Next();  // reported by the lexer; keep the attribute, as null
      return AttrValue();
    default:
      break;
  }
  ErrorExpected("an attribute value (a number, bool, string, list or None)");
  return std::nullopt;
}

std::optional<AttrValue> Parser::ParseAttrList() {
  TokenPos open = Next();  // '['
  const size_t base = list_items_.size();
  while (!At(TokenKind::kRBracket)) {
    std::optional<AttrValue> item = ParseAttrValue();
    if (!item) {
      list_items_.resize(base);
      return std::nullopt;
    }
    list_items_.push_back(*item);
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRBracket, "']' after the list elements", &open)) {
    list_items_.resize(base);
    return std::nullopt;
  }
  // AttrValue arrays are never freed, so a 100k-op graph repeating
  // `padding=[1, 1, 1, 1]` must not allocate one per call: equal texts give
  // equal values, memoised by their text.
  std::string_view text = lex_.text().substr(open.begin, prev_end_ - open.begin);
  auto it = list_cache_.find(text);
  AttrValue value;
  if (it != list_cache_.end()) {
    value = it->second;
  } else {
    value = AttrValue::Array(
        std::span<const AttrValue>(list_items_.data() + base, list_items_.size() - base));
    if (list_cache_.size() < kMaxCachedLists) list_cache_.emplace(text, value);
  }
  list_items_.resize(base);
  return value;
}

}  // namespace carve::parser_internal
