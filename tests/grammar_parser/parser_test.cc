// The Relay text parser on valid input: every construct of the grammar, the
// literal forms, TVM's precedence table, projections, names and attributes.
#include "grammar/parser.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "test_util.h"

namespace carve {
namespace {

using testing_util::Diagnostics;
using testing_util::Sexp;

// Parses an expression into a scratch module; "" with the diagnostics on
// failure (rendered), else its Sexp.
std::string E(const std::string& text) {
  Module module;
  auto e = ParseExpr("test", text, module);
  if (!e.ok()) return "ERROR: " + Diagnostics(e);
  return Sexp(*e);
}

absl::StatusOr<Module> M(const std::string& body) {
  return ParseModule("test", "#[version = \"0.0.5\"]\n" + body);
}

// TVM's test_ir_parser.py test_ref: the three reference forms, nested.
TEST(ParseReferences, Forms) {
  EXPECT_EQ(E("ref(1f)"), "ref(float32:1)");
  EXPECT_EQ(E("ref_read(ref(1f))"), "ref_read(ref(float32:1))");
  EXPECT_EQ(E("let %r = ref(1f); ref_write(%r, ref_read(%r))"),
            "let %r = ref(float32:1); ref_write(%r, ref_read(%r))");
  // A reference is an atom for postfix projection, as in TVM.
  EXPECT_EQ(E("ref_read(ref((1f, 2f))).1"), "ref_read(ref((float32:1, float32:2))).1");
}

TEST(ParseLiterals, ScalarForms) {
  EXPECT_EQ(E("5"), "int32:5");
  EXPECT_EQ(E("-5"), "int32:-5");
  EXPECT_EQ(E("--5"), "int32:5");
  EXPECT_EQ(E("3000000000"), "int64:3000000000");
  EXPECT_EQ(E("5i16"), "int16:5");
  EXPECT_EQ(E("5i64"), "int64:5");
  EXPECT_EQ(E("-7i8"), "int8:-7");
  EXPECT_EQ(E("200u8"), "uint8:200");
  EXPECT_EQ(E("1.5f"), "float32:1.5");
  EXPECT_EQ(E("1e-05f"), "float32:1e-05");
  EXPECT_EQ(E("0.5f16"), "float16:0.5");
  EXPECT_EQ(E("0.001f64"), "float64:0.001");
  EXPECT_EQ(E("-inff"), "float32:-inf");
  EXPECT_EQ(E("True"), "bool:1");
  EXPECT_EQ(E("False"), "bool:0");
}

TEST(ParseLiterals, ExactInt64Values) {
  Module module;
  auto e = ParseExpr("test", "9223372036854775807i64", module);
  ASSERT_TRUE(e.ok()) << Diagnostics(e);
  EXPECT_EQ(Cast<Constant>(*e)->data().data<int64_t>()[0], INT64_MAX);
}

TEST(ParseOperators, PrecedenceTable) {
  // tvm-reference.md 1.6, both test_op_assoc cases.
  EXPECT_EQ(E("1 * 1 + 1 < 1 == 1"),
            "equal(less(add(multiply(int32:1, int32:1), int32:1), int32:1), int32:1)");
  EXPECT_EQ(E("1 == 1 < 1 + 1 * 1"),
            "equal(int32:1, less(int32:1, add(int32:1, multiply(int32:1, int32:1))))");
  EXPECT_EQ(E("1 - 2 - 3"), "subtract(subtract(int32:1, int32:2), int32:3)");
  EXPECT_EQ(E("8 / 4 * 2"), "multiply(divide(int32:8, int32:4), int32:2)");
  EXPECT_EQ(E("(1 + 2) * 3"), "multiply(add(int32:1, int32:2), int32:3)");
  EXPECT_EQ(E("1 <= 2 != 3 >= 4"),
            "not_equal(less_equal(int32:1, int32:2), greater_equal(int32:3, int32:4))");
  EXPECT_EQ(E("1 > 2"), "greater(int32:1, int32:2)");
}

TEST(ParseOperators, PostfixBindsTighterThanInfix) {
  EXPECT_EQ(E("free_var %t; free_var %f; %t.0 + %f(1)"), "add(%t.0, %f(int32:1))");
}

TEST(ParseOperators, LongChainsAreIterative) {
  std::string text = "1";
  for (int i = 0; i < 100000; ++i) text += " + 1";
  Module module;
  auto e = ParseExpr("test", text, module);
  ASSERT_TRUE(e.ok()) << Diagnostics(e);
  EXPECT_EQ(PostOrder(*e).size(), 100001u + 100000u + 1);  // constants, calls, op
}

TEST(ParseProjections, Chains) {
  EXPECT_EQ(E("free_var %x; %x.0"), "%x.0");
  EXPECT_EQ(E("free_var %x; %x.0.1"), "%x.0.1");
  EXPECT_EQ(E("free_var %x; %x.1.0.2"), "%x.1.0.2");
  EXPECT_EQ(E("free_var %a; free_var %b; (%a, %b).1"), "(%a, %b).1");
  EXPECT_EQ(E("free_var %f; %f(1).0"), "%f(int32:1).0");
  EXPECT_EQ(E("free_var %f; %f(1)(2).3(4)"), "%f(int32:1)(int32:2).3(int32:4)");
  EXPECT_EQ(E("(1,).0"), "(int32:1,).0");
}

TEST(ParseNames, DottedAndDashedVariables) {
  EXPECT_EQ(E("free_var %conv1.weight; %conv1.weight"), "%conv1.weight");
  EXPECT_EQ(E("free_var %conv1.weight; %conv1.weight.0"), "%conv1.weight.0");
  EXPECT_EQ(E("free_var %base/x; %base/x"), "%base/x");
  EXPECT_EQ(E("free_var %byoc-target_0_i0; %byoc-target_0_i0"), "%byoc-target_0_i0");
  EXPECT_EQ(E("free_var %a; free_var %b; %a - %b"), "subtract(%a, %b)");
}

TEST(ParseNames, DottedOpNames) {
  EXPECT_EQ(E("free_var %x; nn.relu(%x)"), "nn.relu(%x)");
  EXPECT_EQ(E("nn.relu"), "nn.relu");
}

TEST(ParseStatements, LetChainsAndSequencing) {
  EXPECT_EQ(E("let %x = 1; let %y = add(%x, %x); %y"),
            "let %x = int32:1; let %y = add(%x, %x); %y");
  EXPECT_EQ(E("1; 2"), "let % = int32:1; int32:2");
  EXPECT_EQ(E("let %x: int32 = 1; { let %x = 2; %x }"), "let %x = int32:1; let %x = int32:2; %x");
}

TEST(ParseStatements, GraphBindingsShareNodes) {
  Module module;
  auto e = ParseExpr("test", "free_var %x; %0 = add(%x, %x); %1 = multiply(%0, %0); %1", module);
  ASSERT_TRUE(e.ok()) << Diagnostics(e);
  const Call* mul = DynCast<Call>(*e);
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(Sexp(mul), "multiply(add(%x, %x), add(%x, %x))");
  EXPECT_EQ(mul->args()[0], mul->args()[1]);  // one node, two uses
}

TEST(ParseStatements, MillionBindingChainsUseConstantStack) {
  std::string graph = "free_var %x; %0 = add(%x, %x);\n";
  std::string lets = "free_var %x; let %v0 = add(%x, %x);\n";
  for (int i = 1; i < 1000000; ++i) {
    graph += fmt::format("%{} = add(%{}, %x);\n", i, i - 1);
    lets += fmt::format("let %v{} = add(%v{}, %x);\n", i, i - 1);
  }
  graph += "%999999";
  lets += "%v999999";
  Module module;
  auto g = ParseExpr("graph", graph, module);
  ASSERT_TRUE(g.ok()) << Diagnostics(g);
  EXPECT_TRUE(IsOpCall(*g, "add"));
  auto l = ParseExpr("lets", lets, module);
  ASSERT_TRUE(l.ok()) << Diagnostics(l);
  EXPECT_TRUE(Isa<Let>(*l));
}

TEST(ParseExpressions, TuplesAndGrouping) {
  EXPECT_EQ(E("()"), "()");
  EXPECT_EQ(E("(1,)"), "(int32:1,)");
  EXPECT_EQ(E("(1, 2)"), "(int32:1, int32:2)");
  EXPECT_EQ(E("(1, 2,)"), "(int32:1, int32:2)");
  EXPECT_EQ(E("(1)"), "int32:1");
  EXPECT_EQ(E("((), ((1,),))"), "((), ((int32:1,),))");
}

TEST(ParseExpressions, IfAndFunctions) {
  EXPECT_EQ(E("if (True) { 1 } else { 2 }"), "if(bool:1){int32:1}{int32:2}");
  EXPECT_EQ(E("fn (%x: int32, %y) -> int32 { add(%x, %y) }"), "fn(%x, %y){add(%x, %y)}");
  EXPECT_EQ(E("fn (%x) { %x }(1)"), "fn(%x){%x}(int32:1)");
  EXPECT_EQ(E("fn () { () }"), "fn(){()}");
  // A let-bound function sees itself (recursion through let, as TVM).
  EXPECT_EQ(E("let %f = fn (%n) { %f(%n) }; %f(1)"), "let %f = fn(%n){%f(%n)}; %f(int32:1)");
}

TEST(ParseExpressions, FunctionTypesAndAttributes) {
  Module module;
  auto e = ParseExpr("test",
                     "fn [T](%x: T, %y: Tensor[(?, 3i64, 2), float16], Composite=\"dnnl.conv\", "
                     "Primitive=1, relay.reshape_only=True, note=\"a\\\"b\\\\c\\n\") -> T { %x }",
                     module);
  ASSERT_TRUE(e.ok()) << Diagnostics(e);
  const Function* fn = Cast<Function>(*e);
  ASSERT_EQ(fn->type_params().size(), 1u);
  EXPECT_EQ(fn->params()[0]->annotation(), fn->type_params()[0]);
  EXPECT_EQ(fn->ret_type(), fn->type_params()[0]);
  EXPECT_EQ(TypeToString(fn->params()[1]->annotation()), "Tensor[(?, 3i64, 2), float16]");
  std::vector<std::string> attrs;
  for (const AttrEntry& entry : fn->attrs()->entries()) {
    attrs.push_back(std::string(entry.key) + "=" + AttrValueToString(entry.value));
  }
  EXPECT_THAT(attrs, ::testing::ElementsAre("Composite=\"dnnl.conv\"", "Primitive=1",
                                            "relay.reshape_only=1", "note=\"a\\\"b\\\\c\\n\""));
  EXPECT_EQ(fn->GetStringAttr("note"), "a\"b\\c\n");
}

TEST(ParseTypes, AllForms) {
  auto type_of = [](const std::string& type) {
    Module module;
    auto e = ParseExpr("test", "fn (%x: " + type + ") { %x }", module);
    if (!e.ok()) return "ERROR: " + Diagnostics(e);
    return TypeToString(Cast<Function>(*e)->params()[0]->annotation());
  };
  EXPECT_EQ(type_of("Tensor[(1, 3, 224, 224), float32]"), "Tensor[(1, 3, 224, 224), float32]");
  EXPECT_EQ(type_of("Tensor[(), float32]"), "float32");
  EXPECT_EQ(type_of("Tensor[(1), int8]"), "Tensor[(1), int8]");
  EXPECT_EQ(type_of("Tensor[(?, 2), bool]"), "Tensor[(?, 2), bool]");
  EXPECT_EQ(type_of("int8x4"), "int8x4");
  EXPECT_EQ(type_of("uint1x4"), "uint1x4");
  EXPECT_EQ(type_of("bfloat16"), "bfloat16");
  EXPECT_EQ(type_of("()"), "()");
  EXPECT_EQ(type_of("(int32,)"), "(int32,)");
  EXPECT_EQ(type_of("(int32)"), "int32");
  EXPECT_EQ(type_of("(int32, (float32, bool))"), "(int32, (float32, bool))");
  EXPECT_EQ(type_of("fn (int32, float32) -> bool"), "fn (int32, float32) -> bool");
  EXPECT_EQ(type_of("fn () -> ()"), "fn () -> ()");
  EXPECT_EQ(type_of("_").substr(0, 1), "_");
  EXPECT_EQ(type_of("fn [A](A) -> A"), "fn [A](A) -> A");
}

TEST(ParseTypes, TypeVariablesAndSpacedArrows) {
  Module module;
  auto e = ParseExpr("test", "fn [A, B](%x: A, %y: (B, A)) - > B { %y.0 }", module);
  ASSERT_TRUE(e.ok()) << Diagnostics(e);
  const Function* fn = Cast<Function>(*e);
  ASSERT_EQ(fn->type_params().size(), 2u);
  EXPECT_EQ(fn->ret_type(), fn->type_params()[1]);
  const TupleType* pair = DynCast<TupleType>(fn->params()[1]->annotation());
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->fields()[1], fn->type_params()[0]);
  // Incomplete types are each distinct holes.
  auto holes = ParseExpr("test", "fn (%a: _, %b: _) { %a }", module);
  ASSERT_TRUE(holes.ok()) << Diagnostics(holes);
  const Function* h = Cast<Function>(*holes);
  EXPECT_NE(h->params()[0]->annotation(), h->params()[1]->annotation());
}

TEST(ParseCalls, OpAttributesFollowTheSchema) {
  Module module;
  auto e = ParseExpr("test",
                     "free_var %x; free_var %w;"
                     "nn.conv2d(%x, %w, strides=2, padding=[1, 1, 1, 1], channels=8i64, "
                     "kernel_size=[3i64, 3i64], data_layout=\"NHWC\", out_dtype=\"float\")",
                     module);
  ASSERT_TRUE(e.ok()) << Diagnostics(e);
  const Attrs* attrs = Cast<Call>(*e)->attrs();
  ASSERT_EQ(attrs->schema(), FindAttrsSchema("relay.attrs.Conv2DAttrs"));
  ASSERT_EQ(attrs->entries().size(), attrs->schema()->fields.size());
  std::vector<std::string> fields;
  for (const AttrEntry& entry : attrs->entries()) {
    fields.push_back(std::string(entry.key) + "=" + AttrValueToString(entry.value));
  }
  // Every field in schema order; a single int wrapped into a list (as TVM);
  // dtypes normalised; int64 literals keep their width.
  EXPECT_THAT(fields, ::testing::ElementsAre(
                          "strides=[2]", "padding=[1, 1, 1, 1]", "dilation=[1, 1]", "groups=1",
                          "channels=8i64", "kernel_size=[3i64, 3i64]", "data_layout=\"NHWC\"",
                          "kernel_layout=\"OIHW\"", "out_layout=\"\"", "out_dtype=\"float32\""));
}

TEST(ParseCalls, AttributeConversions) {
  Module module;
  auto attrs = [&](const std::string& call) -> const Attrs* {
    auto e = ParseExpr("test", "free_var %x; free_var %w; " + call, module);
    if (!e.ok()) {
      ADD_FAILURE() << Diagnostics(e);
      return nullptr;
    }
    return Cast<Call>(*e)->attrs();
  };
  const Attrs* leaky = attrs("nn.leaky_relu(%x, alpha=1)");
  ASSERT_NE(leaky, nullptr);
  EXPECT_EQ(leaky->Find("alpha")->kind(), AttrValue::Kind::kFloat);
  EXPECT_EQ(leaky->GetFloat("alpha"), 1.0);
  const Attrs* pool = attrs("nn.max_pool2d(%x, pool_size=[2, 2], ceil_mode=1)");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(*pool->Find("ceil_mode"), AttrValue::Bool(true));
  const Attrs* dense = attrs("nn.dense(%x, %w, units=None)");
  ASSERT_NE(dense, nullptr);
  EXPECT_TRUE(dense->Find("units")->is_null());
  const Attrs* no_attrs = attrs("nn.dense(%x, %w)");
  ASSERT_NE(no_attrs, nullptr);
  EXPECT_TRUE(no_attrs->Find("units")->is_null());                   // required, left null
  const Attrs* comma_free = attrs("clip(%x, a_min=0f a_max=(6f))");  // TVM: commas optional
  ASSERT_NE(comma_free, nullptr);
  EXPECT_EQ(comma_free->GetFloat("a_max"), 6.0);
  const Attrs* pad = attrs("nn.pad(%x, %w, pad_width=[[0, 0], [1, 1]])");
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(AttrValueToString(*pad->Find("pad_width")), "[[0, 0], [1, 1]]");
  EXPECT_EQ(attrs("nn.relu(%x)"), nullptr);  // ops without a schema carry no attrs
}

TEST(ParseCalls, NonOpCalleesKeepDictionaries) {
  Module module;
  auto e = ParseExpr("test",
                     "free_var %f; %f(1, units=None, flag=True, attrs_type_key=\"relay.attrs."
                     "DenseAttrs\")",
                     module);
  ASSERT_TRUE(e.ok()) << Diagnostics(e);
  const Attrs* attrs = Cast<Call>(*e)->attrs();
  ASSERT_NE(attrs, nullptr);
  EXPECT_EQ(attrs->schema(), nullptr);
  ASSERT_EQ(attrs->entries().size(), 3u);
  EXPECT_EQ(attrs->entries()[0].key, "units");
  EXPECT_TRUE(attrs->entries()[0].value.is_null());
  EXPECT_EQ(attrs->entries()[1].value, AttrValue::Int(1));
  // The type key stays, last, as TVM prints it (test_call_attrs).
  EXPECT_EQ(attrs->entries()[2].key, "attrs_type_key");
  EXPECT_EQ(attrs->entries()[2].value, AttrValue::Str("relay.attrs.DenseAttrs"));
}

TEST(ParseCalls, CompilerAttrsInlineOrFromMetadata) {
  auto m = M(R"(def @main(%x: int32) {
  %0 = annotation.compiler_begin(%x, compiler="dnnl");
  annotation.compiler_end(%0, meta[relay.attrs.CompilerAttrs][0])
}
#[metadata]
{"root": 1, "nodes": [{"type_key": ""},
  {"type_key": "Map", "keys": ["relay.attrs.CompilerAttrs"], "data": [2]},
  {"type_key": "Array", "data": [3]},
  {"type_key": "relay.attrs.CompilerAttrs", "attrs": {"compiler": "dnnl"}}],
 "b64ndarrays": [], "attrs": {"tvm_version": "0.16.0"}})");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  const Call* end = Cast<Call>(m->Lookup("main")->body());
  const Call* begin = Cast<Call>(end->args()[0]);
  EXPECT_EQ(begin->attrs(), end->attrs());  // interned: the same attribute set
  EXPECT_EQ(end->attrs()->GetString("compiler"), "dnnl");
}

