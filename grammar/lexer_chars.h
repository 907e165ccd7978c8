// Character classes for the lexer: one table lookup per byte on the hot path,
// and the scans of `%name` / `%N` that the lexer and the parser's raw-text
// fast paths share (so that they cannot drift apart).
// Internal to grammar/ (lexer*.cc and the parser).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace carve {
namespace lexer_chars {

enum : uint8_t {
  kSpace = 1,
  kDigit = 2,
  kIdentStart = 4,     // [A-Za-z_]
  kIdentContinue = 8,  // [A-Za-z0-9_/]
  kTokenStart = 16,    // a byte some token can start with
};

constexpr std::array<uint8_t, 256> MakeTable() {
  std::array<uint8_t, 256> t{};
  for (char c : {' ', '\t', '\n', '\r'}) t[uint8_t(c)] |= kSpace;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kDigit | kIdentContinue | kTokenStart;
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kIdentStart | kIdentContinue | kTokenStart;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kIdentStart | kIdentContinue | kTokenStart;
  t['_'] |= kIdentStart | kIdentContinue | kTokenStart;
  t['/'] |= kIdentContinue;
  for (char c : std::string_view("%@\"#-()[]{},;:+*/?|.=<>!")) t[uint8_t(c)] |= kTokenStart;
  return t;
}

inline constexpr std::array<uint8_t, 256> kTable = MakeTable();

}  // namespace lexer_chars

inline bool IsSpace(char c) { return lexer_chars::kTable[uint8_t(c)] & lexer_chars::kSpace; }
inline bool IsDigit(char c) { return lexer_chars::kTable[uint8_t(c)] & lexer_chars::kDigit; }
inline bool IsIdentStart(char c) {
  return lexer_chars::kTable[uint8_t(c)] & lexer_chars::kIdentStart;
}
inline bool IsIdentContinue(char c) {
  return lexer_chars::kTable[uint8_t(c)] & lexer_chars::kIdentContinue;
}
// Letters, digits and `_` (identifier characters without `/`).
inline bool IsAlnum(char c) { return IsIdentContinue(c) && c != '/'; }
inline bool CanStartToken(char c) {
  return lexer_chars::kTable[uint8_t(c)] & lexer_chars::kTokenStart;
}
inline bool IsPrintable(char c) { return c >= 0x20 && c < 0x7f; }

// The end of the name of a `%name` / `@name` whose first byte (after the
// sigil) is at `p`: name characters, with `.` or `-` glued between them
// continuing the name. nullptr when no name starts at `p`.
inline const char* ScanSigilName(const char* p, const char* end) {
  if (p == end || !IsIdentStart(*p)) return nullptr;
  const char* q = p + 1;
  for (;;) {
    while (q < end && IsIdentContinue(*q)) ++q;
    if (q + 1 < end && (*q == '.' || *q == '-') && IsIdentStart(q[1])) {
      q += 2;
      continue;
    }
    return q;
  }
}

// Digits a `%N` may have for the unchecked scan: 18 cannot overflow int64.
inline constexpr size_t kMaxUncheckedGraphDigits = 18;

// The end of the number of a `%N` whose first digit is at `p`, its value in
// `*n`: at most kMaxUncheckedGraphDigits digits not followed by a name
// character. nullptr when longer or followed by one (a name cannot start
// with a digit): the lexer's checked path judges those.
inline const char* ScanGraphNumber(const char* p, const char* end, uint64_t* n) {
  const char* limit = size_t(end - p) > kMaxUncheckedGraphDigits ? p + kMaxUncheckedGraphDigits : end;
  uint64_t value = 0;
  const char* q = p;
  while (q < limit && IsDigit(*q)) value = value * 10 + uint64_t(*q++ - '0');
  if (q < end && IsIdentContinue(*q)) return nullptr;
  *n = value;
  return q;
}

}  // namespace carve
