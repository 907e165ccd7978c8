// Tests of the token stream: kinds, values, spacing, and lexical errors.
#include "grammar/lexer.h"
#include "grammar/lexer_chars.h"

#include <string>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using ::testing::ElementsAre;

// Each token as "kind:text", up to EOF.
std::vector<std::string> Lex(std::string_view text, DiagnosticEngine* diags = nullptr) {
  Lexer lexer(text, 0, diags);
  std::vector<std::string> out;
  for (;;) {
    Token t = lexer.Next();
    if (t.Is(TokenKind::kEof)) return out;
    out.push_back(fmt::format("{}:{}", TokenKindName(t.kind), lexer.TextOf(t)));
    if (out.size() > 1000) return out;
  }
}

Token First(std::string_view text, DiagnosticEngine* diags = nullptr) {
  Lexer lexer(text, 0, diags);
  return lexer.Next();
}

// The first error message when lexing `text`.
std::string LexError(std::string_view text) {
  DiagnosticEngine diags;
  Lex(text, &diags);
  return diags.size() == 0 ? "" : diags.diagnostics()[0].message;
}

TEST(Lexer, SkipsCommentsAndWhitespace) {
  EXPECT_THAT(Lex("a // line\n /* block /* nested */ still */ b /* ty=Tensor[(1), float32] */"),
              ElementsAre("identifier:a", "identifier:b"));
  EXPECT_THAT(Lex("\r\n\t x"), ElementsAre("identifier:x"));
}

// The scans the lexer shares with the parser's fast paths.
TEST(Lexer, SigilNameAndGraphNumberScans) {
  auto name = [](std::string_view s) -> std::string {
    const char* e = ScanSigilName(s.data(), s.data() + s.size());
    return e == nullptr ? "<none>" : std::string(s.data(), e);
  };
  EXPECT_EQ(name("conv1.weight-x, y"), "conv1.weight-x");
  EXPECT_EQ(name("a.1"), "a");  // `.` must be followed by a name start
  EXPECT_EQ(name("a-"), "a");
  EXPECT_EQ(name("1a"), "<none>");
  EXPECT_EQ(name(""), "<none>");
  auto number = [](std::string_view s) -> std::string {
    uint64_t n = 0;
    const char* e = ScanGraphNumber(s.data(), s.data() + s.size(), &n);
    return e == nullptr ? "<none>" : std::to_string(n) + "+" + std::to_string(e - s.data());
  };
  EXPECT_EQ(number("12 ="), "12+2");
  EXPECT_EQ(number("123456789012345678"), "123456789012345678+18");
  EXPECT_EQ(number("123456789012345678)"), "123456789012345678+18");
  EXPECT_EQ(number("1234567890123456789"), "<none>");  // 19 digits: checked path
  EXPECT_EQ(number("12a"), "<none>");
  EXPECT_EQ(number("12/"), "<none>");
}

TEST(Lexer, Names) {
  EXPECT_THAT(Lex("%x %conv1.weight %base/x %0 @main nn.conv2d"),
              ElementsAre("local variable:%x", "local variable:%conv1.weight",
                          "local variable:%base/x", "graph variable:%0", "global name:@main",
                          "identifier:nn", "'.':.", "identifier:conv2d"));
  EXPECT_THAT(Lex("%byoc-target_0_i0 %a - %b %a-1"),
              ElementsAre("local variable:%byoc-target_0_i0", "local variable:%a", "'-':-",
                          "local variable:%b", "local variable:%a", "integer literal:-1"));
}

TEST(Lexer, ProjectionsAfterDots) {
  // `0.1` after a dot is two tuple indices, not a float.
  EXPECT_THAT(Lex("%x.0.1"), ElementsAre("local variable:%x", "'.':.", "integer literal:0", "'.':.",
                                         "integer literal:1"));
  EXPECT_THAT(Lex("%a.b.0"), ElementsAre("local variable:%a.b", "'.':.", "integer literal:0"));
  EXPECT_THAT(Lex("(%x).12"),
              ElementsAre("'(':(", "local variable:%x", "')':)", "'.':.", "integer literal:12"));
}

TEST(Lexer, KeywordsAndPunctuation) {
  EXPECT_THAT(Lex("let fn def if else free_var True False _ match ref"),
              ElementsAre("'let':let", "'fn':fn", "'def':def", "'if':if", "'else':else",
                          "'free_var':free_var", "'True':True", "'False':False", "'_':_",
                          "'match':match", "'ref':ref"));
  EXPECT_THAT(Lex("<= < = == => -> ... != ! ? | * / + ; : , [ ] { }"),
              ElementsAre("'<=':<=", "'<':<", "'=':=", "'==':==", "'=>':=>", "'->':->", "'...':...",
                          "'!=':!=", "'!':!", "'?':?", "'|':|", "'*':*", "'/':/", "'+':+", "';':;",
                          "':'::", "',':,", "'[':[", "']':]", "'{':{", "'}':}"));
  // Spaced two-character operators are two tokens.
  EXPECT_THAT(Lex("< ="), ElementsAre("'<':<", "'=':="));
}

