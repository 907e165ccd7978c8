// The pattern DSL's entry points, items (pattern / rule / backend), token
// helpers and error recovery.
#include "fmt/format.h"
#include "grammar/pattern_parser.h"
#include "grammar/pattern_parser_impl.h"
#include "patterns/builders.h"
#include "patterns/captures.h"
#include "patterns/compile.h"
#include "support/source.h"
#include "support/status_macros.h"

namespace carve {
namespace pattern_dsl {
namespace {

// Words with a meaning in the DSL; they cannot name patterns.
constexpr std::string_view kReserved[] = {
    "pattern", "rule",      "backend",  "ops",   "op",    "composite", "where",
    "as",      "const",     "var",      "and",   "or",    "not",       "in",
    "is",      "dominates", "has_attr", "dtype", "shape", "rank",      "Tensor"};

bool IsItemKeyword(std::string_view word) {
  return word == "pattern" || word == "rule" || word == "backend";
}

}  // namespace

DslParser::DslParser(std::string_view text, uint32_t file_id, DiagnosticEngine& diags,
                     PatternLibrary& library, const PatternLibrary* imports)
    : lex_(text, file_id, &diags), diags_(diags), library_(library), imports_(imports) {
  eof_.kind = TokenKind::kEof;
  eof_.begin = eof_.end = static_cast<uint32_t>(text.size());
}

// ---- Tokens and diagnostics ----

Token DslParser::Next() {
  // Always the lexer's token, the one Peek() showed before a stop (see
  // Parser::Next): a stop shows from the next Peek() on. The lexer reports
  // bad characters itself, so a garbage or binary file reaches kMaxErrors
  // here, not in Error(): without this check every bad byte got its own
  // diagnostic, each rendering its (possibly megabyte-long) line.
  if (!stopped_ && diags_.size() >= kMaxErrors) {
    diags_.Error(lex_.SpanAt(lex_.Peek().begin), "too many errors; stopping here");
    stopped_ = true;
  }
  Token t = lex_.Next();
  prev_end_ = t.end;
  return t;
}

bool DslParser::Accept(TokenKind kind) {
  if (Peek().kind != kind) return false;
  Next();
  return true;
}

bool DslParser::Expect(TokenKind kind, std::string_view what, const TokenPos* opener) {
  if (Accept(kind)) return true;
  ErrorExpected(what, opener);
  return false;
}

bool DslParser::AtWord(std::string_view word, uint32_t k) {
  const Token& t = Peek(k);
  return t.kind == TokenKind::kIdent && Text(t) == word;
}

bool DslParser::AcceptWord(std::string_view word) {
  if (!AtWord(word)) return false;
  Next();
  return true;
}

Span DslParser::SpanFrom(const TokenPos& first) const {
  return Span{lex_.file_id(), first.begin, std::max(prev_end_, first.end)};
}

void DslParser::Error(Span span, std::string message, std::vector<Note> notes) {
  if (stopped_) return;
  diags_.Error(span, std::move(message), std::move(notes));
  if (diags_.size() >= kMaxErrors) {
    diags_.Error(span, "too many errors; stopping here");
    stopped_ = true;
  }
}

void DslParser::ErrorExpected(std::string_view what, const TokenPos* opener) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kError) return;  // the lexer reported it
  std::vector<Note> notes;
  if (opener != nullptr) {
    notes.push_back(
        {SpanOf(*opener), fmt::format("to close {} here", TokenKindName(opener->kind))});
  }
  std::string got = t.kind == TokenKind::kEof ? "end of file" : fmt::format("'{}'", Text(t));
  Error(SpanOf(t), fmt::format("expected {}, got {}", what, got), std::move(notes));
}

DslParser::NestingGuard::NestingGuard(DslParser& p) : parser_(p) {
  ok_ = ++p.depth_ <= kMaxNesting;
  if (!ok_ && p.depth_ == kMaxNesting + 1) {
    p.Error(p.SpanOf(p.Peek()),
            fmt::format("pattern nested too deeply (the limit is {} levels)", kMaxNesting));
  }
}

void DslParser::Synchronize() {
  int depth = 0;
  for (;;) {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kEof:
        return;
      case TokenKind::kLParen:
      case TokenKind::kLBracket:
      case TokenKind::kLBrace:
        ++depth;
        break;
      case TokenKind::kRParen:
      case TokenKind::kRBracket:
        if (depth > 0) --depth;
        break;
      case TokenKind::kRBrace:
        if (depth == 0) return;
        --depth;
        break;
      case TokenKind::kSemicolon:
        if (depth == 0) {
          Next();
          return;
        }
        break;
      case TokenKind::kIdent:
        if (depth == 0 && IsItemKeyword(Text(t)) && Peek(1).kind == TokenKind::kIdent) return;
        break;
      default:
        break;
    }
    Next();
  }
}

// ---- Names ----

