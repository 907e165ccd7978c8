// The parser's internal state and sub-grammar entry points, shared by the
// parse_*.cc files (one per sub-grammar, as MLIR splits its parser):
//   parse_module.cc     public API, header, definitions, bare expressions
//   parse_expr.cc       statements (let, %N, `;`), blocks, infix, postfix
//   parse_atom.cc       atomic expressions, variables, tuples, if, fn literals
//   parse_function.cc   signatures: type params, params, function attrs
//   parse_call.cc       call arguments and attribute values
//   parse_attrs.cc      attribute conversion against op schemas
//   parse_type.cc       types
//   parse_literal.cc    scalar constants and meta references
//   parse_state.cc      token helpers, diagnostics, recovery, scopes
// Not a public header.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "grammar/lexer.h"
#include "grammar/metadata.h"
#include "grammar/parser.h"
#include "grammar/parser_locals.h"
#include "grammar/parser_recent.h"
#include "ir/adt.h"
#include "ir/module.h"
#include "support/diagnostics.h"

namespace carve::parser_internal {

// After this many diagnostics the parser stops (random bytes would otherwise
// produce thousands).
inline constexpr size_t kMaxErrors = 20;

// Test hook: when set, nothing is found in the recent-texts memos (recent
// ops, attribute texts and tensor types), so the raw-text fast paths built on
// them never start and the general path reads every line. A test parses one
// text both ways and compares the results.
inline bool no_recent_memos_for_testing = false;

// The `#[metadata]` section as the parser sees it: where the pre-scan found
// it, and its contents (or why they could not be read).
struct MetadataState {
  static constexpr uint32_t kNone = UINT32_MAX;
  // False until the text was searched for the section: a module without
  // meta references or section never needs the search (a scan of the whole
  // text), and the parse then does not depend on where the section is.
  bool searched = false;
  uint32_t offset = kNone;  // byte offset of `#[metadata]` the parse assumed
  bool ok = false;          // contents parsed
  std::string error;        // why not, when !ok
  Metadata contents;
};

// A token's kind and position: what a parser keeps of a token it has
// consumed (an opening bracket for notes, a keyword for a span's start).
// Cheap to copy, unlike a whole Token (see Lexer::Next).
struct TokenPos {
  TokenPos(const Token& t) : kind(t.kind), begin(t.begin), end(t.end) {}  // NOLINT: implicit
  TokenKind kind;
  uint32_t begin;
  uint32_t end;
};

// Hashes names with abseil's string hash (the std::hash that
// absl::Hash<std::string_view> falls back to in Debian's build is slower).
struct NameHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(s.data(), s.size()));
  }
};

// One `key=value` attribute as written.
struct ParsedAttr {
  std::string_view key;
  AttrValue value;
  Span key_span;
  Span value_span;
};

// A function signature as written: `[T, U](%x: T, key=value) -> R`.
struct Signature {
  std::vector<const TypeVar*> type_params;
  std::vector<const Var*> params;  // while parsing them
  std::span<const Var* const> param_list;  // then, in the arena
  std::vector<ParsedAttr> attrs;
  bool attrs_clean = true;               // `attrs` were read without a diagnostic
  const Attrs* cached_attrs = nullptr;   // the attributes, found by their text
  const Type* ret_type = nullptr;
  bool shadows = false;  // a parameter shadows a binding (or another parameter)
};

class Parser {
 public:
  // `metadata` is searched for when first needed, unless it was already.
  Parser(std::string_view text, uint32_t file_id, Module& module, DiagnosticEngine& diags,
         MetadataState& metadata);

  // `#[version]`, then definitions or one bare expression, then metadata.
  void ParseModuleText(bool require_version);
  // One expression (version optional) up to the end of the text; nullptr on
  // error.
  const Expr* ParseStandaloneExpr();
  // Byte offset of the `#[metadata]` token the lexer actually reached, or
  // MetadataState::kNone.
  uint32_t seen_metadata_offset() const { return seen_metadata_offset_; }
  // True when the parse stopped early (too many errors).
  bool stopped() const { return stopped_; }

