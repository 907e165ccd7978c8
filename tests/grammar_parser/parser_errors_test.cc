// The parser on invalid input: exact locations and messages, notes, several
// errors per run, and no crash or runaway recursion on any input.
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace carve {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_util::CorpusPath;
using testing_util::Locations;
using testing_util::ReadFile;

constexpr char kHeader[] = "#[version = \"0.0.5\"]\n";

// The diagnostics of parsing `body` after a version header (line 1), as
// "line:col: message" lines; "OK" when it parses.
std::string Errors(const std::string& body) {
  auto m = ParseModule("t.relay", kHeader + body);
  return m.ok() ? "OK" : Locations(m.status());
}

std::string RawErrors(const std::string& text) {
  auto m = ParseModule("t.relay", text);
  return m.ok() ? "OK" : Locations(m.status());
}

TEST(ParseErrors, TruncatedCall) {
  EXPECT_EQ(Errors("def @main(%x: int32) {\n  add(%x, 1"),
            "3:12: expected ')' after call arguments\n"
            "  note 3:6: to close '(' here\n");
}

TEST(ParseErrors, RenderedWithSourceLineCaretAndNote) {
  auto m =
      ParseModule("t.relay", std::string(kHeader) + "def @main(%x: int32) {\n  add(%x, 1;\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(RenderStatus(m.status()),
            "t.relay:3:12: error: expected ')' after call arguments\n"
            "    add(%x, 1;\n"
            "             ^\n"
            "t.relay:3:6: note: to close '(' here\n"
            "    add(%x, 1;\n"
            "       ^\n");
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParseErrors, UnbalancedBrackets) {
  EXPECT_EQ(Errors("def @main() {\n  (1, 2\n}\n"),
            "4:1: expected ')'\n"
            "  note 3:3: to close '(' here\n");
  EXPECT_EQ(Errors("def @main(%x: int32 {\n  %x\n}\n"),
            "2:21: expected ')' after the parameters\n"
            "  note 2:10: to close '(' here\n");
  EXPECT_EQ(Errors("def @main() {\n  let %x = 1;\n  %x\n"),
            "5:1: expected '}' after the function body\n"
            "  note 2:13: to close '{' here\n");
  EXPECT_EQ(Errors("def @main(%x: int32) {\n  nn.max_pool2d(%x, pool_size=[2, 2)\n}\n"),
            "3:36: expected ']' after the list elements\n"
            "  note 3:31: to close '[' here\n");
  EXPECT_EQ(Errors("def @main() { 1 } }\n"),
            "2:19: expected 'def', 'type' or the end of the file\n");
  EXPECT_EQ(Errors("def @main(%x: Tensor[(1, 2, float32]) { %x }\n"),
            "2:29: expected a dimension (an integer or '?')\n");
}

TEST(ParseErrors, UnknownOperatorSuggestsTheNearest) {
  EXPECT_EQ(Errors("def @main(%x: int32) {\n  nn.conv2(%x)\n}\n"),
            "3:3: unknown operator 'nn.conv2' (did you mean 'nn.conv2d'?)\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { true }\n"),
            "2:24: unknown operator 'true' (did you mean 'True'?)\n");
}

TEST(ParseErrors, AttributeErrors) {
  EXPECT_EQ(Errors("def @main(%x: int32) {\n  nn.conv2d(%x, %x, stride=[1, 1])\n}\n"),
            "3:21: unknown attribute 'stride' for 'nn.conv2d' (did you mean 'strides'?)\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { nn.softmax(%x, zzz=1) }\n"),
            "2:39: unknown attribute 'zzz' for 'nn.softmax' (its attributes are: axis)\n");
  EXPECT_EQ(
      Errors("def @main(%x: int32) {\n  nn.conv2d(%x, %x, groups=\"two\")\n}\n"),
      "3:28: attribute 'groups' of 'nn.conv2d' expects an integer, found the string \"two\"\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { nn.conv2d(%x, %x, padding=1.5f) }\n"),
            "2:50: attribute 'padding' of 'nn.conv2d' expects a list of integers, found a float\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { nn.max_pool2d(%x, pool_size=[1], ceil_mode=2) }\n"),
            "2:67: attribute 'ceil_mode' of 'nn.max_pool2d' expects a bool (True or False), "
            "found an integer\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { cast(%x, dtype=\"floot32\") }\n"),
            "2:39: invalid dtype \"floot32\" for attribute 'dtype' of 'cast'\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { nn.softmax(%x, axis=1, axis=2) }\n"),
            "2:47: duplicate attribute 'axis'\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { nn.relu(%x, axis=1) }\n"),
            "2:36: operator 'nn.relu' takes no attributes\n");
  EXPECT_EQ(Errors("def @main(%x: int32) { nn.softmax(axis=1, %x) }\n"),
            "2:43: expected an attribute such as 'key=value' (arguments come before attributes)\n");
  EXPECT_EQ(Errors("def @main(%x: int32, A=1, A=2) { %x }\n"), "2:27: duplicate attribute 'A'\n");
}