std::optional<std::string> DslParser::ParseName(std::string_view what, Span* span) {
  if (!At(TokenKind::kIdent)) {
    ErrorExpected(what);
    return std::nullopt;
  }
  TokenPos first = Peek();
  std::string name(Text(Next()));
  while (At(TokenKind::kDot) && Peek(1).kind == TokenKind::kIdent) {
    Next();
    name += ".";
    name += Text(Next());
  }
  if (span != nullptr) *span = SpanFrom(first);
  return name;
}

const OpInfo* DslParser::ParseOpName() {
  Span span;
  std::optional<std::string> name = ParseName("an operator name", &span);
  if (!name) return nullptr;
  const OpInfo* op = FindOp(*name);
  if (op == nullptr) Error(span, UnknownOpMessage(*name));
  return op;
}

bool DslParser::CheckNewName(const std::string& name, Span span) {
  for (std::string_view r : kReserved) {
    if (name == r) {
      Error(span, fmt::format("'{}' is a reserved word of the pattern language", name));
      return false;
    }
  }
  if (FindOp(name) != nullptr) {
    Error(span, fmt::format("'{}' names an operator; choose another pattern name", name));
    return false;
  }
  if (const NamedPattern* prev = library_.FindPattern(name)) {
    Error(span, fmt::format("pattern '{}' is already defined", name),
          {{prev->span, "previous definition here"}});
    return false;
  }
  return true;
}

// ---- Items ----

void DslParser::ParseFile() {
  while (!At(TokenKind::kEof) && !stopped_) {
    size_t errors = diags_.size();
    ParseItem();
    if (diags_.size() > errors) Synchronize();
  }
}

void DslParser::ParseItem() {
  if (AtWord("pattern")) return ParsePatternItem();
  if (AtWord("rule")) return ParseRuleItem();
  if (AtWord("backend")) return ParseBackendItem();
  ErrorExpected("'pattern', 'rule' or 'backend'");
  Next();
}

Pattern DslParser::ParseNamedDefinition(const std::string& name, Span name_span) {
  Scope scope;
  scope.name = name;
  scope_ = &scope;
  Pattern p = ParseDef();
  if (p && scope.self) scope.self->SetTarget(p);
  scope_ = nullptr;
  return p;
}

void DslParser::ParsePatternItem() {
  Next();  // 'pattern'
  Span span;
  std::optional<std::string> name = ParseName("a pattern name", &span);
  if (!name || !CheckNewName(*name, span) || !Expect(TokenKind::kEqual, "'='")) return;
  Pattern p = ParseNamedDefinition(*name, span);
  if (!p || !Expect(TokenKind::kSemicolon, "';' after the pattern")) return;
  library_.AddPattern({*name, p, span});
}

void DslParser::ParseRuleItem() {
  Next();  // 'rule'
  Span span;
  std::optional<std::string> name = ParseName("a rule name", &span);
  if (!name || !Expect(TokenKind::kEqual, "'='")) return;
  if (const RuleSpec* prev = library_.FindRule(*name)) {
    Error(span, fmt::format("rule '{}' is already defined", *name),
          {{prev->span, "previous definition here"}});
    return;
  }
  Scope scope;
  scope.name = *name;
  scope_ = &scope;
  Pattern lhs = ParseDef();
  std::shared_ptr<const Template> rhs;
  if (lhs && Expect(TokenKind::kFatArrow, "'=>' and the replacement")) {
    if (lhs.status().ok()) {
      // A recursive rule's reference is set below; compile a pattern whose
      // target is already known.
      if (scope.self) scope.self->SetTarget(lhs);
      if (auto compiled = CompilePattern(lhs); compiled.ok()) {
        scope.always_bound = CapturesBoundOnEveryMatch(**compiled);
      }
    }
    rhs = ParseTemplate();
  }
  if (lhs && scope.self) scope.self->SetTarget(lhs);
  scope_ = nullptr;
  if (!lhs || !rhs || !Expect(TokenKind::kSemicolon, "';' after the rule")) return;
  library_.AddRule({*name, lhs, rhs, span});
}

void DslParser::ParseBackendItem() {
  Next();  // 'backend'
  BackendSpec backend;
  std::optional<std::string> name = ParseName("a backend name", &backend.span);
  if (!name) return;
  backend.name = *name;
  if (library_.FindBackend(backend.name) != nullptr) {
    Error(backend.span, fmt::format("backend '{}' is already defined", backend.name));
  }
  TokenPos open = Peek();
  if (!Expect(TokenKind::kLBrace, "'{' to start the backend")) return;
  current_backend_ = backend.name;
  while (!At(TokenKind::kRBrace) && !At(TokenKind::kEof) && !stopped_) {
    size_t errors = diags_.size();
    if (!ParseBackendMember(backend) || diags_.size() > errors) Synchronize();
  }
  current_backend_.clear();
  if (!Expect(TokenKind::kRBrace, "'}' to end the backend", &open)) return;
  library_.AddBackend(std::move(backend));
}

bool DslParser::ParseBackendMember(BackendSpec& backend) {
  if (AcceptWord("ops")) return ParseBackendOps(backend);
  if (AcceptWord("op")) return ParseBackendOp(backend);
  if (AcceptWord("composite")) return ParseBackendComposite(backend);
  ErrorExpected("'ops', 'op', 'composite' or '}'");
  return false;
}