TEST(ParseModules, DefinitionsForwardReferencesAndMutualRecursion) {
  auto m = M(R"(
def @main(%x: int32) -> int32 { @even(%x) }
def @even(%n: int32) -> int32 { if (equal(%n, 0)) { 1 } else { @odd(subtract(%n, 1)) } }
def @odd(%n: int32) -> int32 { if (equal(%n, 0)) { 0 } else { @even(subtract(%n, 1)) } }
)");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  EXPECT_EQ(m->size(), 3u);
  EXPECT_EQ(Cast<Call>(m->Lookup("main")->body())->callee(), m->FindGlobalVar("even"));
}

TEST(ParseModules, BareExpressionsBecomeMain) {
  auto fn = M("fn (%x: int32) -> int32 { add(%x, 1) }");
  ASSERT_TRUE(fn.ok()) << Diagnostics(fn);
  ASSERT_EQ(fn->size(), 1u);
  EXPECT_EQ(Sexp(fn->Lookup("main")), "fn(%x){add(%x, int32:1)}");
  auto free = M("free_var %a: int32;\nfree_var %b: int32;\nadd(%a, %b)");
  ASSERT_TRUE(free.ok()) << Diagnostics(free);
  EXPECT_EQ(Sexp(free->Lookup("main")), "fn(%a, %b){add(%a, %b)}");
  auto empty = M("");
  ASSERT_TRUE(empty.ok()) << Diagnostics(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(ParseModules, VersionIsOptionalWhenAsked) {
  ParseOptions options;
  options.require_version = false;
  auto m = ParseModule("test", "def @main() { () }", options);
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  Module module;
  EXPECT_TRUE(ParseExpr("test", "#[version = \"0.0.5\"] 1", module).ok());
}

TEST(ParseModules, MetadataMarkerInACommentIsNotTheSection) {
  // The byte search finds the commented marker first; the parse is redone
  // with the section the lexer really reaches.
  auto m = M(R"(/*
#[metadata]
*/
def @main() { meta[relay.Constant][0] }
#[metadata]
{"root": 1, "nodes": [{"type_key": ""},
  {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
  {"type_key": "Array", "data": [3]},
  {"type_key": "relay.Constant", "attrs": {"data": "0"}}],
 "b64ndarrays": ["P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAAAIAQABAAAAAAAAAP0="]})");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  EXPECT_EQ(Sexp(m->Lookup("main")->body()), "int8:-3");
}

TEST(ParseModules, SpansPointIntoTheSource) {
  auto m = M("def @main(%x: int32) {\n  add(%x, 1) /* ty=int32 */\n}\n");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  const Function* main = m->Lookup("main");
  const Call* add = Cast<Call>(main->body());
  const SourceFile* file = SourceManager::Global().Get(add->span().file);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->name(), "test");
  EXPECT_EQ(file->text().substr(add->span().begin, add->span().end - add->span().begin),
            "add(%x, 1)");
  LineCol lc = file->Resolve(add->span().begin);
  EXPECT_EQ(lc.line, 3u);
  EXPECT_EQ(lc.column, 3u);
  EXPECT_EQ(file->text().substr(main->params()[0]->span().begin, 2), "%x");
  EXPECT_EQ(file->text().substr(add->args()[1]->span().begin, 1), "1");
  EXPECT_TRUE(main->span().valid());
}

TEST(ParseModules, Files) {
  auto m = ParseModuleFile(testing_util::CorpusPath("mlp.relay"));
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  const Function* main = m->Lookup("main");
  ASSERT_NE(main, nullptr);
  const SourceFile* file = SourceManager::Global().Get(main->span().file);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->name(), testing_util::CorpusPath("mlp.relay"));
  auto missing = ParseModuleFile("/nonexistent/model.relay");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "cannot read '/nonexistent/model.relay': No such file or directory");
  // A directory is no module (an ifstream read it as an empty text, which
  // was then blamed for a missing version line).
  auto dir = ParseModuleFile(testing::TempDir());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(dir.status().message(), "cannot read '" + testing::TempDir() + "': Is a directory");
}

TEST(ParseModules, CommentsAnywhere) {
  auto m =
      M("// leading\ndef /* a */ @main /* b */ ( /* c */ %x /* d */ : /* e */ int32 ) "
        "/* f */ { /* g /* nested */ */ add /* h */ (%x, /* i */ 1) // j\n }");
  ASSERT_TRUE(m.ok()) << Diagnostics(m);
  EXPECT_EQ(Sexp(m->Lookup("main")->body()), "add(%x, int32:1)");
}

TEST(ParseModules, NestingUpToTheLimitIsFine) {
  std::string text(kMaxNestingDepth - 10, '(');
  text += "1";
  text += std::string(kMaxNestingDepth - 10, ')');
  EXPECT_EQ(E(text), "int32:1");
}

}  // namespace
}  // namespace carve