  // ---- Tokens, diagnostics, recovery (parse_state.cc) ----
  // After kMaxErrors diagnostics the parser sees only EOF.
  const Token& Peek(uint32_t k = 0) { return stopped_ ? eof_ : lex_.Peek(k); }
  // Consumes the next token (valid until the next Next()). It is always the
  // lexer's token, the one Peek() showed, even when the parse stops between
  // the Peek() and the Next() (an error reported in between, or by the lexer
  // while filling the lookahead): callers read a token's kind-specific parts
  // (Name, VersionText, ...) after peeking its kind, and EOF's are not in the
  // text. A stop shows from the next Peek() on.
  const Token& Next() {
    if (!stopped_ && diags_.size() >= kMaxErrors) Stop();
    const Token& t = lex_.Next();
    prev_end_ = t.end;
    return t;
  }
  bool At(TokenKind kind) { return Peek().kind == kind; }
  // Consumes the next token when it is `kind`.
  bool Accept(TokenKind kind) {
    if (Peek().kind != kind) return false;
    Next();
    return true;
  }
  // Consumes `kind` or reports "expected {what}" (with "to close ... here"
  // when `opener` is given); false on error.
  bool Expect(TokenKind kind, std::string_view what, const TokenPos* opener = nullptr) {
    if (Accept(kind)) return true;
    ErrorExpected(what, opener);
    return false;
  }
  void Error(Span span, std::string message, std::vector<Note> notes = {});
  // "expected {what}" at the next token (silent after a lexical error).
  void ErrorExpected(std::string_view what, const TokenPos* opener = nullptr);
  // Reports "too many errors" and stops.
  void Stop();
  Span SpanOf(const Token& t) const { return lex_.SpanOf(t); }
  Span SpanOf(const TokenPos& t) const { return Span{lex_.file_id(), t.begin, t.end}; }
  // From the start of `first` to the end of the last consumed token.
  Span SpanFrom(const TokenPos& first) const;
  Note CloseNote(const TokenPos& opener) const;
  // Skips to a statement boundary: past `;`, or before `}` / `def` / EOF,
  // balancing brackets. True when it stopped after a `;`.
  bool SynchronizeStatement();
  // Skips to the next top-level `def` (or EOF).
  void SynchronizeDefinition();

  // ---- Nesting depth ----
  // Counts one level of recursion; not ok() (and reported once as "{what}
  // nested too deeply") beyond kMaxNestingDepth.
  class NestingGuard {
   public:
    NestingGuard(Parser& p, std::string_view what);
    ~NestingGuard();
    bool ok() const { return ok_; }

   private:
    Parser& parser_;
    bool ok_;
  };

  // ---- Module level (parse_module.cc) ----
  bool ParseVersion(bool required);
  void ParseDefinitions();
  void ParseDefinition();
  void ParseBareExpression();
  void ParseMetadataToken();
  void CheckUndefinedGlobals();
  void ResetDefinitionState();

  // ---- Algebraic data types (parse_adt.cc) ----
  // `type Name[T] { C(T), ... }` (or `extern type Name`), added to the module.
  void ParseTypeDefinition();
  bool ParseConstructors(const GlobalTypeVar* header, std::vector<const Constructor*>& ctors);
  bool ParseConstructorFields(std::vector<const Type*>& inputs);
  // `Name` or `Name[T, ...]` naming a data type (not a type variable).
  const Type* ParseAdtType(std::string_view name, Span name_span);
  // Reports data types used but never defined, or given the wrong number of
  // type arguments.
  void CheckUndefinedTypes();
  // At the name of `ctor`: the constructor, or the call of a nullary one.
  const Expr* ParseConstructorUse(const Constructor* ctor);
  const Expr* ParseMatch();
  const AdtPattern* ParsePattern();
  // '(' pattern,* ')' into `out`.
  bool ParsePatternList(std::vector<const AdtPattern*>& out);

