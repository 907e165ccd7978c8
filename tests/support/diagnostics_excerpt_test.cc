// Source-line echo under diagnostics: short lines unchanged, long lines as a
// window around the column with "..." at the cut ends, and the caret under the
// right character after tabs and multi-byte UTF-8.
#include "support/diagnostics_excerpt.h"

#include <string>

#include "gtest/gtest.h"
#include "support/diagnostics.h"
#include "support/source.h"

namespace carve {
namespace {

// The byte the caret points at, found by walking both lines together.
std::string UnderCaret(const SourceExcerpt& ex) {
  size_t caret = ex.caret.find('^');
  size_t pos = 0, cp = 0;
  while (pos < ex.text.size() && cp < caret) {
    ++pos;
    while (pos < ex.text.size() && (static_cast<unsigned char>(ex.text[pos]) & 0xC0) == 0x80) ++pos;
    ++cp;
  }
  size_t end = pos + 1;
  while (end < ex.text.size() && (static_cast<unsigned char>(ex.text[end]) & 0xC0) == 0x80) ++end;
  return ex.text.substr(pos, end - pos);
}

TEST(DiagnosticsExcerptTest, ShortLineIsUnchanged) {
  SourceExcerpt ex = MakeSourceExcerpt("  %2 = nn.conv2d(%x, %w", 20);
  EXPECT_EQ(ex.text, "  %2 = nn.conv2d(%x, %w");
  EXPECT_EQ(ex.caret, "                   ^");
}

TEST(DiagnosticsExcerptTest, ColumnPastTheEndPutsCaretAfterTheLine) {
  SourceExcerpt ex = MakeSourceExcerpt("abc", 9);
  EXPECT_EQ(ex.text, "abc");
  EXPECT_EQ(ex.caret, "   ^");
}

TEST(DiagnosticsExcerptTest, LongLineShowsAWindowAroundTheColumn) {
  std::string line(3000, 'a');
  line[1462] = 'X';  // column 1463
  SourceExcerpt ex = MakeSourceExcerpt(line, 1463);
  EXPECT_TRUE(ex.text.starts_with("..."));
  EXPECT_TRUE(ex.text.ends_with("..."));
  EXPECT_EQ(ex.text.size(), 200u + 6u);
  EXPECT_EQ(UnderCaret(ex), "X");
  EXPECT_EQ(ex.caret.size(), 3u + 100u + 1u);
}

TEST(DiagnosticsExcerptTest, WindowAtTheStartHasNoLeadingDots) {
  std::string line(1000, 'b');
  line[4] = 'X';
  SourceExcerpt ex = MakeSourceExcerpt(line, 5);
  EXPECT_FALSE(ex.text.starts_with("..."));
  EXPECT_TRUE(ex.text.ends_with("..."));
  EXPECT_EQ(UnderCaret(ex), "X");
}

TEST(DiagnosticsExcerptTest, WindowAtTheEndHasNoTrailingDots) {
  std::string line(1000, 'c');
  line[998] = 'X';
  SourceExcerpt ex = MakeSourceExcerpt(line, 999);
  EXPECT_TRUE(ex.text.starts_with("..."));
  EXPECT_FALSE(ex.text.ends_with("..."));
  EXPECT_EQ(ex.text.size(), 3u + 200u);
  EXPECT_EQ(UnderCaret(ex), "X");
}

TEST(DiagnosticsExcerptTest, TabsAreCopiedIntoTheCaretLine) {
  SourceExcerpt ex = MakeSourceExcerpt("\t\tx = y", 5);
  EXPECT_EQ(ex.caret, "\t\t  ^");
  EXPECT_EQ(UnderCaret(ex), "=");
}

TEST(DiagnosticsExcerptTest, Utf8BeforeTheColumnCountsAsOneCharacter) {
  // "é" is two bytes, "€" three: the '=' is at byte column 11.
  std::string line = "é € ab = 1";
  ASSERT_EQ(line.find('='), 10u);
  SourceExcerpt ex = MakeSourceExcerpt(line, 11);
  EXPECT_EQ(ex.caret, "       ^");
  EXPECT_EQ(UnderCaret(ex), "=");
}

TEST(DiagnosticsExcerptTest, LongUtf8LineIsNeverCutInsideACharacter) {
  std::string line;
  for (int i = 0; i < 600; ++i) line += "€";
  line += "Z";
  for (int i = 0; i < 600; ++i) line += "é";
  SourceExcerpt ex = MakeSourceExcerpt(line, static_cast<uint32_t>(600 * 3 + 1));
  EXPECT_EQ(UnderCaret(ex), "Z");
  std::string inner = ex.text.substr(3, ex.text.size() - 6);
  EXPECT_TRUE(inner.starts_with("€"));
  EXPECT_TRUE(inner.ends_with("é"));
}

TEST(DiagnosticsExcerptTest, TabsAndUtf8InALongLine) {
  std::string line = "\t";
  for (int i = 0; i < 300; ++i) line += "ü\t";
  size_t col = line.size() + 1;
  line += "Q";
  for (int i = 0; i < 300; ++i) line += "-";
  SourceExcerpt ex = MakeSourceExcerpt(line, static_cast<uint32_t>(col));
  EXPECT_EQ(UnderCaret(ex), "Q");
  EXPECT_TRUE(ex.text.starts_with("..."));
  EXPECT_TRUE(ex.text.ends_with("..."));
}

TEST(DiagnosticsExcerptTest, ControlBytesAreEscapedAndTheCaretFollows) {
  // 'b' is at byte column 3; shown after the 4-character escape "\x01".
  SourceExcerpt ex = MakeSourceExcerpt(std::string("a\x01" "b", 3), 3);
  EXPECT_EQ(ex.text, "a\\x01b");
  EXPECT_EQ(ex.caret, "     ^");
  EXPECT_EQ(UnderCaret(ex), "b");
  // The caret on the escaped byte itself points at its backslash.
  ex = MakeSourceExcerpt(std::string("a\0b", 3), 2);
  EXPECT_EQ(ex.text, "a\\x00b");
  EXPECT_EQ(ex.caret, " ^");
}

TEST(DiagnosticsExcerptTest, TerminalEscapeSequencesAreNotEchoed) {
  // ESC [ 3 1 m would turn the terminal red; DEL and a C1 control (U+009B,
  // the 8-bit CSI) would be read by the terminal too.
  std::string line = "x \x1b[31m \x7f \xc2\x9b y";
  SourceExcerpt ex = MakeSourceExcerpt(line, static_cast<uint32_t>(line.find('y') + 1));
  EXPECT_EQ(ex.text, "x \\x1b[31m \\x7f \\u009b y");
  EXPECT_EQ(ex.text.find('\x1b'), std::string::npos);
  EXPECT_EQ(UnderCaret(ex), "y");
}

TEST(DiagnosticsExcerptTest, BidiOverridesAreEscaped) {
  // U+202E (RIGHT-TO-LEFT OVERRIDE) would show the rest of the line reversed.
  std::string line = "a \xe2\x80\xae bc";
  SourceExcerpt ex = MakeSourceExcerpt(line, static_cast<uint32_t>(line.find('c') + 1));
  EXPECT_EQ(ex.text, "a \\u202e bc");
  EXPECT_EQ(UnderCaret(ex), "c");
}

TEST(DiagnosticsExcerptTest, MalformedUtf8IsEscapedBytewise) {
  // Stray continuation bytes, bytes that never start UTF-8, an overlong
  // '/' (C0 AF) and a truncated three-byte sequence.
  std::string line = "\x80\x80x \xff\xfe \xc0\xaf \xe2\x82 z";
  SourceExcerpt ex = MakeSourceExcerpt(line, 1);
  EXPECT_EQ(ex.text, "\\x80\\x80x \\xff\\xfe \\xc0\\xaf \\xe2\\x82 z");
  EXPECT_EQ(ex.caret, "^");
  ex = MakeSourceExcerpt(line, 3);
  EXPECT_EQ(UnderCaret(ex), "x");
  ex = MakeSourceExcerpt(line, static_cast<uint32_t>(line.find('z') + 1));
  EXPECT_EQ(UnderCaret(ex), "z");
  std::string long_line = "\x80" + std::string(500, 'y');
  ex = MakeSourceExcerpt(long_line, 1);
  EXPECT_EQ(ex.caret, "^");
  EXPECT_TRUE(ex.text.ends_with("..."));
}

TEST(DiagnosticsExcerptTest, EscapesTabsAndUtf8Together) {
  std::string line = "\t\x01é\t\x02= 1";
  SourceExcerpt ex = MakeSourceExcerpt(line, static_cast<uint32_t>(line.find('=') + 1));
  EXPECT_EQ(ex.text, "\t\\x01é\t\\x02= 1");
  EXPECT_EQ(ex.caret, "\t     \t    ^");
  EXPECT_EQ(UnderCaret(ex), "=");
}

TEST(DiagnosticsExcerptTest, EscapedBytesInALongLine) {
  std::string line;
  for (int i = 0; i < 400; ++i) line += "\x01";
  size_t col = line.size() + 1;
  line += "Q";
  for (int i = 0; i < 400; ++i) line += "\xff";
  SourceExcerpt ex = MakeSourceExcerpt(line, static_cast<uint32_t>(col));
  EXPECT_EQ(UnderCaret(ex), "Q");
  EXPECT_TRUE(ex.text.starts_with("...\\x01"));
  EXPECT_TRUE(ex.text.ends_with("\\xff..."));
}

TEST(DiagnosticsExcerptTest, RenderedMessageAndLineCarryNoRawControlBytes) {
  uint32_t id = SourceManager::Global().Add("bin.relay", std::string("ab\0\x1b[2Jcd\n", 10));
  std::string out = RenderStatus(SpanError(Span{id, 8, 9}, "unknown name 'c\x1b[2J'"));
  EXPECT_EQ(out,
            "bin.relay:1:9: error: unknown name 'c\\x1b[2J'\n"
            "  ab\\x00\\x1b[2Jcd\n"
            "                ^\n");
}

TEST(DiagnosticsExcerptTest, RenderedErrorOnALongLine) {
  std::string line = "def @main(";
  while (line.size() < 1462) line += "%x: int32, ";
  line.resize(1462);
  line += "@oops";
  uint32_t id = SourceManager::Global().Add("long.relay", line + "\n");
  Span span{id, 1462, 1467};
  std::string out = RenderStatus(SpanError(span, "bad"));
  EXPECT_TRUE(out.starts_with("long.relay:1:1463: error: bad\n  ...")) << out;
  std::string text_line = out.substr(out.find('\n') + 1);
  std::string caret_line = text_line.substr(text_line.find('\n') + 1);
  size_t caret = caret_line.find('^');
  ASSERT_NE(caret, std::string::npos);
  EXPECT_EQ(text_line.substr(caret, 5), "@oops");
}

}  // namespace
}  // namespace carve
