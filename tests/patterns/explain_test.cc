// Explanations: the first failed constraint as data, the rendering `carve
// why` prints, and grouping verdicts.
#include "patterns/explain.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "patterns/builders.h"
#include "patterns/predicate.h"
#include "patterns/query.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ExplainTest : public PatternTest {
 protected:
  Explanation Why(const Pattern& p, const Expr* node) {
    auto e = Explain(p, node);
    EXPECT_TRUE(e.ok()) << e.status();
    return e.ok() ? *e : Explanation{};
  }
  const Var* x_ = V("x");
  const Var* w_ = V("w");
};

TEST_F(ExplainTest, ReportsTheFailingSubPatternWithItsPath) {
  Pattern weight = IsConstant();
  Pattern p = IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), weight));
  const Call* relu = Op("nn.relu", {Op("nn.conv2d", {x_, w_})});
  Explanation e = Why(p, relu);
  EXPECT_EQ(e.verdict, Explanation::Verdict::kNoMatch);
  EXPECT_EQ(e.failed_at, w_);
  EXPECT_EQ(e.sub_pattern, weight.get());
  EXPECT_EQ(e.reason, "expected a constant, got the variable %w");
  EXPECT_EQ(PathToString(e.path), "arg 0, arg 1");
  auto namer = [&](const Expr* n) { return NodeRef{n == relu ? "%12" : "", ""}; };
  EXPECT_EQ(RenderExplanation(e, "dnnl.conv2d_relu", namer),
            "dnnl.conv2d_relu at %12: arg 0, arg 1: expected a constant, got the variable %w");
  // With the printer's names and roles, as `carve why` renders it.
  auto printed = [&](const Expr* n) -> NodeRef {
    if (n == relu) return {"%12", ""};
    if (n == w_) return {"%w", "a parameter"};
    return {};
  };
  auto compiled = CompilePattern(p);
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ(RenderExplanation(Explain(*compiled, relu, nullptr, printed), "dnnl.conv2d_relu",
                              printed),
            "dnnl.conv2d_relu at %12: arg 0, arg 1: expected a constant, got %w (a parameter)");
}

TEST_F(ExplainTest, WrongOpIsReportedAtTheCall) {
  Explanation e = Why(IsOp("nn.relu")(Wildcard()), Op("exp", {x_}));
  EXPECT_EQ(e.reason, "expected a call of nn.relu with 1 arg, got a call of exp with 1 arg");
  EXPECT_TRUE(e.path.empty());
}

TEST_F(ExplainTest, DeepestFailureWinsAcrossAlternatives) {
  // The left alternative gets one level deeper than the right one.
  Pattern p = IsOp("nn.relu")(IsOp("exp")(Wildcard())) | IsOp("tanh")(Wildcard());
  Explanation e = Why(p, Op("nn.relu", {Op("sqrt", {x_})}));
  EXPECT_EQ(PathToString(e.path), "arg 0");
  EXPECT_THAT(e.reason, HasSubstr("expected a call of exp"));
}

// A failure inside a sub-pattern that matched after all is not the reason:
// ACL's conv2d takes `(nn.pad(_, _) | _)` as its data, so a conv without a
// pad matches the wildcard; the attribute that fails above it is why.
TEST_F(ExplainTest, FailureInsideAMatchedAlternativeIsForgotten) {
  Pattern padded = IsOp("nn.pad")(Wildcard(), Wildcard()) | Wildcard();
  Pattern conv =
      IsOp("nn.conv2d")(padded, Wildcard()).HasAttr({{"groups", AttrValue::Int(2)}});
  Explanation e = Why(IsOp("nn.relu")(conv), Op("nn.relu", {Op("nn.conv2d", {x_, w_})}));
  EXPECT_EQ(e.reason, "attribute groups is 1, expected 2");
  EXPECT_EQ(PathToString(e.path), "arg 0");
  // An optional op (`nn.relu?`) that is absent: the inner failure stands.
  Pattern optional_relu = IsOp("nn.relu")(conv) | conv;
  Explanation bare = Why(optional_relu, Op("nn.conv2d", {x_, w_}));
  EXPECT_EQ(bare.reason, "attribute groups is 1, expected 2");
  EXPECT_TRUE(bare.path.empty());
  // Both alternatives failing: the deeper failure is still reported.
  Explanation both = Why(IsOp("nn.relu")(IsOp("nn.pad")(Wildcard(), Wildcard()) | IsOp("exp")(IsVar("x"))),
                         Op("nn.relu", {Op("exp", {w_})}));
  EXPECT_EQ(PathToString(both.path), "arg 0, arg 0");
}