// Adds single-op rule `op` to `backend`; an error if the op is listed
// already.
void DslParser::AddBackendOp(BackendSpec& backend, const OpInfo* op,
                             std::shared_ptr<const Predicate> pred, Span span, Pattern pattern) {
  if (backend.FindOp(op) != nullptr) {
    Error(span, fmt::format("{} is already listed in backend '{}'", op->name, backend.name));
    return;
  }
  backend.ops.push_back({op, std::move(pred), span, std::move(pattern)});
}

// `ops a, b, c;` (after `ops`).
bool DslParser::ParseBackendOps(BackendSpec& backend) {
  do {
    TokenPos at = Peek();
    const OpInfo* op = ParseOpName();
    if (op == nullptr) return false;
    AddBackendOp(backend, op, nullptr, SpanFrom(at), Pattern());
  } while (Accept(TokenKind::kComma));
  return Expect(TokenKind::kSemicolon, "';' after the op list");
}

// `op NAME[(args)] [where PREDICATE];` (after `op`).
bool DslParser::ParseBackendOp(BackendSpec& backend) {
  TokenPos at = Peek();
  const OpInfo* op = ParseOpName();
  if (op == nullptr) return false;
  // `op nn.conv2d(?x, const as ?w) where ...`: argument patterns whose
  // captures the where clause may test (TVM's checks read arguments).
  Scope scope;
  Pattern call;
  if (At(TokenKind::kLParen)) {
    scope_ = &scope;
    call = ParseCallSuffix(IsOp(op), /*optional=*/false, at);
    if (!call) {
      scope_ = nullptr;
      return false;
    }
  }
  Span span = SpanFrom(at);
  std::shared_ptr<const Predicate> pred;
  if (AcceptWord("where") || Accept(TokenKind::kIf)) {  // `if` reads well here too
    TokenPos where_at = Peek();
    if (call) scope_ = &scope;
    pred = ParsePredicate();
    if (pred != nullptr) {
      CheckPredicateCaptures(*pred, SpanFrom(where_at), /*self_only=*/!call, op);
    }
    scope_ = nullptr;
    if (pred == nullptr) return false;
  }
  scope_ = nullptr;
  if (call && pred != nullptr) call = call.Where(pred);
  AddBackendOp(backend, op, std::move(pred), span, std::move(call));
  return Expect(TokenKind::kSemicolon, "';' after the op");
}

// `composite NAME = PATTERN;` (after `composite`).
bool DslParser::ParseBackendComposite(BackendSpec& backend) {
  Span span;
  std::optional<std::string> name = ParseName("a composite name", &span);
  if (!name || !Expect(TokenKind::kEqual, "'='")) return false;
  std::string full = backend.name + "." + *name;
  for (const NamedPattern& c : backend.composites) {
    if (c.name == full) {
      Error(span, fmt::format("composite '{}' is already defined", full),
            {{c.span, "previous definition here"}});
      return false;
    }
  }
  Pattern p = ParseNamedDefinition(full, span);
  if (!p) return false;
  backend.composites.push_back({full, p, span});
  return Expect(TokenKind::kSemicolon, "';' after the composite");
}

Pattern DslParser::ParseStandalone() {
  Scope scope;
  scope_ = &scope;
  Pattern p = ParseDef();
  scope_ = nullptr;
  if (p && !At(TokenKind::kEof)) {
    ErrorExpected("the end of the pattern");
    return Pattern();
  }
  return p;
}

}  // namespace pattern_dsl

namespace {

absl::StatusOr<PatternLibrary> ParseText(std::string_view source_name, std::string text) {
  uint32_t file = SourceManager::Global().Add(std::string(source_name), std::move(text));
  std::string_view stored = SourceManager::Global().Get(file)->text();
  DiagnosticEngine diags;
  PatternLibrary library;
  pattern_dsl::DslParser parser(stored, file, diags, library, nullptr);
  parser.ParseFile();
  if (diags.has_errors()) return diags.ToStatus();
  return library;
}

}  // namespace

absl::StatusOr<PatternLibrary> ParsePatternFile(std::string_view source_name, std::string text) {
  return ParseText(source_name, std::move(text));
}

absl::StatusOr<PatternLibrary> LoadPatternFile(const std::string& path) {
  // Not an ifstream: it opens a directory and reads it as an empty library.
  CARVE_ASSIGN_OR_RETURN(std::string text, SourceText::ReadFile(path));
  return ParseText(path, std::move(text));
}

absl::StatusOr<Pattern> ParsePattern(std::string_view source_name, std::string text,
                                     const PatternLibrary* library) {
  uint32_t file = SourceManager::Global().Add(std::string(source_name), std::move(text));
  std::string_view stored = SourceManager::Global().Get(file)->text();
  DiagnosticEngine diags;
  PatternLibrary scratch;  // owns literal constants of this pattern
  pattern_dsl::DslParser parser(stored, file, diags, scratch, library);
  Pattern p = parser.ParseStandalone();
  if (diags.has_errors() || !p) return diags.ToStatus();
  return p;
}

}  // namespace carve
