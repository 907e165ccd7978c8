// The token stream shared by the Relay text parser and the pattern DSL parser.
//
// The lexer is hand-written and streaming: it produces one token at a time on
// demand, keeps a small ring buffer for lookahead and never allocates per
// token. Tokens are small values holding byte offsets into the text (which
// must outlive the lexer); literal values are decoded while lexing.
//
// Lexical rules (tvm-reference.md 1.2-1.3, with carve's fixes):
// - Whitespace (space, tab, CR, LF), `// line` and nested `/* block */`
//   comments are skipped; a token records whether any preceded it.
// - Identifiers: [A-Za-z_][A-Za-z0-9_/]*. `.` is a separate token, so the
//   parser assembles dotted op names (`nn.conv2d`) from adjacent tokens.
// - `%name` / `@name` are single tokens. Inside such a name, `.` and `-`
//   continue the name when directly followed by a letter or `_`
//   (`%conv1.weight`, `%byoc-target_0_i0`); `.` followed by a digit is a
//   projection (`%x.0.1` is `%x` `.` `0` `.` `1`). TVM reads `-` as subtract
//   there and rejects such names; carve accepts them since printed BYOC
//   modules contain them (a spaced `%a - %b` still subtracts).
// - `%N` (digits) is a graph variable.
// - Numbers: digits, optional `.digits` fraction and exponent, optional
//   suffix i/i8/i16/i32/i64/u8/u16/u32/u64 (i8 and u* are carve extensions)
//   or f/f16/f32/f64. Unsuffixed integers are int32, or int64 when out of
//   int32 range. Floats need an `f` suffix. `inff` (also `inff16`, `inff64`)
//   and `nanf` are float literals. Values are range-checked for their dtype.
//   Digits right after a `.` token lex as a plain integer (tuple index).
// - A run of `-` directly followed by a digit (or `inff`/`nanf`) folds into
//   the literal; an odd count makes it negative (`--5` is 5).
// - Strings: `"..."` with escapes \" \\ \n \t \r (TVM processes none).
// - `meta[Key][i]` is one token; `#[version = "..."]` is a version token and
//   `#[metadata]` a metadata token covering the rest of the text.
// - Two-character operators (`<=`, `==`, `->`, `=>`, ...) and `...` are
//   single tokens only when written without spaces.
//
// Lexical errors are reported to the DiagnosticEngine (when given) and yield
// a kError token, so that the parser can skip it without a second message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/dtype.h"
#include "support/diagnostics.h"
#include "support/source.h"

namespace carve {

enum class TokenKind : uint8_t {
  kEof,
  kError,  // already reported
  // Names and literals.
  kIdent,     // foo, nn (dotted names are IDENT . IDENT)
  kLocal,     // %x, %conv1.weight
  kGraph,     // %12 (int_value = 12)
  kGlobal,    // @main
  kInt,       // 5, -3i64 (int_value, dtype)
  kFloat,     // 1.5f, inff (float_value, dtype)
  kString,    // "a\n" (raw text; see StringValue)
  kMeta,      // meta[relay.Constant][3] (MetaKey, int_value = index)
  kVersion,   // #[version = "0.0.5"] (VersionText)
  kMetadata,  // #[metadata] and the rest of the text (MetadataText)
  // Keywords.
  kLet,
  kFn,
  kDef,
  kIf,
  kElse,
  kType,
  kMatch,
  kExtern,
  kFreeVar,
  kRef,
  kRefRead,
  kRefWrite,
  kTrue,
  kFalse,
  // Punctuation.
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kComma,
  kDot,
  kEllipsis,  // ...
  kEqual,     // =
  kSemicolon,
  kColon,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kEqualEqual,
  kBangEqual,
  kBang,
  kQuestion,
  kPipe,
  kArrow,       // ->
  kFatArrow,    // =>
  kUnderscore,  // _ (alone)
};

// How a token kind is written in messages: "')'", "identifier", "end of file".
std::string_view TokenKindName(TokenKind kind);

struct Token {
  enum Flags : uint8_t {
    kSpaceBefore = 1,  // whitespace or a comment precedes the token
    kHasEscapes = 2,   // kString: the body contains backslash escapes
  };

  TokenKind kind = TokenKind::kEof;
  uint8_t flags = 0;
  DataType dtype;      // kInt / kFloat: the literal's dtype
  uint32_t begin = 0;  // byte offsets of the lexeme in the text
  uint32_t end = 0;
  uint32_t aux = 0;  // kMeta: end of the key; kVersion/kMetadata: start of the payload
  union {
    int64_t int_value = 0;  // kInt (uint64 bits for u64), kGraph, kMeta, kVersion length
    double float_value;     // kFloat
  };

  bool Is(TokenKind k) const { return kind == k; }
  bool space_before() const { return flags & kSpaceBefore; }
};

class Lexer {
 public:
  // Ring buffer size. Peek(k) is valid for k <= kMaxPeek; the slot of the
  // token Next() returned is kept until the following Next().
  static constexpr uint32_t kMaxLookahead = 32;
  static constexpr uint32_t kMaxPeek = kMaxLookahead - 2;
  static_assert((kMaxLookahead & (kMaxLookahead - 1)) == 0, "a power of two");

  // `text` must outlive the lexer; `file_id` is the SourceManager id spans
  // refer to. `diags` may be null (errors then only yield kError tokens).
  Lexer(std::string_view text, uint32_t file_id, DiagnosticEngine* diags);

