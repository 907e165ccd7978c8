// Character classes for the lexer: one table lookup per byte on the hot path.
// Internal to grammar/ (lexer.cc, lexer_number.cc).
#pragma once

#include <array>
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

}  // namespace carve