TEST(ParseErrors, BadLiterals) {
  EXPECT_EQ(Errors("def @main() {\n  (1.5, 65505f16, 99999999999i32, 5i7, 1.5i32, 9e99f)\n}\n"),
            "3:4: float literal '1.5' needs a suffix: write '1.5f'\n"
            "3:9: float16 literal '65505f16' is out of range\n"
            "3:19: int32 literal '99999999999i32' is out of range\n"
            "3:35: invalid suffix 'i7' on numeric literal '5i7'\n"
            "3:40: integer literal '1.5i32' cannot have a fraction or exponent\n"
            "3:48: float32 literal '9e99f' is out of range\n");
  EXPECT_EQ(Errors("def @main() { \"abc\\q\" }\n"),
            "2:19: unknown escape sequence '\\q' in string literal\n");
}

TEST(ParseErrors, UndefinedNames) {
  EXPECT_EQ(Errors("def @main(%x: int32) {\n  %1 = add(%0, %y);\n  @f(%1)\n}\n"),
            "3:12: undefined variable '%0'\n"
            "3:16: undefined variable '%y'\n"
            "4:3: undefined global '@f'\n");
  // Each branch of an if is its own scope.
  EXPECT_EQ(Errors("def @main() { if (True) { let %a = 1; %a } else { %a } }\n"),
            "2:51: undefined variable '%a'\n");
  // A fn literal's parameters do not leak out of it.
  EXPECT_EQ(Errors("def @main() { fn (%x) { %x }; %x }\n"), "2:31: undefined variable '%x'\n");
  EXPECT_EQ(Errors("def @main() { %x = 2; %x }\n"),
            "2:18: unexpected '=': bind a local variable with 'let %x = ...;'\n");
  EXPECT_EQ(Errors("def @main() { @g() }\ndef @h() { @g() }\n"),
            "2:15: undefined global '@g'\n"
            "3:12: undefined global '@g'\n");
  Module module;
  auto e = ParseExpr("t.relay", "@nowhere(1)", module);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(Locations(e.status()), "1:1: undefined global '@nowhere'\n");
  EXPECT_EQ(module.FindGlobalVar("nowhere"), nullptr);  // the module is unchanged
  EXPECT_EQ(Locations(ParseExpr("t.relay", "add(%free, 1)", module).status()),
            "1:5: undefined variable '%free'\n");
}

TEST(ParseErrors, Redefinitions) {
  EXPECT_EQ(Errors("def @main() {\n  %0 = 1;\n  %0 = 2;\n  %0\n}\n"),
            "4:3: graph variable '%0' is already bound\n"
            "  note 3:8: previous binding is here\n");
  EXPECT_EQ(Errors("def @f() { 1 }\ndef @f() { 2 }\n"),
            "3:5: redefinition of '@f'\n"
            "  note 2:5: previous definition is here\n");
  EXPECT_EQ(Errors("def @main(%x, %x) { %x }\n"),
            "2:15: duplicate parameter '%x'\n"
            "  note 2:11: first declared here\n");
}

TEST(ParseErrors, Versions) {
  EXPECT_EQ(RawErrors("def @main() { 1 }"),
            "1:1: expected text format semantic version\n"
            "  note 1:1: add '#[version = \"0.0.5\"]' as the first line\n");
  EXPECT_EQ(RawErrors("#[version = \"0.0.6\"]\ndef @main() { 1 }"),
            "1:1: unsupported text format version \"0.0.6\" (carve reads \"0.0.5\")\n");
  EXPECT_EQ(RawErrors("#[version = 0.0.5]\n"),
            "1:1: malformed version attribute: expected '#[version = \"0.0.5\"]'\n");
}

