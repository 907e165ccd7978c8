// The `.pat` DSL: every construct parses, prints back to text that re-parses
// to an equal pattern, and means what patterns.md says; errors carry
// file:line:col.
#include "gmock/gmock.h"
#include "grammar/pattern_parser.h"
#include "grammar/pattern_printer.h"
#include "gtest/gtest.h"
#include "patterns/builders.h"
#include "patterns/pattern_equal.h"
#include "patterns/rewrite.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

class DslTest : public PatternTest {
 protected:
  Pattern P(const std::string& text) {
    auto p = ParsePattern("test.pat", text);
    EXPECT_TRUE(p.ok()) << RenderStatus(p.status());
    return p.ok() ? *p : Wildcard();
  }
  // Parses, prints, re-parses and compares; returns the printed text.
  std::string RoundTrip(const std::string& text) {
    Pattern p = P(text);
    auto printed = PrintPattern(p);
    EXPECT_TRUE(printed.ok()) << printed.status();
    if (!printed.ok()) return "";
    auto again = ParsePattern("printed.pat", *printed);
    EXPECT_TRUE(again.ok()) << RenderStatus(again.status()) << "\nprinted: " << *printed;
    std::string why;
    if (again.ok()) {
      EXPECT_TRUE(PatternEqual(p, *again, &why)) << why << "\nprinted: " << *printed;
    }
    return *printed;
  }
  // The first rendered error line of parsing `text` as a file.
  std::string FileError(const std::string& text) {
    auto lib = ParsePatternFile("bad.pat", text);
    EXPECT_FALSE(lib.ok());
    if (lib.ok()) return "";
    std::string rendered = RenderStatus(lib.status());
    return rendered.substr(0, rendered.find('\n'));
  }
  std::string PatternError(const std::string& text) {
    auto p = ParsePattern("bad.pat", text);
    EXPECT_FALSE(p.ok());
    if (p.ok()) return "";
    std::string rendered = RenderStatus(p.status());
    return rendered.substr(0, rendered.find('\n'));
  }
  const Var* x_ = V("x");
  const Var* w_ = V("w");
};

TEST_F(DslTest, EveryConstructRoundTrips) {
  const char* cases[] = {
      "_",
      "?x",
      "const",
      "var",
      "var(\"x\")",
      "1f",
      "0i64",
      "True",
      "-2.5f",
      "nn.relu",
      "nn.conv2d(?data, const)",
      "nn.conv2d(_, _, groups=1, data_layout=\"NCHW\")",
      "nn.conv2d(_, _, kernel_size=[3, 3], padding=[1, 1, 1, 1])",
      "_(?a, ?b)",
      "add(...)",
      "_(..., call_attr=\"x\")",
      "nn.relu?(nn.conv2d(_, _))",
      "nn.bias_add?(nn.conv2d(_, _), const)",
      "nn.relu(nn.bias_add?(nn.conv2d(_, _), _))",
      "(_, ?q)",
      "(?p,)",
      "()",
      "(...)",
      "_.0",
      "nn.batch_norm(_, _, _, _, _)._",
      "if (less(?a, ?b)) { ?a } else { ?b }",
      "let ?v = add(_, _); multiply(?v, ?v)",
      "fn (?p, _) { add(?p, _) }",
      "fn (...) { _ }",
      "nn.relu(_) | tanh(_) | sigmoid(_)",
      "nn.relu(_) | (tanh(_) | sigmoid(_))",
      "nn.relu(_ | const)",
      "add(nn.conv2d(_, _) as ?c, ?c)",
      "(nn.relu(_) | tanh(_)) as ?act",
      "_ : Tensor[(1, _, _, _), float32]",
      "_ : Tensor[(1, 3, 224, 224), float32]",
      "_ : Tensor[(?, 3), _]",
      "_ : Tensor[(), int32]",
      "_ : float32",
      "_ : float16 : Tensor[(1, 2), _]",
      "_ : (Tensor[(1), float32], Tensor[(2, 2), int8])",
      "dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_), add(_, _))",
      "has_attr(fn (...) { _ }, Composite=\"dnnl.conv2d\")",
      "has_attr(nn.relu(_))",
      "nn.dense(?x, ?w) where ?w is const and rank(?x) == 2 and dtype(?x) in [float32, float16]",
      "nn.conv2d(?x, const) as ?c where ?c.groups == 1 and ?c.data_layout == \"NCHW\" and "
      "shape(?x)[0] == 1",
      "nn.relu(?x) where not (rank(?x) < 4 or shape(?x) == [1, 2, 3, 4]) and ?x.alpha >= 0.5f",
      "add(?a, ?b) where ?a is var or ?b is call",
      "nn.relu((add(?a, _) where ?a is const))",
  };
  for (const char* text : cases) {
    SCOPED_TRACE(text);
    RoundTrip(text);
  }
}