TEST_F(ExplainTest, AttributesTypesAndWhereClauses) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{"groups", AttrValue::Int(2)}});
  EXPECT_EQ(Why(conv, Op("nn.conv2d", {x_, w_})).reason, "attribute groups is 1, expected 2");
  Pattern missing = IsOp("nn.relu")(Wildcard()).HasAttr({{"axis", AttrValue::Int(1)}});
  EXPECT_EQ(Why(missing, Op("nn.relu", {x_})).reason,
            "a call of nn.relu with 1 arg has no attribute 'axis'");
  EXPECT_THAT(Why(HasDType("float32"), x_).reason, HasSubstr("has no inferred type"));
  const Var* typed = V("t", F32({2, 3}));
  Infer(typed);
  EXPECT_EQ(Why(HasShape({2, 2}), typed).reason,
            "type is Tensor[(2, 3), float32], expected a tensor of the pattern's shape");
  auto rank2 = Predicate::Compare(PredicateTerm::Rank("x"), CompareOp::kEq,
                                  PredicateTerm::Literal(AttrValue::Int(3)));
  Pattern where = IsOp("nn.relu")(Capture("x")).Where(rank2);
  const Call* relu = Op("nn.relu", {typed});
  EXPECT_EQ(Why(where, relu).reason, "where clause: `rank(?x) == 3` is false (rank(?x) is 2)");
}

TEST_F(ExplainTest, SharedSubPatternBoundElsewhere) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern diamond = IsOp("add")(IsOp("nn.relu")(conv), IsOp("nn.leaky_relu")(conv));
  const Call* c1 = Op("nn.conv2d", {x_, w_});
  const Call* c2 = Op("nn.conv2d", {w_, x_});
  Explanation e = Why(diamond, Op("add", {Op("nn.relu", {c1}), Op("nn.leaky_relu", {c2})}));
  EXPECT_THAT(e.reason, HasSubstr("shared and already matched"));
}

TEST_F(ExplainTest, MatchesListCaptures) {
  Pattern p = IsOp("add")(Capture("a"), Capture("b", IsConstant()));
  const Constant* one = Const(1);
  Explanation e = Why(p, Op("add", {one, x_}));
  ASSERT_TRUE(e.matched());
  EXPECT_THAT(e.captures, ElementsAre(std::pair<std::string, const Expr*>("a", x_),
                                      std::pair<std::string, const Expr*>("b", one)));
  EXPECT_THAT(RenderExplanation(e, "p"),
              HasSubstr("p matches at a call of add with 2 args (?a = %x, ?b = the float32 constant 1"));
}

TEST_F(ExplainTest, GroupingVerdicts) {
  Pattern relu_conv = IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), Wildcard()));
  auto compiled = CompilePattern(relu_conv | IsOp("nn.conv2d")(Wildcard(), Wildcard()));
  ASSERT_TRUE(compiled.ok());
  // relu(conv) is grouped; asking at the conv reports the claim.
  const Call* conv = Op("nn.conv2d", {x_, w_});
  const Call* relu = Op("nn.relu", {conv});
  Explanation claimed = ExplainInGraph(*compiled, relu, conv);
  EXPECT_EQ(claimed.verdict, Explanation::Verdict::kClaimed);
  EXPECT_EQ(claimed.claimed_by, relu);
  EXPECT_EQ(ExplainInGraph(*compiled, relu, relu).verdict, Explanation::Verdict::kMatched);
  // The conv also feeds an add: the relu match cannot be grouped.
  const Call* conv2 = Op("nn.conv2d", {x_, w_});
  const Call* relu2 = Op("nn.relu", {conv2});
  const Call* out = Op("add", {relu2, conv2});
  auto only = CompilePattern(relu_conv);
  Explanation rejected = ExplainInGraph(*only, out, relu2);
  EXPECT_EQ(rejected.verdict, Explanation::Verdict::kRejected);
  EXPECT_EQ(rejected.reason,
            "a call of nn.conv2d with 2 args inside the match is also used outside it, by a call "
            "of add with 2 args");
  EXPECT_THAT(RenderExplanation(rejected, "p"), HasSubstr("matches, but cannot be grouped"));
}

TEST_F(ExplainTest, FindMatchesInPostOrder) {
  const Call* r1 = Op("nn.relu", {x_});
  const Call* r2 = Op("nn.relu", {r1});
  auto compiled = CompilePattern(IsOp("nn.relu")(Capture("in")));
  ASSERT_TRUE(compiled.ok());
  std::vector<FoundMatch> found = FindMatches(*compiled, Op("exp", {r2}));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].root, r1);
  EXPECT_EQ(found[0].captures[0].second, x_);
  EXPECT_EQ(found[1].root, r2);
  Module mod;
  mod.Add("main", Fn({x_}, r2));
  auto in_module = FindMatches(IsOp("nn.relu")(Wildcard()), mod);
  ASSERT_TRUE(in_module.ok());
  ASSERT_EQ(in_module->size(), 2u);
  EXPECT_EQ((*in_module)[0].function, "main");
}

}  // namespace
}  // namespace carve::testing
