// Dominator patterns and the post-dominator tree (TVM: test_at_most_one_parent,
// test_match_dominator, test_not_match_dominator(2), test_(no_)match_typed_dominator).
#include <algorithm>

#include "gtest/gtest.h"
#include "patterns/builders.h"
#include "patterns/graph.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

constexpr int64_t kElemWise = 0;

class DominatorTest : public PatternTest {
 protected:
  Pattern Elemwise() {
    return Wildcard().HasAttr({{"TOpPattern", AttrValue::Int(kElemWise)}})(Wildcard());
  }
  Pattern Diamond() {
    return Dominates(IsOp("nn.conv2d")(Wildcard(), Wildcard()), Elemwise(),
                     IsOp("add")(Wildcard(), Wildcard()));
  }
  Pattern FuzzyDiamond() {
    return Dominates(IsOp("nn.conv2d")(Wildcard(), Wildcard()),
                     Elemwise() | IsOp("add")(Wildcard(), Wildcard()),
                     IsOp("add")(Wildcard(), Wildcard()));
  }
  const Call* Leaky(const Expr* e) { return Op("nn.leaky_relu", {e}); }
  const Call* Relu(const Expr* e) { return Op("nn.relu", {e}); }
  const Call* Conv(const Expr* a, const Expr* b) { return Op("nn.conv2d", {a, b}); }
  const Call* Add(const Expr* a, const Expr* b) { return Op("add", {a, b}); }
  const Var* input_ = V("input");
  const Var* weight_ = V("weight");
};

TEST_F(DominatorTest, PostDominatorTree) {
  // conv -> relu -> relu2 ; conv -> leaky ; add(relu2, leaky)
  const Call* conv = Conv(input_, weight_);
  const Call* relu = Relu(conv);
  const Call* relu2 = Relu(relu);
  const Call* leaky = Leaky(conv);
  const Call* out = Add(relu2, leaky);
  IndexedGraph g(out);
  uint32_t iconv = g.IndexOf(conv), irelu = g.IndexOf(relu), iout = g.IndexOf(out);
  EXPECT_EQ(g.root(), iout);
  EXPECT_EQ(g.PostDominator(iconv), iout);
  EXPECT_EQ(g.PostDominator(irelu), g.IndexOf(relu2));
  EXPECT_TRUE(g.PostDominates(iout, iconv));
  EXPECT_TRUE(g.PostDominates(g.IndexOf(relu2), irelu));
  EXPECT_FALSE(g.PostDominates(g.IndexOf(relu2), iconv));
  EXPECT_FALSE(g.PostDominates(iout, iout));
  EXPECT_EQ(g.outputs(iconv).size(), 2u);
  ASSERT_EQ(g.inputs(iout).size(), 3u);  // callee, relu2, leaky
  EXPECT_EQ(g.node(g.inputs(iout)[0]), GetOp("add"));
}

// Numbering uses scratch marks and clears them; a node that carries a stale
// mark from elsewhere gets the same graph (through the map-only numbering).
TEST_F(DominatorTest, IndexedGraphIgnoresStaleScratchMarks) {
  const Call* conv = Conv(input_, weight_);
  const Call* out = Add(Relu(Relu(conv)), Leaky(conv));
  IndexedGraph clean(out);
  for (const Expr* e : clean.nodes()) EXPECT_EQ(e->scratch_mark(), 0);
  conv->set_scratch_mark(7);
  IndexedGraph stale(out);
  conv->set_scratch_mark(0);
  ASSERT_EQ(stale.size(), clean.size());
  for (uint32_t i = 0; i < clean.size(); ++i) {
    EXPECT_EQ(stale.node(i), clean.node(i));
    EXPECT_EQ(stale.IndexOf(clean.node(i)), i);
    EXPECT_TRUE(std::ranges::equal(stale.inputs(i), clean.inputs(i)));
    EXPECT_TRUE(std::ranges::equal(stale.outputs(i), clean.outputs(i)));
  }
}

TEST_F(DominatorTest, AtMostOneParent) {
  Pattern pattern = Dominates(IsOp("nn.conv2d")(Wildcard(), Wildcard()),
                              IsOp("nn.relu")(Wildcard()), IsOp("add")(Wildcard(), Wildcard()));
  const Var* x = V("x");
  const Var* w = V("w");
  const Call* n6 = Conv(x, w);
  const Call* n7 = Op("tanh", {n6});
  const Call* n8 = Conv(n7, w);
  const Call* n9 = Relu(n8);
  const Call* n10 = Relu(n6);
  EXPECT_FALSE(MatchPattern(pattern, Add(n9, n10)));
  // test_not_match_dominator2: the parent reached directly and through n6.
  const Call* n9b = Relu(n6);
  EXPECT_FALSE(MatchPattern(pattern, Add(n8, n9b)));
}

