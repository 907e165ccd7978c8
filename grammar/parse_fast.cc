// The fast paths of the parser for the lines a printed graph is made of:
// graph bindings `%N = op(%a, %b, attrs);` and parameters `%name: Tensor[...]`,
// whose op names, attribute texts and types repeat. Such a line is read from
// the raw bytes, without the token ring and the layers of the grammar. Every
// piece must be one the general path would read without a diagnostic (op
// names, attribute texts and types are in the recent-texts memos, each
// variable is bound, only spaces between the pieces), and the result is the
// same: the same nodes, attrs, spans and bindings. Anything else (a comment,
// a literal, a nested call, an infix operator, a projection, an unbound name)
// stops the fast path before it consumes anything of that line, and the
// general path reads it.
#include "grammar/lexer_chars.h"
#include "grammar/parser_impl.h"

namespace carve::parser_internal {
namespace {

const char* SkipSpaces(const char* p, const char* end) {
  while (p < end && IsSpace(*p)) ++p;
  return p;
}

}  // namespace

const Expr* Parser::FastVariableUse(const char** at) {
  const char* const end = lex_.text().data() + lex_.text().size();
  const char* q = *at + 1;  // after '%'
  const Expr* e = nullptr;
  if (q < end && IsDigit(*q)) {
    // A longer number or a name starting with a digit is the lexer's to judge.
    uint64_t n;
    if ((q = ScanGraphNumber(q, end, &n)) == nullptr) return nullptr;
    e = LookupGraph(static_cast<int64_t>(n));
  } else if (const char* name_end = ScanSigilName(q, end)) {
    e = LookupLocal(std::string_view(q, size_t(name_end - q)));
    q = name_end;
  }
  if (e != nullptr) *at = q;
  return e;
}

bool Parser::ParseGraphBindingFast() {
  // With a diagnostic already made, the general path keeps the order of
  // what follows (and the stop after too many).
  if (diags_.size() != 0 || recent_ops_.empty()) return false;
  const Token& number = Peek(0);  // %N, then '=' (ParseStatement checked)
  FastBindingHead head{number.int_value, SpanOf(number), Peek(1).end};
  // The bindings that follow are read on while they have the same shape:
  // their `%N =` need not go through the token ring either.
  uint32_t done = 0;
  while (const uint32_t statement_end = ReadFastBinding(head)) {
    done = statement_end;
    if (diags_.size() != 0 || !NextFastBindingHead(statement_end, &head)) break;
  }
  if (done == 0) return false;
  prev_end_ = done;
  return true;
}

bool Parser::NextFastBindingHead(uint32_t from, FastBindingHead* head) const {
  const std::string_view all = lex_.text();
  const char* const text = all.data();
  const char* const end = text + all.size();
  const char* p = SkipSpaces(text + from, end);
  if (end - p < 4 || p[0] != '%' || !IsDigit(p[1])) return false;
  uint64_t n;
  const char* q = ScanGraphNumber(p + 1, end, &n);
  if (q == nullptr || q == end) return false;
  const char* equal = SkipSpaces(q, end);
  // '=' alone: not `==` or `=>`.
  if (end - equal < 2 || equal[0] != '=' || equal[1] == '=' || equal[1] == '>') return false;
  *head = FastBindingHead{static_cast<int64_t>(n),
                          Span{lex_.file_id(), uint32_t(p - text), uint32_t(q - text)},
                          uint32_t(equal + 1 - text)};
  return true;
}

uint32_t Parser::ReadFastBinding(const FastBindingHead& head) {
  const std::string_view all = lex_.text();
  const char* const text = all.data();
  const char* const end = text + all.size();
  const char* p = SkipSpaces(text + head.value_begin, end);
  const uint32_t callee_begin = static_cast<uint32_t>(p - text);
  uint32_t name_end = 0;
  const OpExpr* op = MatchRecentOp(callee_begin, &name_end);
  if (op == nullptr) return 0;
  p = SkipSpaces(text + name_end, end);
  if (p == end || *p != '(') return 0;
  p = SkipSpaces(p + 1, end);
  const size_t base = items_.size();
  auto fail = [&] {
    items_.resize(base);
    return uint32_t{0};
  };
  const Attrs* attrs = nullptr;
  while (p < end && *p != ')') {
    if (*p == '%') {
      const Expr* arg = FastVariableUse(&p);
      if (arg == nullptr) return fail();
      items_.push_back(arg);
    } else if (IsIdentStart(*p)) {
      // The attributes, up to the ')': a text converted before.
      uint32_t attrs_end = 0;
      attrs = MatchRecentAttrs(static_cast<uint32_t>(p - text), op, &attrs_end);
      if (attrs == nullptr) return fail();
      p = SkipSpaces(text + attrs_end, end);  // at the ')'
      break;
    } else {
      return fail();
    }
    p = SkipSpaces(p, end);
    if (p == end || *p == ')') break;
    if (*p != ',') return fail();
    p = SkipSpaces(p + 1, end);
    if (p == end || *p == ')') return fail();  // a trailing comma
  }
  if (p == end) return fail();
  const uint32_t call_end = static_cast<uint32_t>(p + 1 - text);
  p = SkipSpaces(p + 1, end);
  if (p == end || *p != ';') return fail();
  const uint32_t statement_end = static_cast<uint32_t>(p + 1 - text);
  if (!lex_.SkipTo(statement_end)) return fail();
  if (attrs == nullptr) {
    call_attrs_.clear();
    attrs = CallAttrs(op, call_attrs_);
  }
  const Call* call =
      b_.MakeCall(op, std::span<const Expr* const>(items_.data() + base, items_.size() - base),
                  attrs, Span{lex_.file_id(), callee_begin, call_end});
  items_.resize(base);
  BindGraph(head.number, call, head.number_span);
  return statement_end;
}

bool Parser::ParseParamFast(Signature& sig, const TokenPos& open, uint32_t& prefetch_cursor) {
  // `%name: Tensor[...]` with a tensor type met recently, and the ones of
  // that shape that follow it.
  if (diags_.size() != 0 || recent_types_.empty()) return false;
  const std::string_view all = lex_.text();
  const char* const text = all.data();
  const char* const end = text + all.size();
  const Token& t = Peek(0);  // kLocal
  const char* name = text + t.begin + 1;
  const char* name_end = text + t.end;
  bool any = false;
  for (;;) {
    const char* p = SkipSpaces(name_end, end);
    if (p == end || *p != ':') break;
    p = SkipSpaces(p + 1, end);
    uint32_t type_end = 0;
    const Type* type = MatchRecentType(static_cast<uint32_t>(p - text), &type_end);
    // The type is a whole `Tensor[...]`: the byte after its ']' starts a new
    // token whatever it is.
    if (type == nullptr || !lex_.SkipTo(type_end)) break;
    any = true;
    prev_end_ = type_end;
    AddParam(sig, open, std::string_view(name, size_t(name_end - name)),
             Span{lex_.file_id(), uint32_t(name - 1 - text), uint32_t(name_end - text)}, type,
             prefetch_cursor);
    if (diags_.size() != 0) break;
    // The next parameter: `, %name`.
    p = SkipSpaces(text + type_end, end);
    if (p == end || *p != ',') break;
    p = SkipSpaces(p + 1, end);
    if (end - p < 2 || *p != '%') break;
    name = p + 1;
    if ((name_end = ScanSigilName(name, end)) == nullptr) break;
  }
  return any;
}

}  // namespace carve::parser_internal