  // ---- Statements and operators (parse_expr.cc) ----
  // Where an expression sits, which decides how `;` and errors are handled.
  enum class ExprContext {
    kBlock,     // a `{...}` body or the top level: recovers from errors
    kNested,    // inside parentheses or a condition: fails as a whole
    kArgument,  // a call argument: `;` ends it (so `f(a; b)` is an error)
  };
  // expr := item (';' item)*, as the context allows. Only kBlock performs
  // panic-mode recovery.
  const Expr* ParseExpr(ExprContext context = ExprContext::kNested);
  // One statement: a binding (pushed to pending_) or, when `*result` is set,
  // the sequence's final expression. False on error.
  bool ParseStatement(ExprContext context, const Expr** result);
  // '{' expr '}' with its own scope.
  const Expr* ParseBlock(std::string_view what);
  bool ParseLetBinding();
  bool ParseGraphBinding();
  // `%N = op(%a, %b, attrs);` read from the raw text when the op name and
  // attribute text are ones met recently (parse_fast.cc), and the bindings
  // of that shape that follow it; false, with nothing consumed, when the
  // first is not of that shape.
  bool ParseGraphBindingFast();
  // `%N =` of a binding: its number, the span of `%N`, and where the value
  // starts (after the '=').
  struct FastBindingHead {
    int64_t number;
    Span number_span;
    uint32_t value_begin;
  };
  // The head of a binding at byte `from` (after spaces), written as the
  // lexer reads two tokens `%N` and '='.
  bool NextFastBindingHead(uint32_t from, FastBindingHead* head) const;
  // Reads the rest of a binding of the fast shape, builds and binds its call
  // and returns the end of its ';'; 0 (nothing consumed) for another shape.
  uint32_t ReadFastBinding(const FastBindingHead& head);
  // A `%N` or `%name` use at `*p` that the fast path can take: bound, and
  // written as the lexer reads one token. Advances `*p` past it.
  const Expr* FastVariableUse(const char** p);
  bool ParseFreeVar();
  const Expr* ParseBinop();
  const Expr* ParsePostfix();

  // ---- Atoms (parse_atom.cc) ----
  const Expr* ParseAtomic();
  const Expr* ParseParenthesized();
  // `ref(e)`, `ref_read(e)`, `ref_write(e, e)` (grammar/parse_ref.cc).
  const Expr* ParseRef();
  const Expr* ParseIf();
  const Expr* ParseFunctionLiteral();
  const Expr* ParseLocalUse(const Token& t);
  const Expr* ParseGraphUse(const Token& t);
  const Expr* ParseGlobalUse(const Token& t);
  const Expr* ParseOpName();
  // The op whose name, met before, the text at `begin` spells again (then
  // consumed), else nullptr; MatchRecentOp only finds it and where its name
  // ends. OpKeyBytes: the bytes at `begin` that place such a name in
  // recent_ops_ (up to kRecentKey of its name characters and dots).
  const OpExpr* RecentOp(uint32_t begin);
  const OpExpr* MatchRecentOp(uint32_t begin, uint32_t* end) const;
  size_t OpKeyBytes(uint32_t begin) const;
  // A stand-in for an expression that failed semantically (undefined name,
  // unknown op), so that parsing continues and reports later errors too.
  const Expr* Placeholder(Span span);