TEST_F(DslTest, PrintedFormsAreCanonical) {
  EXPECT_EQ(RoundTrip("nn.relu( nn.conv2d( ?x , _ ) )"), "nn.relu(nn.conv2d(?x, _))");
  EXPECT_EQ(RoundTrip("add(nn.conv2d(_, _) as ?c, ?c)"), "add(nn.conv2d(_, _) as ?c, ?c)");
  EXPECT_EQ(RoundTrip("_ : Tensor[(1, _), float32]"), "_ : Tensor[(1, _), float32]");
  EXPECT_EQ(RoundTrip("nn.bias_add?(?x, const)"), "nn.bias_add?(?x, const)");
  EXPECT_EQ(RoundTrip("nn.conv2d(_, _, groups=1)"), "nn.conv2d(_, _, groups=1)");
  EXPECT_EQ(RoundTrip("nn.leaky_relu(_, alpha=0)"), "nn.leaky_relu(_, alpha=0f)");
}

TEST_F(DslTest, ParsedPatternsMatchLikeBuilders) {
  const Call* conv = Op("nn.conv2d", {x_, Const(1)});
  const Call* relu = Op("nn.relu", {conv});
  EXPECT_TRUE(MatchPattern(P("nn.relu?(nn.conv2d(_, const))"), relu));
  EXPECT_TRUE(MatchPattern(P("nn.relu?(nn.conv2d(_, const))"), conv));
  EXPECT_FALSE(MatchPattern(P("nn.relu(nn.conv2d(_, var))"), relu));
  EXPECT_TRUE(MatchPattern(P("add(?x, ?x)"), Op("add", {x_, x_})));
  EXPECT_FALSE(MatchPattern(P("add(?x, ?x)"), Op("add", {x_, w_})));
  EXPECT_TRUE(MatchPattern(P("nn.conv2d(_, _, groups=1, data_layout=\"NCHW\")"), conv));
  EXPECT_FALSE(MatchPattern(P("nn.conv2d(_, _, groups=2)"), conv));
  EXPECT_TRUE(MatchPattern(P("add(_, 1f)"), Op("add", {x_, Const(1)})));
  EXPECT_FALSE(MatchPattern(P("add(_, 1f)"), Op("add", {x_, Const(2)})));
  EXPECT_TRUE(MatchPattern(P("(_, _).1"), Get(Tup({x_, w_}), 1)));
  const Var* typed = V("t", F32({1, 3, 8, 8}));
  const Call* r = Op("nn.relu", {typed});
  Infer(r);
  EXPECT_TRUE(MatchPattern(P("nn.relu(_ : Tensor[(1, _, _, _), float32])"), r));
  EXPECT_FALSE(MatchPattern(P("nn.relu(_ : Tensor[(2, _, _, _), float32])"), r));
  EXPECT_TRUE(MatchPattern(P("nn.relu(?x) where rank(?x) == 4 and shape(?x)[-1] == 8"), r));
  EXPECT_FALSE(MatchPattern(P("nn.relu(?x) where dtype(?x) in [float16, int8]"), r));
}

constexpr const char* kSpecFile = R"(// patterns.md section 2, verbatim forms
pattern conv_bias = nn.bias_add(nn.conv2d(?data, ?weight), ?bias);
pattern dense = nn.dense(?x, ?w) where ?w is const and rank(?x) == 2 and dtype(?x) in [float32, float16];
pattern conv = nn.conv2d(?x, const) as ?c where ?c.groups == 1 and ?c.data_layout == "NCHW"
                                         and shape(?x)[0] == 1;
pattern conv_bias_relu = nn.relu(conv_bias) where rank(?data) == 4;
pattern casts = cast(casts | nn.dense(_, _));
rule add_to_bias_add = add(nn.conv2d(_, _) as ?c, ?b : Tensor[(_), _]) => nn.bias_add(?c, ?b);
rule double_relu = nn.relu(nn.relu(?x)) => nn.relu(?x);
backend dnnl {
  ops nn.conv2d, nn.dense, nn.relu, add, multiply;
  op nn.max_pool2d where ?.layout == "NCHW" and ?.ceil_mode == False;   // ? is the call itself
  composite conv2d_bias_relu = nn.relu(add(nn.conv2d(_, const), const));
  composite conv2d_relu      = nn.relu(nn.conv2d(_, const));
}
)";

