// The pattern DSL parser's internal state, shared by its files:
//   pattern_parse_file.cc     public API, items (pattern / rule / backend), recovery
//   pattern_parse_expr.cc     patterns: alternation, postfix operators, primaries
//   pattern_parse_values.cc   predicates, type constraints, attribute values,
//                             literals, rewrite templates
// Not a public header.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "grammar/lexer.h"
#include "patterns/library.h"
#include "patterns/pattern.h"
#include "patterns/predicate.h"
#include "patterns/template.h"
#include "support/diagnostics.h"

namespace carve::pattern_dsl {

inline constexpr size_t kMaxErrors = 20;
inline constexpr int kMaxNesting = 500;

struct TokenPos {
  TokenPos(const Token& t) : kind(t.kind), begin(t.begin), end(t.end) {}  // NOLINT: implicit
  TokenKind kind;
  uint32_t begin;
  uint32_t end;
};

// One `key=value` as written.
struct ParsedAttr {
  std::string key;
  AttrValue value;
  Span span;
};

// The captures of the definition being parsed.
// The op of the call `p` matches, seen through captures and constraint
// wrappers (`as ?c`, `where`, attrs, types), or nullptr.
const OpInfo* CalledOpOf(const Pattern& p);

struct Scope {
  std::string name;                                        // the definition's name
  absl::flat_hash_map<std::string, Pattern> own;           // bound here
  absl::flat_hash_map<std::string, std::string> imported;  // capture -> pattern that binds it
  std::shared_ptr<const RecursivePattern> self;            // created on first self-reference
  // For a rule's replacement: the captures its pattern binds on every match
  // (patterns/captures.h); unset while the pattern is being parsed.
  std::optional<absl::flat_hash_set<std::string>> always_bound;
};

class DslParser {
 public:
  DslParser(std::string_view text, uint32_t file_id, DiagnosticEngine& diags,
            PatternLibrary& library, const PatternLibrary* imports);

  // ---- Items (pattern_parse_file.cc) ----
  void ParseFile();
  // One definition up to the end of the text (ParsePattern).
  Pattern ParseStandalone();

 private:
  void ParseItem();
  void ParsePatternItem();
  void ParseRuleItem();
  void ParseBackendItem();
  bool ParseBackendMember(BackendSpec& backend);
  bool ParseBackendOps(BackendSpec& backend);
  bool ParseBackendOp(BackendSpec& backend);
  bool ParseBackendComposite(BackendSpec& backend);
  void AddBackendOp(BackendSpec& backend, const OpInfo* op, std::shared_ptr<const Predicate> pred,
                    Span span, Pattern pattern);
  // Parses `= def` for a named definition (scope set up and closed here).
  Pattern ParseNamedDefinition(const std::string& name, Span name_span);
  std::optional<std::string> ParseName(std::string_view what, Span* span = nullptr);
  const OpInfo* ParseOpName();
  bool CheckNewName(const std::string& name, Span span);
  // Skips past the next `;` at depth 0, or to a `}` / item keyword.
  void Synchronize();

  // ---- Patterns (pattern_parse_expr.cc) ----
  Pattern ParseDef();
  Pattern ParseAlt();
  Pattern ParsePostfix();
  Pattern ParsePrimary();
  Pattern ParseCallSuffix(const Pattern& callee, bool optional, const TokenPos& start);
  Pattern ParseParenthesized();
  Pattern ParseIf();
  Pattern ParseLet();
  Pattern ParseFunction();
  Pattern ParseDominates();
  Pattern ParseHasAttr();
  Pattern ParseNamedOrOp(const Token& first);
  Pattern CaptureUse(const std::string& name, Span span);
  Pattern CaptureAs(const Pattern& inner, const std::string& name, Span span);
  Pattern ReferencePattern(const NamedPattern& named, Span span);
  Pattern Literal(const Token& t);
  // Attributes for `callee` (validated against its op's schema, if any).
  Pattern WithCallAttrs(const Pattern& call, const std::vector<ParsedAttr>& attrs,
                        const OpInfo* op);
  bool AtAttr();

  // ---- Values (pattern_parse_values.cc) ----
  Pattern ParseConstraint(const Pattern& inner);
  Pattern ParseTensorConstraint(const Pattern& inner);
  const Type* ParseConcreteType();
  std::optional<DataType> ParseDType();
  std::shared_ptr<const Predicate> ParsePredicate();
  std::shared_ptr<const Predicate> ParseConjunction();
  std::shared_ptr<const Predicate> ParseNegation();
  std::shared_ptr<const Predicate> ParseComparison();
  std::optional<PredicateTerm> ParseTerm();
  std::optional<std::string> ParseCaptureRef();
  // Every capture `p` names is bound in scope (only `?` when `self_only`);
  // every `?c.key` on a call of a known op names one of its attributes
  // (`self_op` is the op of `?`, the matched node, when known); every
  // dtype literal compared with dtype(...) is a dtype.
  void CheckPredicateCaptures(const Predicate& p, Span span, bool self_only,
                              const OpInfo* self_op = nullptr);
  void CheckPredicateTerms(const Predicate& p, Span span, const OpInfo* self_op);
  std::optional<ParsedAttr> ParseAttr();
  std::optional<AttrValue> ParseAttrValue();
  std::shared_ptr<const Template> ParseTemplate();
  std::shared_ptr<const Template> ParseTemplatePrimary();
  std::shared_ptr<const Template> ParseTemplateCapture();
  std::shared_ptr<const Template> ParseTemplateTuple();
  std::shared_ptr<const Template> ParseTemplateCall();
  std::optional<AttrEntry> ParseTemplateAttr(const OpInfo* op);
  const Constant* MakeConstant(const Token& t);

  // ---- Tokens and diagnostics (pattern_parse_file.cc) ----
  const Token& Peek(uint32_t k = 0) { return stopped_ ? eof_ : lex_.Peek(k); }
  Token Next();
  bool At(TokenKind kind) { return Peek().kind == kind; }
  bool Accept(TokenKind kind);
  bool Expect(TokenKind kind, std::string_view what, const TokenPos* opener = nullptr);
  // True at an identifier spelled `word` (DSL keywords are identifiers).
  bool AtWord(std::string_view word, uint32_t k = 0);
  bool AcceptWord(std::string_view word);
  std::string_view Text(const Token& t) const { return lex_.TextOf(t); }
  Span SpanOf(const TokenPos& t) const { return Span{lex_.file_id(), t.begin, t.end}; }
  Span SpanFrom(const TokenPos& first) const;
  void Error(Span span, std::string message, std::vector<Note> notes = {});
  void ErrorExpected(std::string_view what, const TokenPos* opener = nullptr);

  class NestingGuard {
   public:
    explicit NestingGuard(DslParser& p);
    ~NestingGuard() { --parser_.depth_; }
    bool ok() const { return ok_; }

   private:
    DslParser& parser_;
    bool ok_;
  };

  Lexer lex_;
  DiagnosticEngine& diags_;
  PatternLibrary& library_;
  const PatternLibrary* imports_;
  Scope* scope_ = nullptr;
  std::string current_backend_;
  int depth_ = 0;
  bool stopped_ = false;
  uint32_t prev_end_ = 0;
  Token eof_;
};

}  // namespace carve::pattern_dsl