  // ---- Signatures (parse_function.cc) ----
  bool ParseTypeParams(Signature& sig);
  bool ParseParams(Signature& sig, const TokenPos& open);
  // At a parameter `%name: T` whose tensor type T is a recent one: reads
  // it from the raw text (parse_fast.cc) and binds it, then every following
  // `, %name: T'` whose T' is recent too, stopping before the first ',' (or
  // other token) that does not start such a parameter. False when not even
  // the first parameter has that shape: nothing consumed.
  bool ParseParamFast(Signature& sig, const TokenPos& open, uint32_t& prefetch_cursor);
  // The steps of every parameter once its name and type are read (by
  // ParseParams or ParseParamFast; prev_end_ is the end of what was read):
  // prefetches the slots of the names ahead, makes the parameter and binds
  // it (BindParam).
  void AddParam(Signature& sig, const TokenPos& open, std::string_view name, Span name_span,
                const Type* type, uint32_t& prefetch_cursor,
                const VirtualDevice* device = nullptr);
  // A parameter's `{virtual_device=meta[VirtualDevice][i]}` (TVM's "fake
  // attributes"): sets `*device`; false on a reported error.
  bool ParseParamAttrs(const VirtualDevice** device);
  // Binds the parameter `var` (key: its locals key) of the signature opened
  // at `open`, reporting a duplicate.
  void BindParam(Signature& sig, const TokenPos& open, const Var* var, uint64_t key);
  bool ParseSignature(Signature& sig);
  // An upper bound on the parameters of the signature that follows: the `%`
  // signs before the next `{` (the body's). Reserving the locals table for
  // them at once saves its growth (a definition may have 200k parameters).
  size_t ParamCountBound() const;
  // Prefetches the locals slots of the parameter names ahead of the one just
  // read; `cursor` (0 at first) is where the scan of the text goes on.
  void PrefetchParamSlots(uint32_t& cursor);
  // Builds the function (the caller owns the parameter scope).
  const Function* FinishFunction(Signature& sig, const Expr* body, Span span);
  const Attrs* FunctionAttrs(const Signature& sig);
  // At function attributes whose text was converted before: skips them and
  // returns their attrs; else nullptr.
  const Attrs* SkipCachedFunctionAttrs();

  // ---- Calls and attribute values (parse_call.cc) ----
  // The call after its callee (which began at byte `begin`), from its '('.
  const Expr* ParseCallRest(const Expr* callee, uint32_t begin);
  // True at `name (. name)* =`.
  bool AtAttribute();
  // At an op call's attributes whose text was converted before (and fits the
  // lookahead window): consumes them and returns their attrs; else nullptr.
  const Attrs* SkipCachedAttrs(const Expr* callee);
  // The bytes at `begin` that place an attribute text in recent_attrs_.
  size_t AttrsKeyBytes(uint32_t begin) const;
  // The attrs of the recent attribute text of `op` that the bytes at `begin`
  // start with, when only spaces and the call's ')' follow it; `*end` is
  // the end of the text. Else nullptr. Nothing is consumed.
  const Attrs* MatchRecentAttrs(uint32_t begin, const OpExpr* op, uint32_t* end) const;
  bool ParseAttributeList(std::vector<ParsedAttr>& out);
  std::optional<ParsedAttr> ParseAttribute();
  std::optional<AttrValue> ParseAttrValue();
  std::optional<AttrValue> ParseAttrList();

  // ---- Attribute conversion (parse_attrs.cc) ----
  const Attrs* CallAttrs(const Expr* callee, const std::vector<ParsedAttr>& attrs);
  const Attrs* OpAttrs(const OpInfo* op, const std::vector<ParsedAttr>& attrs);
  const Attrs* MetaCallAttrs(const Expr* callee, const Token& meta);
  // A schema instance: every field in order, defaults for unwritten ones.
  // `owner` names the op (or attrs type) in messages.
  const Attrs* SchemaAttrs(const AttrsSchema* schema, std::string_view owner,
                           const std::vector<ParsedAttr>& attrs);
  // A dictionary in text order; values converted by `schema` when given.
  const Attrs* DictAttrs(const std::vector<ParsedAttr>& attrs, const AttrsSchema* schema);
  bool ConvertField(const AttrField& field, std::string_view owner, const ParsedAttr& attr,
                    AttrValue& out);

  // ---- Types (parse_type.cc) ----
  const Type* ParseType();
  const Type* ParseTupleType();
  const Type* ParseFuncType();
  // `[shape, dtype]` after the `Tensor` identifier that starts at `begin`.
  const Type* ParseTensorType(uint32_t begin);
  // The recent tensor type whose text (`Tensor[...]`) the bytes at `begin`
  // start with, `*end` the end of that text; else nullptr. A text ends at
  // its ']' (a token by itself), so equal bytes are the same tokens. Nothing
  // is consumed.
  const Type* MatchRecentType(uint32_t begin, uint32_t* end) const;
  const Type* ParseTensorShapeAndDType();
  const Type* ParseNamedType();
  bool ParseDim(std::vector<Dim>& dims);
  const TypeVar* FindTypeVar(std::string_view name) const;

