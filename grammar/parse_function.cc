// Function signatures, shared by `def @f` and `fn` literals:
//   funcsig := ('[' IDENT,* ']')? '(' (param,*)? (','? attr,*)? ')' ('->' type)?
//   param   := %x ('{' attr,* '}')? (':' type)?
// A parameter's attributes are TVM's "fake attributes": only
// `{virtual_device=meta[VirtualDevice][i]}` means something. A function's
// `virtual_device=...` attribute becomes its virtual device, not an entry
// of its attributes (as TVM's parser does).
// Function attributes follow the parameters and keep their text order.
#include <algorithm>

#include "fmt/format.h"
#include "grammar/lexer_chars.h"
#include "grammar/parser_impl.h"

namespace carve::parser_internal {

bool Parser::ParseTypeParams(Signature& sig) {
  TokenPos open = Next();  // '['
  while (At(TokenKind::kIdent)) {
    const TypeVar* tv = NewTypeVar(lex_.TextOf(Next()));
    sig.type_params.push_back(tv);
    type_vars_.push_back(tv);
    if (!Accept(TokenKind::kComma)) break;
  }
  return Expect(TokenKind::kRBracket, "']' after the type parameters", &open);
}

size_t Parser::ParamCountBound() const {
  std::string_view rest = lex_.text().substr(prev_end_);
  rest = rest.substr(0, rest.find('{'));
  return static_cast<size_t>(std::count(rest.begin(), rest.end(), '%'));
}

void Parser::PrefetchParamSlots(uint32_t& cursor) {
  // Binding a parameter takes less time than loading its slot, so the slots
  // of the names a few parameters ahead are requested from the raw text
  // (the lexer must not run ahead: the type memo skips raw text too). A
  // wrong guess costs only a useless prefetch.
  constexpr int kAhead = 4;
  constexpr size_t kWindow = 4096;
  const std::string_view text = lex_.text();
  int names = cursor <= prev_end_ ? kAhead : 1;
  size_t at = std::max(cursor, prev_end_);
  while (names-- > 0 && at < text.size()) {
    const size_t sigil = text.substr(at, kWindow).find('%');
    if (sigil == std::string_view::npos) break;
    const size_t begin = at + sigil + 1;
    size_t end = begin;
    while (end < text.size() && IsAlnum(text[end])) ++end;
    locals_.Prefetch(locals_.Key(text.substr(begin, end - begin)));
    at = end;
  }
  cursor = static_cast<uint32_t>(at);
}

bool Parser::ParseParams(Signature& sig, const TokenPos& open) {
  uint32_t prefetch_cursor = 0;
  while (!At(TokenKind::kRParen)) {
    if (AtAttribute()) {
      if ((sig.cached_attrs = SkipCachedFunctionAttrs()) != nullptr) break;
      const size_t errors = diags_.size();
      if (!ParseAttributeList(sig.attrs)) return false;
      sig.attrs_clean = diags_.size() == errors;
      break;
    }
    if (!At(TokenKind::kLocal)) {
      ErrorExpected("a parameter such as '%x', an attribute or ')'", &open);
      return false;
    }
    if (ParseParamFast(sig, open, prefetch_cursor)) {
      if (!Accept(TokenKind::kComma)) break;
      continue;
    }
    const Token& name = Next();
    const std::string_view param_name = lex_.Name(name);
    const Span name_span = SpanOf(name);
    const VirtualDevice* device = nullptr;
    if (At(TokenKind::kLBrace) && !ParseParamAttrs(&device)) return false;
    const Type* type = nullptr;
    if (Accept(TokenKind::kColon) && (type = ParseType()) == nullptr) return false;
    AddParam(sig, open, param_name, name_span, type, prefetch_cursor, device);
    if (!Accept(TokenKind::kComma)) break;
  }
  return Expect(TokenKind::kRParen, "')' after the parameters", &open);
}

void Parser::AddParam(Signature& sig, const TokenPos& open, std::string_view name, Span name_span,
                      const Type* type, uint32_t& prefetch_cursor,
                      const VirtualDevice* device) {
  const uint64_t key = locals_.Key(name);
  PrefetchParamSlots(prefetch_cursor);
  BindParam(sig, open, b_.MakeVarWithStableName(name, type, name_span, device), key);
}

bool Parser::ParseParamAttrs(const VirtualDevice** device) {
  TokenPos open = Next();  // '{'
  std::vector<ParsedAttr> attrs;
  if (!At(TokenKind::kRBrace) && !ParseAttributeList(attrs)) return false;
  if (!Expect(TokenKind::kRBrace, "'}' after the parameter's attributes", &open)) return false;
  // TVM takes the virtual device when it is the only attribute and drops
  // anything else written there.
  if (attrs.size() != 1 || attrs[0].key != "virtual_device") return true;
  *device = attrs[0].value.as_virtual_device();
  if (*device == nullptr) {
    Error(attrs[0].value_span,
          "a parameter's virtual_device must be a meta[VirtualDevice][i] reference");
    return false;
  }
  if ((*device)->IsFullyUnconstrained()) *device = nullptr;  // nullptr means unconstrained
  return true;
}

void Parser::BindParam(Signature& sig, const TokenPos& open, const Var* var, uint64_t key) {
  // Parameters are bound in the signature's own scope. A binding they
  // shadow is a duplicate when it was made in that scope too, that is when
  // its name comes after the '(': what outer scopes bind is written before.
  const Var* first = BindLocal(var, key);
  sig.shadows = sig.shadows || first != nullptr;
  if (first != nullptr && first->span().begin > open.begin) {
    Error(var->span(), fmt::format("duplicate parameter '%{}'", var->name()),
          {Note{first->span(), "first declared here"}});
  }
  sig.params.push_back(var);
}

bool Parser::ParseSignature(Signature& sig) {
  if (At(TokenKind::kLBracket) && !ParseTypeParams(sig)) return false;
  if (!At(TokenKind::kLParen)) {
    ErrorExpected("'(' to start the parameter list");
    return false;
  }
  TokenPos open = Next();
  if (!ParseParams(sig, open)) return false;
  // The parameter list goes to the arena now, before the body: a
  // definition may have 50k parameters, and the vector would otherwise
  // live (and be copied) alongside the whole body's IR.
  sig.param_list = b_.arena()->CopyArray(std::span<const Var* const>(sig.params));
  std::vector<const Var*>().swap(sig.params);
  // TVM accepts `- >` with a space too.
  bool arrow = Accept(TokenKind::kArrow);
  if (!arrow && At(TokenKind::kMinus) && Peek(1).kind == TokenKind::kGreater) {
    Next();
    Next();
    arrow = true;
  }
  if (arrow && (sig.ret_type = ParseType()) == nullptr) return false;
  return true;
}

const Function* Parser::FinishFunction(Signature& sig, const Expr* body, Span span) {
  // Not IRBuilder::MakeFunction, which would copy the parameter list again.
  Arena* arena = b_.arena();
  const Attrs* attrs = FunctionAttrs(sig);
  // TVM's parser promotes a `virtual_device` attribute to the function's
  // field (FunctionAttrs checked that it is a VirtualDevice).
  const VirtualDevice* device = nullptr;
  if (const AttrValue* value = attrs->Find("virtual_device")) {
    device = value->as_virtual_device();
    if (device != nullptr && device->IsFullyUnconstrained()) device = nullptr;
    std::vector<AttrEntry> rest;
    for (const AttrEntry& e : attrs->entries()) {
      if (e.key != "virtual_device") rest.push_back(e);
    }
    attrs = InternAttrs(nullptr, rest);
  }
  return arena->New<Function>(sig.param_list, body, sig.ret_type, attrs,
                              arena->CopyArray(std::span<const TypeVar* const>(sig.type_params)),
                              span, device);
}

// Bound on the memo of function attribute texts.
constexpr size_t kMaxCachedFunctionAttrs = 4096;

const Attrs* Parser::FunctionAttrs(const Signature& sig) {
  if (sig.cached_attrs != nullptr) return sig.cached_attrs;
  const std::vector<ParsedAttr>& attrs = sig.attrs;
  if (attrs.empty()) return EmptyAttrs();
  const size_t errors = diags_.size();
  for (const ParsedAttr& attr : attrs) {
    if (attr.key == "virtual_device" && attr.value.as_virtual_device() == nullptr) {
      Error(attr.value_span,
            "a function's virtual_device must be a meta[VirtualDevice][i] reference");
    }
  }
  const Attrs* result = DictAttrs(attrs, nullptr);
  if (sig.attrs_clean && diags_.size() == errors &&
      fn_attrs_cache_.size() < kMaxCachedFunctionAttrs) {
    const uint32_t begin = attrs.front().key_span.begin;
    fn_attrs_cache_.emplace(
        lex_.text().substr(begin, attrs.back().value_span.end - begin), result);
  }
  return result;
}

const Attrs* Parser::SkipCachedFunctionAttrs() {
  if (fn_attrs_cache_.empty()) return nullptr;
  // As SkipCachedAttrs: the text up to the signature's ')', found raw.
  const uint32_t begin = Peek(0).begin;
  const uint32_t close = lex_.ScanGroup(begin, ')');
  if (close == 0) return nullptr;
  uint32_t end = close;
  const std::string_view all = lex_.text();
  while (end > begin && IsSpace(all[end - 1])) --end;
  auto it = fn_attrs_cache_.find(all.substr(begin, end - begin));
  if (it == fn_attrs_cache_.end() || !lex_.SkipTo(end)) return nullptr;
  return it->second;
}

}  // namespace carve::parser_internal