TEST_F(DominatorTest, ClassicDeeperSingleBranchAndNested) {
  const Call* conv = Conv(input_, weight_);
  EXPECT_TRUE(MatchPattern(Diamond(), Add(Relu(Relu(conv)), Leaky(conv))));
  const Call* conv2 = Conv(input_, weight_);
  EXPECT_TRUE(MatchPattern(Diamond(), Add(Op("tanh", {Relu(Relu(conv2))}), Leaky(conv2))));
  const Call* conv3 = Conv(input_, weight_);
  const Call* relu3 = Relu(Relu(conv3));
  EXPECT_TRUE(MatchPattern(Diamond(), Add(relu3, Op("tanh", {relu3}))));
  const Call* conv4 = Conv(input_, weight_);
  const Call* relu4 = Relu(conv4);
  const Call* sum = Add(relu4, relu4);
  EXPECT_TRUE(MatchPattern(FuzzyDiamond(), Add(Op("tanh", {sum}), Leaky(conv4))));
}

TEST_F(DominatorTest, NotMatched) {
  // Fake diamond: two different convs.
  const Call* c1 = Conv(V("input1"), V("weight1"));
  const Call* c2 = Conv(V("input2"), V("weight2"));
  EXPECT_FALSE(MatchPattern(Diamond(), Add(Relu(c1), Leaky(c2))));
  // An add on the path is not elementwise.
  const Call* conv = Conv(input_, weight_);
  const Call* relu = Relu(conv);
  EXPECT_FALSE(MatchPattern(Diamond(), Add(Add(relu, relu), Leaky(conv))));
  // Relu on the input instead of the conv.
  const Call* conv2 = Conv(input_, weight_);
  EXPECT_FALSE(MatchPattern(Diamond(), Add(Relu(input_), Leaky(conv2))));
  // No conv at all.
  const Call* r = Relu(Relu(input_));
  EXPECT_FALSE(MatchPattern(Diamond(), Add(r, Op("tanh", {r}))));
  // A path node with a graph input (TVM v0.16's MatchesPath: the variable
  // matches neither the parent nor the path, so the walk fails; variables
  // and constants are not skipped).
  const Call* conv3 = Conv(input_, weight_);
  const Call* biased = Add(Relu(conv3), V("b"));
  EXPECT_FALSE(MatchPattern(FuzzyDiamond(), Add(Op("tanh", {biased}), Leaky(conv3))));
  // ... and a wildcard path reaching a variable fails too (it has no inputs).
  Pattern any_path = Dominates(IsOp("nn.conv2d")(Wildcard(), Wildcard()), Wildcard(),
                               IsOp("add")(Wildcard(), Wildcard()));
  const Call* conv4 = Conv(input_, weight_);
  EXPECT_FALSE(MatchPattern(any_path, Add(Relu(conv4), Add(Leaky(conv4), V("c")))));
  const Call* conv5 = Conv(input_, weight_);
  EXPECT_TRUE(MatchPattern(any_path, Add(Relu(conv5), Leaky(conv5))));
}

TEST_F(DominatorTest, TypedDominator) {
  const Var* inp = V("input", F32({1, 3, 12, 12}));
  const Var* weight = V("weight", F32({3, 3, 3, 3}));
  const Call* conv = Conv(inp, weight);
  const Call* out = Add(Relu(Relu(conv)), Leaky(conv));
  Infer(out);
  auto typed = [&](std::vector<DimPattern> shape, std::string_view dtype) {
    return Dominates(IsOp("nn.conv2d")(Wildcard(), Wildcard()), Elemwise().HasDType(dtype),
                     IsOp("add")(Wildcard(), Wildcard()).HasShape(std::move(shape)));
  };
  EXPECT_TRUE(MatchPattern(typed({1, 3, 10, 10}, "float32"), out));
  EXPECT_FALSE(MatchPattern(typed({1, 1, 10, 10}, "float32"), out));
  EXPECT_FALSE(MatchPattern(typed({1, 3, 10, 10}, "float16"), out));
}

TEST_F(DominatorTest, DeepDiamondChainIsLinear) {
  // A 200k-node elementwise chain between the parent and the child: the
  // path walk is iterative and visits each node once.
  const Call* conv = Conv(input_, weight_);
  const Expr* e = conv;
  for (int i = 0; i < 200000; ++i) e = Relu(e);
  EXPECT_TRUE(MatchPattern(Diamond(), Add(e, Leaky(conv))));
}

}  // namespace
}  // namespace carve::testing
