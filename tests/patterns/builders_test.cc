// The pattern IR and its builders (TVM test_dataflow_pattern.py node tests:
// test_expr_pattern ... test_LetPattern), construction errors, compilation.
#include "patterns/builders.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "patterns/compile.h"
#include "patterns/predicate.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

using BuildersTest = PatternTest;

TEST_F(BuildersTest, ExprVarConstantWildcard) {
  const Var* x = V("x", F32({4, 1}));
  Pattern ep = IsExpr(x);
  ASSERT_TRUE(Isa<ExprPattern>(ep.get()));
  EXPECT_EQ(Cast<ExprPattern>(ep.get())->expr(), x);
  Pattern v = IsVar("x");
  ASSERT_TRUE(Isa<VarPattern>(v.get()));
  EXPECT_EQ(Cast<VarPattern>(v.get())->name(), "x");
  EXPECT_TRUE(Isa<ConstantPattern>(IsConstant().get()));
  EXPECT_TRUE(Isa<WildcardPattern>(Wildcard().get()));
}

TEST_F(BuildersTest, CallAndFunctionPatterns) {
  Pattern wc1 = Wildcard(), wc2 = Wildcard();
  Pattern c = IsOp("add")(wc1, wc2);
  const auto* call = DynCast<CallPattern>(c.get());
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op(), FindOp("add"));
  EXPECT_EQ(call->args()[0], wc1);
  EXPECT_EQ(call->args()[1], wc2);
  EXPECT_FALSE(call->any_args());
  EXPECT_TRUE(Cast<CallPattern>(Wildcard().CallAnyArgs().get())->any_args());

  Pattern f = IsFunction({wc1, wc2}, c);
  const auto* fn = DynCast<FunctionPattern>(f.get());
  ASSERT_NE(fn, nullptr);
  ASSERT_EQ(fn->params().size(), 2u);
  EXPECT_EQ(fn->params()[0], wc1);
  EXPECT_EQ(fn->body(), c);
  EXPECT_TRUE(Cast<FunctionPattern>(IsFunctionAnyParams(c).get())->any_params());
}

TEST_F(BuildersTest, TupleAndProjection) {
  Pattern wc1 = Wildcard(), wc2 = Wildcard();
  Pattern t = IsTuple({wc1, wc2});
  ASSERT_EQ(Cast<TuplePattern>(t.get())->fields().size(), 2u);
  Pattern tgi = IsTupleGetItem(t, 1);
  const auto* g = DynCast<TupleGetItemPattern>(tgi.get());
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->tuple(), t);
  EXPECT_EQ(g->index(), 1);
  EXPECT_EQ(Cast<TupleGetItemPattern>(IsTupleGetItem(t).get())->index(), -1);
  EXPECT_TRUE(Cast<TuplePattern>(IsAnyTuple().get())->any_fields());
}

TEST_F(BuildersTest, AltAndConstraints) {
  Pattern alt = IsOp("add") | IsOp("subtract");
  EXPECT_TRUE(Isa<AltPattern>(alt.get()));
  const TensorType* t = F32({10, 10});
  EXPECT_EQ(Cast<TypePattern>(HasType(t).get())->type(), t);
  EXPECT_EQ(Cast<DTypePattern>(HasDType("float16").get())->dtype(), DataType::Float(16));
  Pattern shape_pattern = HasShape({10, 10});
  const auto* shape = Cast<ShapePattern>(shape_pattern.get());
  ASSERT_EQ(shape->dims().size(), 2u);
  EXPECT_EQ(shape->dims()[0], DimPattern(10));
  Pattern attr = IsOp("add").HasAttr({{"TOpPattern", AttrValue::Int(0)}});
  const auto* a = DynCast<AttrPattern>(attr.get());
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->attrs().size(), 1u);
  EXPECT_EQ(a->attrs()[0].key, "TOpPattern");
}

TEST_F(BuildersTest, IfAndLet) {
  Pattern x = IsVar("x"), y = IsVar("y");
  Pattern i = IsIf(IsOp("less")(x, y), x, y);
  const auto* ip = DynCast<IfPattern>(i.get());
  ASSERT_NE(ip, nullptr);
  EXPECT_TRUE(Isa<CallPattern>(ip->cond().get()));
  EXPECT_EQ(ip->then_branch(), x);
  Pattern let_var = IsVar("let");
  Pattern l = IsLet(let_var, IsOp("less")(x, y), let_var);
  const auto* lp = DynCast<LetPattern>(l.get());
  ASSERT_NE(lp, nullptr);
  EXPECT_EQ(lp->var(), let_var);
  EXPECT_EQ(lp->body(), let_var);
}