TEST_F(DslTest, SpecExamplesParseAndTheLibraryRoundTrips) {
  auto lib = ParsePatternFile("spec.pat", kSpecFile);
  ASSERT_TRUE(lib.ok()) << RenderStatus(lib.status());
  ASSERT_EQ(lib->patterns().size(), 5u);
  ASSERT_EQ(lib->rules().size(), 2u);
  ASSERT_EQ(lib->backends().size(), 1u);
  const BackendSpec& dnnl = lib->backends()[0];
  EXPECT_EQ(dnnl.ops.size(), 6u);
  ASSERT_EQ(dnnl.composites.size(), 2u);
  EXPECT_EQ(dnnl.composites[0].name, "dnnl.conv2d_bias_relu");
  // The named pattern is shared, so its captures are visible to the where clause.
  const Pattern& cbr = lib->FindPattern("conv_bias_relu")->pattern;
  EXPECT_EQ(Cast<CallPattern>(Cast<WherePattern>(cbr.get())->inner().get())->args()[0],
            lib->FindPattern("conv_bias")->pattern);

  auto printed = PrintPatternLibrary(*lib);
  ASSERT_TRUE(printed.ok()) << printed.status();
  auto again = ParsePatternFile("printed.pat", *printed);
  ASSERT_TRUE(again.ok()) << RenderStatus(again.status()) << "\n" << *printed;
  ASSERT_EQ(again->patterns().size(), lib->patterns().size());
  for (size_t i = 0; i < lib->patterns().size(); ++i) {
    std::string why;
    EXPECT_TRUE(PatternEqual(lib->patterns()[i].pattern, again->patterns()[i].pattern, &why))
        << lib->patterns()[i].name << ": " << why;
  }
  for (size_t i = 0; i < lib->rules().size(); ++i) {
    EXPECT_TRUE(PatternEqual(lib->rules()[i].lhs, again->rules()[i].lhs));
    EXPECT_EQ(PrintTemplate(*lib->rules()[i].rhs), PrintTemplate(*again->rules()[i].rhs));
  }
  const BackendSpec& dnnl2 = again->backends()[0];
  ASSERT_EQ(dnnl2.ops.size(), dnnl.ops.size());
  for (size_t i = 0; i < dnnl.ops.size(); ++i) EXPECT_EQ(dnnl.ops[i].op, dnnl2.ops[i].op);
  EXPECT_TRUE(PatternEqual(dnnl.composites[1].pattern, dnnl2.composites[1].pattern));
  auto printed_again = PrintPatternLibrary(*again);
  ASSERT_TRUE(printed_again.ok());
  EXPECT_EQ(*printed, *printed_again);
}

TEST_F(DslTest, RecursivePatternsFromText) {
  auto lib = ParsePatternFile("rec.pat", "pattern casts = cast(casts | nn.dense(_, _));");
  ASSERT_TRUE(lib.ok()) << RenderStatus(lib.status());
  const Expr* e = Op("nn.dense", {x_, w_});
  for (int i = 0; i < 4; ++i) e = Op("cast", {e}, {{"dtype", AttrValue::Str("float32")}});
  EXPECT_TRUE(MatchPattern(lib->FindPattern("casts")->pattern, e));
  EXPECT_FALSE(MatchPattern(lib->FindPattern("casts")->pattern, Op("cast", {x_})));
}