TEST(ParseErrors, MalformedReferences) {
  EXPECT_EQ(Errors("def @main() { ref 1 }\n"),
            "2:19: expected '(' after the reference keyword\n");
  EXPECT_EQ(Errors("def @main(%r) { ref_write(%r 1) }\n"),
            "2:30: expected ',' between the reference and the value\n"
            "  note 2:26: to close '(' here\n");
  EXPECT_EQ(Errors("def @main(%r) { ref_read(%r, 1) }\n"),
            "2:28: expected ')'\n  note 2:25: to close '(' here\n");
}

// Algebraic data types (TVM's test_ir_parser.py ADT cases and their errors).
TEST(ParseErrors, AlgebraicDataTypes) {
  EXPECT_EQ(Errors("type List[A] { Cons(A, List[A]), Nil }\ndef @main() { ref(Nil) }\n"), "OK");
  EXPECT_EQ(Errors("def @main(%x) { match (%x) { _ => 1 } }\n"), "OK");
  EXPECT_EQ(Errors("def @main(%x: List[int32]) { %x }\n"), "2:15: unknown type 'List'\n");
  EXPECT_EQ(Errors("type A { B }\ntype A { C }\n"),
            "3:6: redefinition of type 'A'\n  note 2:6: previous definition is here\n");
  EXPECT_EQ(Errors("type A { B }\ntype C { B }\n"),
            "3:10: a constructor named 'B' was defined before\n"
            "  note 2:10: previous definition is here\n");
  EXPECT_EQ(Errors("type A { B(int32 }\n"),
            "2:18: expected ')' after the constructor's field types\n"
            "  note 2:11: to close '(' here\n");
  EXPECT_EQ(Errors("def @main(%x) { match (%x) { C => 1 } }\n"),
            "2:30: undefined constructor 'C' (a pattern variable is written '%C')\n");
  EXPECT_EQ(Errors("def @main(%x) { match (%x) { _ 1 } }\n"),
            "2:32: expected '=>' after the pattern\n");
  EXPECT_EQ(Errors("type A[T] { B(T) }\ndef @main(%x: A) { %x }\n"),
            "3:15: type 'A' takes 1 type argument, got 0\n");
}

TEST(ParseErrors, MetadataReferences) {
  EXPECT_EQ(Errors("def @main() { meta[relay.Constant][0] }\n"),
            "2:15: 'meta[relay.Constant][0]' refers to the metadata section, but there is no "
            "#[metadata] section at the end of the file\n");
  const std::string metadata = R"(#[metadata]
{"root": 1, "nodes": [{"type_key": ""},
  {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
  {"type_key": "Array", "data": [3]},
  {"type_key": "relay.Constant", "attrs": {"data": "0"}}],
 "b64ndarrays": ["P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAAAIAQABAAAAAAAAAP0="]})";
  EXPECT_EQ(Errors("def @main() { meta[relay.Constant][1] }\n" + metadata),
            "2:15: 'meta[relay.Constant][1]' is out of range: the metadata section has 1 "
            "relay.Constant entries\n");
  EXPECT_EQ(
      Errors(
          "def @main(%x) { annotation.compiler_begin(%x, meta[relay.attrs.CompilerAttrs][0]) }\n" +
          metadata),
      "2:47: 'meta[relay.attrs.CompilerAttrs][0]': the metadata section has no "
      "'relay.attrs.CompilerAttrs' entries\n");
  EXPECT_EQ(Errors("def @main() { meta[relay.Constant][0] }\n#[metadata]\n{\"root\": 1,"),
            "3:1: invalid metadata section: parse error at line 2, column 12: syntax error while "
            "parsing object key - unexpected end of input; expected string literal\n");
}