  // The token `k` positions ahead (0 = the next one; k <= kMaxPeek).
  const Token& Peek(uint32_t k = 0) {
    if (k >= count_) Fill(k);
    return ring_[(head_ + k) & kRingMask];
  }
  // Consumes the next token. The reference stays valid until the next call
  // to Next(); copy what must live longer. (Hot paths should not copy whole
  // tokens: a wide load of a just-written token stalls store forwarding.)
  const Token& Next() {
    if (count_ == 0) Fill(0);
    uint32_t slot = head_;
    head_ = (head_ + 1) & kRingMask;
    --count_;
    return ring_[slot];
  }

  // Raw-text fast path for memoised constructs (the parser's type and
  // attribute caches): the byte offset of the `close` byte (')' or ']') that
  // ends the bracketed group starting at `from` (depth 0 there), or 0 when
  // the group cannot be found cheaply: a comment, '#', '{', '}' or ';', an
  // unbalanced bracket, the end of the text, or more than `limit` bytes. A
  // string literal is skipped whole. Whether the text is valid is not
  // checked: the caller only uses the result to look the text up in a memo
  // of texts parsed before, whose tokens the same bytes reproduce.
  uint32_t ScanGroup(uint32_t from, char close, uint32_t limit = 1024) const;
  // Raw-text fast path for op names: the end of the dotted name whose first
  // identifier starts at `from` (`nn.conv2d`), joining `.word` only where
  // the tokens would be '.' and an identifier written without spaces.
  uint32_t ScanDottedName(uint32_t from) const;
  // The raw-text scans of `%name` and `%N` are ScanSigilName and
  // ScanGraphNumber (lexer_chars.h), which LexSigilName uses too.
  // Drops the lookahead and resumes lexing at byte `offset`, which must be a
  // token boundary that no peeked token crosses and that does not follow a
  // '.' token (tuple indices). False (and nothing changes) when a peeked
  // token ends after `offset`.
  bool SkipTo(uint32_t offset);

  std::string_view text() const { return text_; }
  uint32_t file_id() const { return file_; }
  Span SpanOf(const Token& t) const { return Span{file_, t.begin, t.end}; }
  // A zero-width span at byte `offset`.
  Span SpanAt(uint32_t offset) const { return Span{file_, offset, offset}; }
  std::string_view TextOf(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }

  // kLocal / kGlobal: the name without its sigil.
  std::string_view Name(const Token& t) const {
    return text_.substr(t.begin + 1, t.end - t.begin - 1);
  }
  // kMeta: the type key ("relay.Constant").
  std::string_view MetaKey(const Token& t) const {
    return text_.substr(t.begin + 5, t.aux - t.begin - 5);
  }
  // kVersion: the version string without quotes ("0.0.5").
  std::string_view VersionText(const Token& t) const {
    return text_.substr(t.aux, static_cast<size_t>(t.int_value));
  }
  // kMetadata: the text after the `#[metadata]` marker.
  std::string_view MetadataText(const Token& t) const { return text_.substr(t.aux); }
  // kString: the decoded value. A view of the text when the literal has no
  // escapes; otherwise decoded into `scratch` (which the view then points to).
  std::string_view StringValue(const Token& t, std::string& scratch) const;

 private:
  void Fill(uint32_t k);
  Token Lex();
  // Skips whitespace and comments; false when an unterminated block comment
  // was reported.
  bool SkipTrivia();
  // The end of a (nested) block comment whose body starts at `p`, or nullptr
  // when it is unterminated.
  const char* SkipBlockComment(const char* p) const;
  Token Make(TokenKind kind, const char* begin, const char* end);
  Token Error(const char* begin, const char* end, std::string message);
  Token LexPunctuation(const char* p);
  Token LexIdentifier(const char* p);
  Token LexSigilName(const char* p);
  // The cold paths of LexSigilName: a bad name after the sigil, and `%N`
  // with more digits than ScanGraphNumber takes or followed by name
  // characters.
  [[gnu::noinline, gnu::cold]] Token SigilNameError(const char* p, const char* q);
  [[gnu::noinline, gnu::cold]] Token LexGraphChecked(const char* p);
  Token LexMeta(const char* p);
  Token LexString(const char* p);
  Token LexHashAttribute(const char* p);
  Token LexUnknown(const char* p);
  Token LexMinus(const char* p);
  // Numeric literals (lexer_number.cc). `begin` is the first `-` of a folded
  // run or the first digit; `digits` the first digit.
  Token LexNumber(const char* begin, const char* digits, bool negative);
  Token LexTupleIndex(const char* p);
  Token LexInfNan(const char* begin, const char* word, size_t length, bool negative);
  // Length of an `inff`/`nanf` literal (with optional width) at `p`, else 0.
  size_t InfNanLength(const char* p) const;

  std::string_view text_;
  uint32_t file_;
  DiagnosticEngine* diags_;
  const char* cur_;
  const char* end_;
  bool space_before_ = true;
  const char* plain_minus_end_ = nullptr;  // see LexMinus
  TokenKind last_kind_ = TokenKind::kEof;  // kind of the last lexed token
  static constexpr uint32_t kRingMask = kMaxLookahead - 1;
  Token ring_[kMaxLookahead];
  uint32_t head_ = 0;
  uint32_t count_ = 0;
};

}  // namespace carve