TEST(Lexer, PatternDslTokens) {
  EXPECT_THAT(Lex("?x nn.relu?(p) p._ a | b add(...)"),
              ElementsAre("'?':?", "identifier:x", "identifier:nn", "'.':.", "identifier:relu",
                          "'?':?", "'(':(", "identifier:p", "')':)", "identifier:p", "'.':.",
                          "'_':_", "identifier:a", "'|':|", "identifier:b", "identifier:add",
                          "'(':(", "'...':...", "')':)"));
  Lexer lexer("? x", 0, nullptr);
  lexer.Next();
  EXPECT_TRUE(lexer.Peek().space_before());
  Lexer glued("?x", 0, nullptr);
  glued.Next();
  EXPECT_FALSE(glued.Peek().space_before());
}

TEST(Lexer, IntegerLiterals) {
  struct Case {
    std::string_view text;
    DataType dtype;
    int64_t value;
  };
  for (const Case& c : std::vector<Case>{
           {"5", DataType::Int(32), 5},
           {"-5", DataType::Int(32), -5},
           {"--5", DataType::Int(32), 5},
           {"---10", DataType::Int(32), -10},
           {"5i", DataType::Int(32), 5},
           {"5i16", DataType::Int(16), 5},
           {"-32768i16", DataType::Int(16), -32768},
           {"5i64", DataType::Int(64), 5},
           {"2147483647", DataType::Int(32), 2147483647},
           {"2147483648", DataType::Int(64), 2147483648},
           {"-2147483648", DataType::Int(32), -2147483648LL},
           {"-9223372036854775808i64", DataType::Int(64), INT64_MIN},
           {"7i8", DataType::Int(8), 7},
           {"255u8", DataType::UInt(8), 255},
           {"18446744073709551615u64", DataType::UInt(64), -1},
       }) {
    DiagnosticEngine diags;
    Token t = First(c.text, &diags);
    EXPECT_EQ(diags.size(), 0u) << c.text;
    EXPECT_EQ(t.kind, TokenKind::kInt) << c.text;
    EXPECT_EQ(t.dtype, c.dtype) << c.text;
    EXPECT_EQ(t.int_value, c.value) << c.text;
  }
}

TEST(Lexer, FloatLiterals) {
  struct Case {
    std::string_view text;
    DataType dtype;
    double value;
  };
  for (const Case& c : std::vector<Case>{
           {"1f", DataType::Float(32), 1},
           {"1.5f", DataType::Float(32), 1.5},
           {"-0.25f", DataType::Float(32), -0.25},
           {"1e-5f", DataType::Float(32), 1e-5},
           {"1E+1f", DataType::Float(32), 10},
           {"3f32", DataType::Float(32), 3},
           {"3f16", DataType::Float(16), 3},
           {"65504f16", DataType::Float(16), 65504},
           {"2f64", DataType::Float(64), 2},
           {"1e-400f64", DataType::Float(64), 0},
           {"inff", DataType::Float(32), INFINITY},
           {"-inff", DataType::Float(32), -INFINITY},
           {"inff16", DataType::Float(16), INFINITY},
       }) {
    DiagnosticEngine diags;
    Token t = First(c.text, &diags);
    EXPECT_EQ(diags.size(), 0u) << c.text;
    EXPECT_EQ(t.kind, TokenKind::kFloat) << c.text;
    EXPECT_EQ(t.dtype, c.dtype) << c.text;
    EXPECT_EQ(t.float_value, c.value) << c.text;
  }
  Token nan = First("nanf");
  EXPECT_EQ(nan.kind, TokenKind::kFloat);
  EXPECT_TRUE(std::isnan(nan.float_value));
  EXPECT_EQ(First("inffoo").kind, TokenKind::kIdent);
}