  // ---- Literals and metadata (parse_literal.cc) ----
  const Expr* MakeLiteral(const Token& t);
  const Expr* ParseMetaExpr(const Token& t);
  // The attrs object a meta token refers to, or nullptr (reported).
  const MetaAttrs* MetaAttrsObject(const Token& t);
  // The object `meta[VirtualDevice][i]` refers to, or nullptr (reported).
  const VirtualDevice* MetaVirtualDevice(const Token& t);
  bool CheckMetadata(const Token& t);
  // The metadata section, searched for (from the start of the text) and
  // parsed on the first call.
  const MetadataState& Metadata();
  NDArray ScalarArray(DataType dtype, uint64_t bits);

  // ---- Scopes ----
  // A scope opened while no local is bound (a definition's) owns every
  // binding made until it closes: it is dropped whole instead of undone.
  static constexpr size_t kDropWhole = SIZE_MAX;
  void PushScope() { scope_marks_.push_back(locals_.empty() ? kDropWhole : undo_.size()); }
  void PopScope();
  // Binds `var` under its name in the innermost scope; returns the binding
  // it shadows (of any scope), else nullptr.
  const Var* BindLocal(const Var* var) { return BindLocal(var, locals_.Key(var->name())); }
  const Var* BindLocal(const Var* var, uint64_t key);
  const Var* LookupLocal(std::string_view name) {
    // Printed modules list a definition's parameters in the order of their
    // first use (TVM's free_vars order), so the parameter after the last one
    // found is tried first: it is read from sequential memory, where the
    // table's slot for the name is a cache miss. It is the binding of its
    // name while no parameter is shadowed and none is a duplicate.
    if (guess_ < def_params_.size() && shadowed_.empty()) {
      const Var* param = def_params_[guess_];
      if (locals_.SameName(param->name(), name)) {
        ++guess_;
        return param;
      }
    }
    return locals_.Find(name);
  }
  bool BindGraph(int64_t n, const Expr* e, Span span);
  const Expr* LookupGraph(int64_t n) const;
  // Whether `%n` is kept in graph_ (else graph_overflow_).
  bool IsDenseGraphNumber(int64_t n) const {
    return n >= 0 && uint64_t(n) <= lex_.text().size() / 4;
  }

  Lexer lex_;
  Module& module_;
  IRBuilder b_;
  DiagnosticEngine& diags_;
  MetadataState& metadata_;  // through Metadata()
  uint32_t seen_metadata_offset_ = MetadataState::kNone;
  uint32_t prev_end_ = 0;   // end of the last consumed token
  bool expr_mode_ = false;  // ParseExpr: globals must already be defined
  int depth_ = 0;
  bool reported_depth_ = false;
  bool stopped_ = false;  // too many errors: the parser sees only EOF
  Token eof_;

  // Locals: the innermost binding of each name, with an undo log per scope.
  LocalTable locals_;
  // Each binding of the open scopes, in order; a binding that shadowed one
  // also records what it shadowed (rare, so kept apart).
  std::vector<const Var*> undo_;
  struct Shadowed {
    size_t undo_index;
    const Var* previous;
  };
  std::vector<Shadowed> shadowed_;
  // The parameters of the definition being parsed, when they have distinct
  // names, and the one LookupLocal tries first.
  std::span<const Var* const> def_params_;
  size_t guess_ = 0;
  std::vector<size_t> scope_marks_;
  // Type variables of the enclosing signatures, innermost last.
  std::vector<const TypeVar*> type_vars_;
  // `%N` bindings of the current definition, dense by N; huge N overflow.
  // Chunks of 4096 grow without doubling the footprint (100k bindings are
  // common) and index with a shift and a mask (a deque divides).
  class GraphTable {
   public:
    const Expr* Get(size_t n) const {
      size_t chunk = n >> kChunkBits;
      if (chunk >= chunks_.size() || chunks_[chunk] == nullptr) return nullptr;
      return chunks_[chunk][n & (kChunkSize - 1)];
    }
    void Set(size_t n, const Expr* e) {
      size_t chunk = n >> kChunkBits;
      if (chunk >= chunks_.size()) chunks_.resize(chunk + 1);
      if (chunks_[chunk] == nullptr) chunks_[chunk] = std::make_unique<const Expr*[]>(kChunkSize);
      chunks_[chunk][n & (kChunkSize - 1)] = e;
    }
    void Clear() { chunks_.clear(); }