TEST(ParseErrors, BrokenMetadataWithoutReferences) {
  // No reference needs the section, but its marker is read and checked; a
  // commented marker before it is not the section.
  EXPECT_EQ(Errors("def @main() { 1 }\n#[metadata]\n{\"root\": 1,"),
            "3:1: invalid metadata section: parse error at line 2, column 12: syntax error while "
            "parsing object key - unexpected end of input; expected string literal\n");
  EXPECT_EQ(Errors("// #[metadata]\ndef @main() { 1 }\n#[metadata]\n{\"root\": 1,"),
            "4:1: invalid metadata section: parse error at line 2, column 12: syntax error while "
            "parsing object key - unexpected end of input; expected string literal\n");
  EXPECT_EQ(Errors("// #[metadata] {\ndef @main() { 1 }\n"), "OK");
}

TEST(ParseErrors, SeveralErrorsInOneRun) {
  EXPECT_EQ(Errors("def @main() {\n"
                   "  %0 = add(1, );\n"
                   "  %1 = nn.reluu(%0);\n"
                   "  %2 = add(%1 2);\n"
                   "  %3 = multiply(%2, %nope);\n"
                   "  %3\n"
                   "}\n"
                   "def @other() { 1.5 }\n"
                   "def @third( { 1 }\n"
                   "def @fourth() { @missing() }\n"),
            "4:8: unknown operator 'nn.reluu' (did you mean 'nn.relu'?)\n"
            "5:15: expected ')' after call arguments\n"
            "  note 5:11: to close '(' here\n"
            "6:21: undefined variable '%nope'\n"
            "9:16: float literal '1.5' needs a suffix: write '1.5f'\n"
            "10:13: expected a parameter such as '%x', an attribute or ')'\n"
            "  note 10:11: to close '(' here\n"
            "11:17: undefined global '@missing'\n");
}

TEST(ParseErrors, ErrorCountIsBounded) {
  std::string body = "def @main() {\n";
  for (int i = 0; i < 100; ++i) body += "  %" + std::to_string(i) + " = add(%undefined, 1);\n";
  body += "  1\n}\n";
  auto m = ParseModule("t.relay", kHeader + body);
  ASSERT_FALSE(m.ok());
  std::vector<Diagnostic> diags = StatusToDiagnostics(m.status());
  EXPECT_EQ(diags.size(), 21u);
  EXPECT_EQ(diags.back().message, "too many errors; stopping here");
}

// Fuzzer finding F-5: the lexer reported the 20th error while filling the
// lookahead, so the parser stopped between peeking a `%name` and consuming
// it; Next() then returned the EOF token, whose name lies past the end of
// the text (std::out_of_range -> abort). Next() now always returns the token
// Peek() showed; the stop shows from the next Peek() on.
TEST(ParseErrors, StopBetweenPeekAndNextKeepsTheToken) {
  const std::string inputs[] = {
      // Minimised by libFuzzer (fuzz_relay).
      std::string("p(\xe7"
                  "a\xe7;%6=c);p(i(%;%6=c=\xd4;%6=c=;p(%b\xd4"),
      // The 103-byte original.
      std::string("// e);\n  %ip(%b4\xd4\xe7"
                  "a\xe7"
                  "amyifs\n);\n %6 = c=-1);\n  %6ip(yi(%b4\xd4\n);\n"
                  "  %6 = c=b4\xd4;\n  %6 = c=-1);%6ip(%b4\xd4 = c4\xd4"),
  };
  for (const std::string& text : inputs) {
    auto m = ParseModule("t.relay", text);
    ASSERT_FALSE(m.ok());
    std::vector<Diagnostic> diags = StatusToDiagnostics(m.status());
    EXPECT_EQ(diags.back().message, "too many errors; stopping here");
    for (const Diagnostic& d : diags) {
      EXPECT_LE(d.span.begin, d.span.end) << d.message;
      EXPECT_LE(d.span.end, text.size()) << d.message;
    }
  }
  // The same with each kind of name the parser reads after peeking it, and
  // one error (a byte no token starts with) per line after it, so that the
  // 20th error is lexed in the lookahead of some name.
  for (const char* name : {"%b", "@g", "%0"}) {
    std::string text = kHeader;
    for (int i = 0; i < 25; ++i) text += fmt::format("p({}\xd4\n", name);
    auto m = ParseModule("t.relay", text);
    ASSERT_FALSE(m.ok()) << name;
    EXPECT_EQ(StatusToDiagnostics(m.status()).back().message, "too many errors; stopping here");
  }
}

