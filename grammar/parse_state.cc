// Parser plumbing: token access, diagnostics, panic-mode recovery, nesting
// depth, and the scope tables for locals and `%N` graph bindings.
#include "fmt/format.h"
#include "grammar/parser_impl.h"

namespace carve::parser_internal {

Parser::Parser(std::string_view text, uint32_t file_id, Module& module, DiagnosticEngine& diags,
               MetadataState& metadata)
    : lex_(text, file_id, &diags),
      module_(module),
      b_(module.arena()),
      diags_(diags),
      metadata_(metadata),
      locals_(text) {
  eof_.kind = TokenKind::kEof;
  eof_.begin = eof_.end = static_cast<uint32_t>(text.size());
}

// ---- Tokens ----

void Parser::Stop() {
  if (stopped_) return;
  stopped_ = true;
  diags_.Error(lex_.SpanAt(lex_.Peek().begin), "too many errors; stopping here");
}

Span Parser::SpanFrom(const TokenPos& first) const {
  return Span{lex_.file_id(), first.begin, std::max(prev_end_, first.end)};
}

Note Parser::CloseNote(const TokenPos& opener) const {
  return Note{SpanOf(opener), fmt::format("to close {} here", TokenKindName(opener.kind))};
}

// ---- Diagnostics ----

void Parser::Error(Span span, std::string message, std::vector<Note> notes) {
  if (stopped_) return;
  diags_.Error(span, std::move(message), std::move(notes));
  if (diags_.size() >= kMaxErrors) Stop();
}

void Parser::ErrorExpected(std::string_view what, const TokenPos* opener) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kError) return;  // the lexer already explained it
  std::vector<Note> notes;
  if (opener != nullptr) notes.push_back(CloseNote(*opener));
  Error(SpanOf(t), fmt::format("expected {}", what), std::move(notes));
}

// ---- Recovery ----

bool Parser::SynchronizeStatement() {
  int depth = 0;
  for (;;) {
    switch (Peek().kind) {
      case TokenKind::kEof:
      case TokenKind::kMetadata:
      case TokenKind::kDef:
        return false;
      case TokenKind::kLParen:
      case TokenKind::kLBracket:
      case TokenKind::kLBrace:
        ++depth;
        break;
      case TokenKind::kRParen:
      case TokenKind::kRBracket:
        // Closers of brackets opened before the error are skipped too.
        if (depth > 0) --depth;
        break;
      case TokenKind::kRBrace:
        if (depth == 0) return false;
        --depth;
        break;
      case TokenKind::kSemicolon:
        if (depth == 0) {
          Next();
          return true;
        }
        break;
      default:
        break;
    }
    Next();
  }
}

void Parser::SynchronizeDefinition() {
  while (!At(TokenKind::kDef) && !At(TokenKind::kType) && !At(TokenKind::kExtern) &&
         !At(TokenKind::kEof) && !At(TokenKind::kMetadata)) {
    Next();
  }
}

// ---- Nesting ----

Parser::NestingGuard::NestingGuard(Parser& p, std::string_view what) : parser_(p) {
  ok_ = ++p.depth_ <= kMaxNestingDepth;
  if (!ok_ && !p.reported_depth_) {
    p.reported_depth_ = true;
    p.Error(p.SpanOf(p.Peek()),
            fmt::format("{} nested too deeply (the limit is {} levels)", what, kMaxNestingDepth));
  }
}

Parser::NestingGuard::~NestingGuard() {
  if (--parser_.depth_ == 0) parser_.reported_depth_ = false;
}

// ---- Scopes ----

void Parser::PopScope() {
  size_t mark = scope_marks_.back();
  scope_marks_.pop_back();
  if (mark == kDropWhole) {
    // Every binding is this scope's (a definition's): drop everything at
    // once rather than erasing, say, 50k parameters one by one.
    locals_.Clear();
    undo_.clear();
    shadowed_.clear();
    return;
  }
  while (undo_.size() > mark) {
    size_t index = undo_.size() - 1;
    std::string_view name = undo_.back()->name();
    undo_.pop_back();
    if (!shadowed_.empty() && shadowed_.back().undo_index == index) {
      locals_.Restore(name, shadowed_.back().previous);
      shadowed_.pop_back();
    } else {
      locals_.Restore(name, nullptr);
    }
  }
}

const Var* Parser::BindLocal(const Var* var, uint64_t key) {
  const Var* previous = locals_.Bind(var, key);
  // A scope dropped whole needs no undo entries for its own bindings.
  if (!scope_marks_.empty() && scope_marks_.back() != kDropWhole) {
    undo_.push_back(var);
    if (previous != nullptr) shadowed_.push_back(Shadowed{undo_.size() - 1, previous});
  }
  return previous;
}

bool Parser::BindGraph(int64_t n, const Expr* e, Span span) {
  const Expr* previous = LookupGraph(n);
  if (previous != nullptr) {
    Error(span, fmt::format("graph variable '%{}' is already bound", n),
          {Note{previous->span(), "previous binding is here"}});
    return false;
  }
  // Dense storage for the numbers printers produce (at most one per binding,
  // and a binding takes more than 4 bytes of text); a map for anything else.
  if (IsDenseGraphNumber(n)) {
    graph_.Set(size_t(n), e);
  } else {
    graph_overflow_[n] = e;
  }
  return true;
}

const Expr* Parser::LookupGraph(int64_t n) const {
  if (IsDenseGraphNumber(n)) return graph_.Get(size_t(n));
  auto it = graph_overflow_.find(n);
  return it == graph_overflow_.end() ? nullptr : it->second;
}

void Parser::ResetDefinitionState() {
  graph_.Clear();
  graph_overflow_.clear();
}

const Expr* Parser::Placeholder(Span span) { return b_.MakeVar("<error>", nullptr, span); }

}  // namespace carve::parser_internal