   private:
    static constexpr size_t kChunkBits = 12;
    static constexpr size_t kChunkSize = size_t{1} << kChunkBits;
    std::vector<std::unique_ptr<const Expr*[]>> chunks_;
  };
  GraphTable graph_;
  absl::flat_hash_map<int64_t, const Expr*> graph_overflow_;
  // Pending let/sequence bindings of the statement loops, innermost last.
  struct PendingLet {
    const Var* var;
    const Expr* value;
    uint32_t begin;
  };
  std::vector<PendingLet> pending_;
  // Argument stack shared by nested calls and tuples.
  std::vector<const Expr*> items_;
  // Operator-precedence stacks of ParseBinop (shared by nested operands).
  struct PendingInfix {
    const OpExpr* op;  // nullptr when not registered (reported)
    int precedence;
  };
  std::vector<const Expr*> operands_;
  std::vector<PendingInfix> operators_;
  // Attributes of the call being parsed; list elements being parsed.
  std::vector<ParsedAttr> call_attrs_;
  std::vector<AttrValue> list_items_;
  // List attribute values by their text (AttrValue arrays are never freed).
  absl::flat_hash_map<std::string_view, AttrValue, NameHash> list_cache_;
  // Tensor types by their text (`Tensor[(64, 64, 3, 3), float32]`).
  absl::flat_hash_map<std::string_view, const Type*, NameHash> type_cache_;
  // The memos' texts met again recently, found by their bytes: tensor types
  // (type_cache_), op attributes by OpInfo (attrs_cache_), op names
  // (op_cache_).
  RecentTexts<const Type*> recent_types_;
  RecentTexts<const Attrs*> recent_attrs_;
  RecentTexts<const OpExpr*> recent_ops_;
  std::vector<AttrEntry> entries_;
  // Type stack shared by nested tuple/function types; the shape being read.
  std::vector<const Type*> type_items_;
  std::vector<Dim> dims_;
  // `free_var` declarations (the parameters of a bare-expression @main).
  std::vector<const Var*> free_vars_;
  // Each `@name` use, for the undefined-global check.
  std::vector<std::pair<const GlobalVar*, Span>> global_uses_;
  // Each use of a data type's name, for CheckUndefinedTypes.
  struct TypeUse {
    const GlobalTypeVar* header;
    size_t num_args;
    Span span;
  };
  std::vector<TypeUse> type_uses_;
  // Span of each `type Name`, for redefinition notes.
  absl::flat_hash_map<std::string_view, Span> type_definitions_;
  // Span of each `def @name`, for redefinition notes.
  absl::flat_hash_map<std::string_view, Span> definitions_;
  // Scalar constant storage shared between equal literals.
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, NDArray> scalar_cache_;
  // Constant nodes for meta[relay.Constant][i] (TVM shares them too).
  std::vector<const Constant*> meta_constants_;
  // Default attrs per op (op calls without attributes).
  absl::flat_hash_map<const OpInfo*, const Attrs*> default_attrs_;
  // Op nodes by the name as written, and converted op attributes by op and
  // attribute text: a large graph repeats a few of each many times.
  absl::flat_hash_map<std::string_view, const OpExpr*, NameHash> op_cache_;
  struct OpTextHash {
    size_t operator()(const std::pair<const OpInfo*, std::string_view>& k) const {
      return absl::HashOf(k.first, NameHash{}(k.second));
    }
  };
  absl::flat_hash_map<std::pair<const OpInfo*, std::string_view>, const Attrs*, OpTextHash>
      attrs_cache_;
  // Function attributes by their text (`Composite="dnnl.conv2d_relu"` is
  // repeated by every composite function of a partitioned graph).
  absl::flat_hash_map<std::string_view, const Attrs*, NameHash> fn_attrs_cache_;
  // False while converting attributes whose text produced a diagnostic.
  bool attrs_clean_ = true;
  std::string scratch_;
};

}  // namespace carve::parser_internal