TEST_F(DslTest, RulesRewriteWithTemplates) {
  auto lib = ParsePatternFile("rules.pat", R"(
rule add_to_bias_add = add(nn.conv2d(_, _) as ?c, ?b : Tensor[(_), _]) => nn.bias_add(?c, ?b, axis=3);
rule fold_relu = nn.relu(nn.relu(?x)) => nn.relu(?x);
)");
  ASSERT_TRUE(lib.ok()) << RenderStatus(lib.status());
  const Var* data = V("data", F32({1, 3, 8, 8}));
  const Var* weight = V("weight", F32({4, 3, 3, 3}));
  const Var* bias = V("bias", F32({6}));  // broadcasts along the last axis
  const Expr* e =
      Op("nn.relu", {Op("nn.relu", {Op("add", {Op("nn.conv2d", {data, weight}), bias})})});
  Infer(e);
  std::vector<RewriteRule> rules = lib->RewriteRules();
  EXPECT_TRUE(rules[0].require_type);
  EXPECT_FALSE(rules[1].require_type);
  RewriteOptions options;
  options.retype = [&](const Expr* x) -> absl::StatusOr<const Expr*> {
    auto t = InferExprType(x, &mod_);
    if (!t.ok()) return t.status();
    return x;
  };
  auto r = RewriteExpr(rules, e, mod_.arena(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  const Expr* expected = Op("nn.relu", {Op("nn.bias_add", {Op("nn.conv2d", {data, weight}), bias},
                                           {{"axis", AttrValue::Int(3)}})});
  ExpectSame(r->expr, expected);
}

TEST_F(DslTest, BackendOpRulesAndCompositeTables) {
  auto lib = ParsePatternFile("dnnl.pat", kSpecFile);
  ASSERT_TRUE(lib.ok());
  const BackendSpec* dnnl = lib->FindBackend("dnnl");
  ASSERT_NE(dnnl, nullptr);
  EXPECT_TRUE(dnnl->Supports(Op("nn.relu", {x_})));
  EXPECT_FALSE(dnnl->Supports(Op("tanh", {x_})));
  EXPECT_TRUE(dnnl->Supports(Op("nn.max_pool2d", {x_})));
  EXPECT_FALSE(dnnl->Supports(Op("nn.max_pool2d", {x_}, {{"layout", AttrValue::Str("NHWC")}})));
  EXPECT_FALSE(dnnl->Supports(Op("nn.max_pool2d", {x_}, {{"ceil_mode", AttrValue::Bool(true)}})));
  auto with_if = ParsePatternFile("if.pat", "backend b { op nn.leaky_relu if ?.alpha == 1; }");
  ASSERT_TRUE(with_if.ok()) << RenderStatus(with_if.status());
  EXPECT_NE(with_if->backends()[0].ops[0].predicate, nullptr);
  // An attribute the op does not have would make the rule false everywhere.
  auto no_attr = ParsePatternFile("if.pat", "backend b { op nn.relu if ?.alpha == 1; }");
  ASSERT_FALSE(no_attr.ok());
  EXPECT_THAT(RenderStatus(no_attr.status()),
              ::testing::HasSubstr("if.pat:1:27: error: ?.alpha: nn.relu has no attribute 'alpha' "
                                   "(it has no attributes)"));
  std::vector<CompositeEntry> table = dnnl->CompositeTable();
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[1].name, "dnnl.conv2d_relu");
}

TEST_F(DslTest, ErrorsCarryLineAndColumn) {
  EXPECT_EQ(FileError("pattern p = nn.conv2dd(_, _);"),
            "bad.pat:1:13: error: unknown operator or pattern 'nn.conv2dd' (did you mean "
            "'nn.conv2d'?)");
  EXPECT_EQ(FileError("pattern a = _;\nrule r = nn.relu(?x) => nn.relu(?y);"),
            "bad.pat:2:33: error: the replacement uses ?y, which the pattern does not bind");
  EXPECT_EQ(FileError("pattern p = nn.relu(_;"),
            "bad.pat:1:22: error: expected ',' or ')', got ';'");
  EXPECT_EQ(FileError("pattern p = nn.conv2d(_, _, grups=1);"),
            "bad.pat:1:29: error: nn.conv2d has no attribute 'grups'");
  EXPECT_EQ(FileError("pattern p = nn.conv2d(_, _, groups=\"x\");"),
            "bad.pat:1:29: error: attribute groups cannot be \"x\"");
  EXPECT_EQ(FileError("pattern p = _ : floot32;"), "bad.pat:1:17: error: unknown dtype 'floot32'");
  EXPECT_EQ(FileError("pattern p = add(nn.relu(_) as ?x, ?x as ?x);"),
            "bad.pat:1:41: error: capture ?x is already bound");
  EXPECT_EQ(FileError("pattern p = nn.relu(?x) where rank(?y) == 1;"),
            "bad.pat:1:31: error: unknown capture ?y in the where clause");
  EXPECT_EQ(FileError("backend b { op nn.relu where ?x.alpha == 1; }"),
            "bad.pat:1:30: error: an op rule can only test '?' (the call), not ?x");
  EXPECT_EQ(FileError("pattern add = _;"),
            "bad.pat:1:9: error: 'add' names an operator; choose another pattern name");
  EXPECT_EQ(FileError("pattern p = _;\npattern p = _;"),
            "bad.pat:2:9: error: pattern 'p' is already defined");
  EXPECT_EQ(FileError("pattern a = nn.relu(?x);\npattern b = add(?x, a);"),
            "bad.pat:2:21: error: capture ?x is also bound inside pattern 'a'");
  EXPECT_EQ(FileError("backend b { ops nn.relu, tanhh; }"),
            "bad.pat:1:26: error: unknown operator 'tanhh' (did you mean 'tanh'?)");
  EXPECT_EQ(FileError("nonsense"),
            "bad.pat:1:1: error: expected 'pattern', 'rule' or 'backend', got 'nonsense'");
  EXPECT_EQ(PatternError("nn.relu(_) extra"),
            "bad.pat:1:12: error: expected the end of the pattern, got 'extra'");
  EXPECT_EQ(PatternError("fn (_) { _"), "bad.pat:1:11: error: expected '}', got end of file");
  EXPECT_EQ(PatternError("nn.relu?()"),
            "bad.pat:1:1: error: an optional call needs its optional input as first argument");
}

// One malformed use of each construct of patterns.md section 2, with the
// exact position of the error.
TEST_F(DslTest, EachConstructHasAnErrorAtItsPosition) {
  const std::pair<const char*, const char*> cases[] = {
      {"?", "bad.pat:1:2: error: expected a capture name after '?', got end of file"},
      {"var(x)", "bad.pat:1:5: error: expected a variable name in quotes, got 'x'"},
      {"1.5", "bad.pat:1:1: error: float literal '1.5' needs a suffix: write '1.5f'"},
      {"nn.relu(_", "bad.pat:1:10: error: expected ',' or ')', got end of file"},
      {"nn.relu(_, alpha=)", "bad.pat:1:18: error: expected a value, got ')'"},
      {"nn.relu?(_", "bad.pat:1:11: error: expected ',' or ')', got end of file"},
      {"(_, _", "bad.pat:1:6: error: expected ')', got end of file"},
      {"_.x", "bad.pat:1:3: error: expected a field index or '_' after '.', got 'x'"},
      {"if (_) { _ }", "bad.pat:1:13: error: expected 'else', got end of file"},
      {"let ?v = _ ?v", "bad.pat:1:12: error: expected ';' after the let value, got '?'"},
      {"fn (_) _", "bad.pat:1:8: error: expected '{' before the function body, got '_'"},
      {"_ |", "bad.pat:1:4: error: expected a pattern, got end of file"},
      {"_ as x", "bad.pat:1:6: error: expected '?name' after 'as', got 'x'"},
      {"_ : Tensor[(1, 2) float32]", "bad.pat:1:19: error: expected ',', got 'float32'"},
      {"_ : Tensor[(1, x), float32]", "bad.pat:1:16: error: expected a dimension (an extent, '_' or '?')"},
      {"dominates(_, _)", "bad.pat:1:15: error: expected ',', got ')'"},
      {"has_attr(_, 1)", "bad.pat:1:13: error: expected an attribute name, got '1'"},
      {"nn.relu(?x) where rank(?x ==", "bad.pat:1:27: error: expected ')', got '=='"},
      {"nn.relu(?x) where dtype(?x) in [float32", "bad.pat:1:40: error: expected ']', got end of file"},
      {"nn.relu(?x) where ?x is fish", "bad.pat:1:25: error: expected 'const', 'var', 'call', 'tuple' or 'fn' after 'is', got 'fish'"},
  };
  for (const auto& [text, error] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(PatternError(text), error);
  }
  const std::pair<const char*, const char*> file_cases[] = {
      {"pattern = _;", "bad.pat:1:9: error: expected a pattern name, got '='"},
      {"pattern p _;", "bad.pat:1:11: error: expected '=', got '_'"},
      {"pattern p = _", "bad.pat:1:14: error: expected ';' after the pattern, got end of file"},
      {"rule r = nn.relu(?x);", "bad.pat:1:21: error: expected '=>' and the replacement, got ';'"},
      {"rule r = nn.relu(?x) => nn.relu(?x, alpha=);", "bad.pat:1:43: error: expected a value, got ')'"},
      {"backend b ops nn.relu;", "bad.pat:1:11: error: expected '{' to start the backend, got 'ops'"},
      {"backend b { ops ; }", "bad.pat:1:17: error: expected an operator name, got ';'"},
      {"backend b { op nn.relu where; }", "bad.pat:1:29: error: expected a value, got ';'"},
      {"backend b { composite c nn.relu(_); }", "bad.pat:1:25: error: expected '=', got 'nn'"},
      {"backend b { frob; }", "bad.pat:1:13: error: expected 'ops', 'op', 'composite' or '}', got 'frob'"},
      {"backend b { ops nn.relu; ", "bad.pat:1:26: error: expected '}' to end the backend, got end of file"},
  };
  for (const auto& [text, error] : file_cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(FileError(text), error);
  }
}

TEST_F(DslTest, UnknownOpsSuggestTheNearestOp) {
  EXPECT_EQ(PatternError("nn.reluu(_)"),
            "bad.pat:1:1: error: unknown operator or pattern 'nn.reluu' (did you mean 'nn.relu'?)");
  EXPECT_EQ(PatternError("nn.relu(nn.bias_ad(_, _))"),
            "bad.pat:1:9: error: unknown operator or pattern 'nn.bias_ad' (did you mean "
            "'nn.bias_add'?)");
  EXPECT_EQ(FileError("backend b {\n  ops nn.relu,\n      conv2d;\n}"),
            "bad.pat:3:7: error: unknown operator 'conv2d' (did you mean 'nn.conv2d'?)");
}

TEST_F(DslTest, RuleReplacementsMayOnlyUseBoundCaptures) {
  // Rejected when the file is loaded, at the unbound capture.
  EXPECT_EQ(FileError("rule r = add(?a, ?b) => subtract(?a, ?c);"),
            "bad.pat:1:38: error: the replacement uses ?c, which the pattern does not bind");
  // A capture bound only inside one alternative is not bound on every match.
  EXPECT_EQ(FileError("rule r = nn.relu(?x) | tanh(_) => exp(?x);"),
            "bad.pat:1:39: error: the replacement uses ?x, which the pattern binds only on some "
            "matches (in one alternative or on a dominator's path)");
  // An optional call binds its input either way.
  EXPECT_TRUE(ParsePatternFile("ok.pat", "rule r = nn.relu?(exp(?x)) => exp(?x);").ok());
  // Captures of a named pattern the rule uses are bound.
  auto lib = ParsePatternFile("ok.pat", "pattern cb = nn.bias_add(?c, ?b);\n"
                                        "rule r = nn.relu(cb) => add(?c, ?b);");
  EXPECT_TRUE(lib.ok()) << RenderStatus(lib.status());
}

TEST_F(DslTest, SeveralErrorsAreReportedInOneRun) {
  auto lib = ParsePatternFile("multi.pat",
                              "pattern a = nn.rlu(_);\npattern b = _;\n"
                              "pattern c = tanh(;\nrule r = _ => ?z;\n");
  ASSERT_FALSE(lib.ok());
  std::vector<Diagnostic> diags = StatusToDiagnostics(lib.status());
  ASSERT_EQ(diags.size(), 3u) << RenderStatus(lib.status());
  EXPECT_THAT(RenderStatus(lib.status()), HasSubstr("multi.pat:3:18: error"));
  EXPECT_THAT(RenderStatus(lib.status()), HasSubstr("multi.pat:4:15: error"));
}

TEST_F(DslTest, PrinterRejectsWhatTheLanguageCannotSay) {
  EXPECT_FALSE(PrintPattern(IsExpr(x_)).ok());
  EXPECT_FALSE(PrintPattern(IsOp("nope")).ok());
  // A builder diamond shares `conv` without a name: text cannot say that...
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  auto diamond = PrintPattern(IsOp("add")(IsOp("nn.relu")(conv), IsOp("tanh")(conv)));
  EXPECT_THAT(std::string(diamond.status().message()), HasSubstr("shared call sub-pattern"));
  // ...until it is captured.
  Pattern captured = conv.As("c");
  auto printed = PrintPattern(IsOp("add")(IsOp("nn.relu")(captured), IsOp("tanh")(captured)));
  ASSERT_TRUE(printed.ok());
  EXPECT_EQ(*printed, "add(nn.relu(nn.conv2d(_, _) as ?c), tanh(?c))");
  EXPECT_EQ(RoundTrip(*printed), *printed);
}

// A directory is no pattern file (an ifstream read it as an empty library).
TEST(DslFile, ADirectoryIsAnError) {
  absl::StatusOr<PatternLibrary> lib = LoadPatternFile(::testing::TempDir());
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().message(), "cannot read '" + ::testing::TempDir() + "': Is a directory");
}

}  // namespace
}  // namespace carve::testing