TEST(Lexer, BadLiterals) {
  EXPECT_EQ(LexError("1.5"), "float literal '1.5' needs a suffix: write '1.5f'");
  EXPECT_EQ(LexError("1e5"), "float literal '1e5' needs a suffix: write '1e5f'");
  EXPECT_EQ(LexError("65505f16"), "float16 literal '65505f16' is out of range");
  EXPECT_EQ(LexError("3.40283e+38f32"), "float32 literal '3.40283e+38f32' is out of range");
  EXPECT_EQ(LexError("1e999f64"), "float64 literal '1e999f64' is out of range");
  EXPECT_EQ(LexError("99999999999i32"), "int32 literal '99999999999i32' is out of range");
  EXPECT_EQ(LexError("32768i16"), "int16 literal '32768i16' is out of range");
  EXPECT_EQ(LexError("-1u8"), "uint8 literal '-1u8' is out of range");
  EXPECT_EQ(LexError("99999999999999999999"),
            "int64 literal '99999999999999999999' is out of range");
  EXPECT_EQ(LexError("5i7"), "invalid suffix 'i7' on numeric literal '5i7'");
  EXPECT_EQ(LexError("12abc"), "invalid suffix 'abc' on numeric literal '12abc'");
  EXPECT_EQ(LexError("1.5i32"), "integer literal '1.5i32' cannot have a fraction or exponent");
}

TEST(Lexer, Strings) {
  Lexer lexer(R"("plain" "a\"b\\c\nd\te\rf")", 0, nullptr);
  std::string scratch;
  Token plain = lexer.Next();
  EXPECT_EQ(lexer.StringValue(plain, scratch), "plain");
  Token escaped = lexer.Next();
  EXPECT_EQ(lexer.StringValue(escaped, scratch), "a\"b\\c\nd\te\rf");
  EXPECT_EQ(LexError(R"("a\qb")"), "unknown escape sequence '\\q' in string literal");
  EXPECT_EQ(LexError("\"never closed\n"), "unterminated string literal");
}

TEST(Lexer, MetaVersionAndMetadata) {
  Lexer lexer("#[version = \"0.0.5\"] meta[relay.Constant][12] #[metadata]\n{\"x\": 1}", 0,
              nullptr);
  Token version = lexer.Next();
  ASSERT_EQ(version.kind, TokenKind::kVersion);
  EXPECT_EQ(lexer.VersionText(version), "0.0.5");
  Token meta = lexer.Next();
  ASSERT_EQ(meta.kind, TokenKind::kMeta);
  EXPECT_EQ(lexer.MetaKey(meta), "relay.Constant");
  EXPECT_EQ(meta.int_value, 12);
  Token metadata = lexer.Next();
  ASSERT_EQ(metadata.kind, TokenKind::kMetadata);
  EXPECT_EQ(lexer.MetadataText(metadata), "\n{\"x\": 1}");
  EXPECT_EQ(lexer.Next().kind, TokenKind::kEof);
  EXPECT_EQ(LexError("#[foo]"),
            "unsupported attribute '#[foo]' (expected '#[version = \"...\"]' or '#[metadata]')");
  EXPECT_EQ(LexError("meta[relay.Constant]"),
            "malformed meta reference: expected 'meta[TypeKey][index]'");
}

TEST(Lexer, ErrorsAreOneTokenPerRun) {
  DiagnosticEngine diags;
  std::vector<std::string> tokens = Lex("a \x01\x02\x03 b $$ c", &diags);
  EXPECT_THAT(tokens, ElementsAre("identifier:a", "invalid token:\x01\x02\x03", "identifier:b",
                                  "invalid token:$$", "identifier:c"));
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags.diagnostics()[0].message, "unexpected character '\\x01'");
  EXPECT_EQ(diags.diagnostics()[1].message, "unexpected character '$'");
  EXPECT_EQ(LexError("/* open"), "unterminated block comment");
  EXPECT_EQ(LexError("%"), "expected a name after '%'");
}

TEST(Lexer, SpansAreByteOffsets) {
  Lexer lexer("  %abc  ", 7, nullptr);
  Token t = lexer.Next();
  EXPECT_EQ(t.begin, 2u);
  EXPECT_EQ(t.end, 6u);
  EXPECT_EQ(lexer.SpanOf(t).file, 7u);
  EXPECT_EQ(lexer.Name(t), "abc");
}

TEST(Lexer, LookaheadDoesNotConsume) {
  Lexer lexer("a b c d", 0, nullptr);
  EXPECT_EQ(lexer.TextOf(lexer.Peek(3)), "d");
  EXPECT_EQ(lexer.TextOf(lexer.Peek(0)), "a");
  EXPECT_EQ(lexer.TextOf(lexer.Next()), "a");
  EXPECT_EQ(lexer.TextOf(lexer.Peek(2)), "d");
}

TEST(Lexer, NeverFailsOnRandomBytes) {
  uint32_t seed = 12345;
  for (int round = 0; round < 200; ++round) {
    std::string text;
    for (int i = 0; i < 500; ++i) {
      seed = seed * 1103515245 + 12345;
      text.push_back(char(seed >> 16));
    }
    DiagnosticEngine diags;
    Lexer lexer(text, 0, &diags);
    size_t tokens = 0;
    while (!lexer.Next().Is(TokenKind::kEof)) ASSERT_LT(++tokens, text.size() + 1);
  }
}

}  // namespace
}  // namespace carve