TEST_F(BuildersTest, OptionalIsAnAlternationOfThePatternAndTheWrappedPattern) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern opt = conv.Optional([](const Pattern& p) { return IsOp("nn.relu")(p); });
  const auto* alt = DynCast<AltPattern>(opt.get());
  ASSERT_NE(alt, nullptr);
  EXPECT_EQ(alt->left(), conv);
  EXPECT_EQ(Cast<CallPattern>(alt->right().get())->args()[0], conv);
}

TEST_F(BuildersTest, UnknownOpIsADeferredErrorWithASuggestion) {
  Pattern bad = IsOp("nn.conv2dd");
  EXPECT_FALSE(bad.status().ok());
  Pattern composed = IsOp("nn.relu")(bad(Wildcard(), Wildcard())).HasAttr({});
  absl::Status s = composed.status();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("unknown operator 'nn.conv2dd'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("did you mean 'nn.conv2d'"));
  auto compiled = CompilePattern(composed);
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(MatchPattern(composed, V("x")));
  EXPECT_FALSE(HasDType("floot32").status().ok());
}

TEST_F(BuildersTest, CompilationNumbersNodesInPostOrderAndSharesNodes) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern diamond = IsOp("add")(IsOp("nn.relu")(conv), IsOp("nn.leaky_relu")(conv));
  auto compiled = CompilePattern(diamond);
  ASSERT_TRUE(compiled.ok());
  const CompiledPattern& c = **compiled;
  // add, relu, leaky_relu (+ their op nodes), conv, conv's op and 2 wildcards.
  EXPECT_EQ(c.num_source_nodes(), 10u);
  EXPECT_EQ(c.root(), c.num_source_nodes() - 1);
  for (uint32_t id = 0; id < c.num_source_nodes(); ++id) {
    for (uint32_t child : c.children(id)) EXPECT_LT(child, id);
  }
  EXPECT_TRUE(c.IdOf(conv.get()).has_value());
}

TEST_F(BuildersTest, CompilationRejectsAmbiguousCapturesAndUnboundWhereNames) {
  Pattern two = IsOp("add")(Capture("x"), Capture("x"));
  EXPECT_THAT(std::string(CompilePattern(two).status().message()),
              HasSubstr("capture ?x names two different sub-patterns"));
  Pattern x = Capture("x");
  EXPECT_TRUE(CompilePattern(IsOp("add")(x, x)).ok());

  auto pred = Predicate::Compare(PredicateTerm::Rank("y"), CompareOp::kEq,
                                 PredicateTerm::Literal(AttrValue::Int(2)));
  Pattern where = IsOp("nn.relu")(Capture("x")).Where(pred);
  EXPECT_THAT(std::string(CompilePattern(where).status().message()),
              HasSubstr("where clause uses ?y"));
}

TEST_F(BuildersTest, RootFilterIndexesByOp) {
  auto compiled = CompilePattern(IsOp("nn.relu")(Wildcard()) | IsOp("tanh")(Wildcard()));
  ASSERT_TRUE(compiled.ok());
  const RootFilter& f = (*compiled)->root_filter();
  const Var* x = V("x");
  EXPECT_TRUE(f.Admits(Op("nn.relu", {x})));
  EXPECT_TRUE(f.Admits(Op("tanh", {x})));
  EXPECT_FALSE(f.Admits(Op("exp", {x})));
  EXPECT_FALSE(f.Admits(x));
  // Re-association lets a divide pattern match a multiply.
  auto bn = CompilePattern(IsOp("divide")(IsOp("multiply")(Wildcard(), Wildcard()), Wildcard()));
  ASSERT_TRUE(bn.ok());
  EXPECT_TRUE((*bn)->root_filter().Admits(Op("multiply", {x, x})));
  EXPECT_TRUE(CompilePattern(Wildcard()).value()->root_filter().admits_everything());
}

TEST_F(BuildersTest, PatternSetCandidatesInPriorityOrder) {
  auto set = PatternSet::Build({{"relu", IsOp("nn.relu")(Wildcard())},
                                {"any_call", Wildcard().CallAnyArgs()},
                                {"relu_again", IsOp("nn.relu")(IsConstant())},
                                {"tuple", IsAnyTuple()}});
  ASSERT_TRUE(set.ok());
  std::vector<uint32_t> out;
  set->Candidates(Op("nn.relu", {V("x")}), &out);
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 1, 2}));
  out.clear();
  set->Candidates(Op("exp", {V("x")}), &out);
  EXPECT_EQ(out, (std::vector<uint32_t>{1}));
  out.clear();
  set->Candidates(Tup({}), &out);
  EXPECT_EQ(out, (std::vector<uint32_t>{3}));
  EXPECT_EQ(set->Find("tuple"), 3u);
  auto bad = PatternSet::Build({{"ok", Wildcard()}, {"broken", IsOp("nope")}});
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("pattern 'broken'"));
}

}  // namespace
}  // namespace carve::testing