TEST(ParseErrors, DeepNestingIsAnErrorNotACrash) {
  const int n = 100000;
  auto single_error = [](const std::string& body) {
    auto m = ParseModule("t.relay", kHeader + body);
    if (m.ok()) return std::string("OK");
    std::vector<Diagnostic> diags = StatusToDiagnostics(m.status());
    return diags.size() == 1 ? diags[0].message : Locations(m.status());
  };
  EXPECT_EQ(single_error("def @main() { " + std::string(n, '(') + "1" + std::string(n, ')') + " }"),
            "expression nested too deeply (the limit is 1000 levels)");
  std::string blocks;
  for (int i = 0; i < n; ++i) blocks += "{ ";
  blocks += "1";
  for (int i = 0; i < n; ++i) blocks += " }";
  EXPECT_EQ(single_error("def @main() " + blocks),
            "expression nested too deeply (the limit is 1000 levels)");
  EXPECT_EQ(single_error("def @main(%x: " + std::string(n, '(') + "int32" + std::string(n, ')') +
                         ") { %x }"),
            "type nested too deeply (the limit is 1000 levels)");
  EXPECT_EQ(single_error("def @main(%x) { nn.softmax(%x, axis=" + std::string(n, '[') + "1" +
                         std::string(n, ']') + ") }"),
            "attribute value nested too deeply (the limit is 1000 levels)");
  std::string fns;
  for (int i = 0; i < n; ++i) fns += "fn () { ";
  fns += "1";
  for (int i = 0; i < n; ++i) fns += " }";
  EXPECT_EQ(single_error("def @main() { " + fns + " }"),
            "expression nested too deeply (the limit is 1000 levels)");
  std::string calls = "def @main(%f) { %f";
  for (int i = 0; i < n; ++i) calls += "(%f";
  EXPECT_EQ(single_error(calls), "expression nested too deeply (the limit is 1000 levels)");
  EXPECT_EQ(single_error("def @main() { " + std::string(n, '-') + " }"), "expected an expression");
}

TEST(ParseErrors, EveryPrefixOfACorpusFileFailsCleanly) {
  std::string text = ReadFile(CorpusPath("demo_4_partition_graph.relay"));
  ASSERT_FALSE(text.empty());
  for (size_t cut = 0; cut < text.size(); cut += 7) {
    auto m = ParseModule("prefix", text.substr(0, cut));
    if (!m.ok()) {
      EXPECT_FALSE(StatusToDiagnostics(m.status()).empty()) << cut;
    }
  }
  std::string with_metadata = ReadFile(CorpusPath("conv_bound_constants.relay"));
  for (size_t cut = 0; cut < with_metadata.size(); cut += 13) {
    EXPECT_FALSE(ParseModule("prefix", with_metadata.substr(0, cut)).ok()) << cut;
  }
}

TEST(ParseErrors, RandomBytesNeverCrash) {
  uint32_t seed = 987654321;
  auto next = [&] {
    seed = seed * 1664525 + 1013904223;
    return seed >> 16;
  };
  const std::string alphabet = "%@(){}[],.=;:->*/+<!?|_ \n\"#fnletdefif0123456789abcxyz";
  for (int round = 0; round < 300; ++round) {
    std::string text = round % 2 ? kHeader : "";
    for (int i = 0; i < 400; ++i) {
      text.push_back(round % 3 == 0 ? char(next()) : alphabet[next() % alphabet.size()]);
    }
    auto m = ParseModule("random", text);
    if (!m.ok()) {
      EXPECT_LE(StatusToDiagnostics(m.status()).size(), 21u);
      // Binary bytes (a NUL, or a control character first) are one error
      // that names the source without echoing a line of it; text errors
      // point into it.
      EXPECT_THAT(RenderStatus(m.status()),
                  ::testing::AnyOf(StartsWith("random:"),
                                   HasSubstr("'random' is not Relay text but binary data")));
    }
  }
}

TEST(ParseErrors, EmptyAndWhitespaceOnly) {
  EXPECT_EQ(RawErrors(""),
            "1:1: expected text format semantic version\n"
            "  note 1:1: add '#[version = \"0.0.5\"]' as the first line\n");
  EXPECT_EQ(Errors("   \n// nothing\n"), "OK");
  EXPECT_THAT(Errors("def"), HasSubstr("expected a global name such as '@main' after 'def'"));
}

}  // namespace
}  // namespace carve
