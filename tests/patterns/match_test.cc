// Matcher semantics, ported from TVM's test_dataflow_pattern.py (match /
// no_match pairs for ops, calls, commutativity, functions, if, let,
// optionals, constants, tuples, types, attributes, diamonds).
#include "gtest/gtest.h"
#include "patterns/builders.h"
#include "patterns/matcher.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

class MatchTest : public PatternTest {
 protected:
  const Var* x_ = V("x");
  const Var* y_ = V("y");
  const Var* w_ = V("w");
  const Var* b_var_ = V("b");
};

TEST_F(MatchTest, Op) {
  EXPECT_TRUE(MatchPattern(IsOp("add"), GetOp("add")));
  EXPECT_FALSE(MatchPattern(IsOp("add"), GetOp("subtract")));
  Pattern add_or_sub = IsOp("add") | IsOp("subtract");
  EXPECT_TRUE(MatchPattern(add_or_sub, GetOp("add")));
  EXPECT_TRUE(MatchPattern(add_or_sub, GetOp("subtract")));
}

TEST_F(MatchTest, CommutativeOpsMatchSwappedArgs) {
  Pattern add = IsOp("add")(IsVar("x"), IsVar("y"));
  EXPECT_TRUE(MatchPattern(add, Op("add", {x_, y_})));
  EXPECT_TRUE(MatchPattern(add, Op("add", {y_, x_})));
  Pattern mul = IsOp("multiply")(IsVar("x"), IsVar("y"));
  EXPECT_TRUE(MatchPattern(mul, Op("multiply", {x_, y_})));
  EXPECT_TRUE(MatchPattern(mul, Op("multiply", {y_, x_})));
  // carve takes commutativity from the registry (shared/spec/patterns.md):
  // maximum and equal commute too, where TVM retries only add and multiply.
  Pattern max = IsOp("maximum")(IsVar("x"), IsVar("y"));
  EXPECT_TRUE(MatchPattern(max, Op("maximum", {x_, y_})));
  EXPECT_TRUE(MatchPattern(max, Op("maximum", {y_, x_})));
  Pattern eq = IsOp("equal")(IsVar("x"), IsVar("y"));
  EXPECT_TRUE(MatchPattern(eq, Op("equal", {y_, x_})));
}

// Swapped, TVM matches the reversed pattern list against the args in order:
// `s | var("x")` meets x first and binds s to x, so `s` then fails on y.
// Visiting `s` first would bind it to y, and `var("x")` would match x.
TEST_F(MatchTest, SwappedArgsVisitTheReversedPatternsLeftToRight) {
  Pattern s = IsVar();
  Pattern add = IsOp("add")(s, s | IsVar("x"));
  EXPECT_FALSE(MatchPattern(add, Op("add", {x_, y_})));
}

TEST_F(MatchTest, NonCommutativeOpsDoNotSwap) {
  Pattern sub = IsOp("subtract")(IsVar("x"), IsVar("y"));
  EXPECT_TRUE(MatchPattern(sub, Op("subtract", {x_, y_})));
  EXPECT_FALSE(MatchPattern(sub, Op("subtract", {y_, x_})));
  Pattern div = IsOp("divide")(IsVar("x"), IsVar("y"));
  EXPECT_TRUE(MatchPattern(div, Op("divide", {x_, y_})));
  EXPECT_FALSE(MatchPattern(div, Op("divide", {y_, x_})));
}

TEST_F(MatchTest, CallsWithFixedAndAnyArity) {
  EXPECT_TRUE(MatchPattern(IsOp("add")(Wildcard(), Wildcard()), Op("add", {x_, y_})));
  Pattern any = Wildcard().CallAnyArgs();
  EXPECT_TRUE(MatchPattern(any, Op("nn.relu", {x_})));
  EXPECT_TRUE(MatchPattern(any, Op("add", {x_, y_})));
  EXPECT_FALSE(MatchPattern(IsOp("add")(Wildcard(), Wildcard()), Op("subtract", {x_, y_})));
  EXPECT_FALSE(MatchPattern(IsOp("add")(Wildcard()), Op("add", {x_, y_})));
}

TEST_F(MatchTest, Functions) {
  Pattern wc1 = Wildcard(), wc2 = Wildcard();
  Pattern fp = IsFunction({wc1, wc2}, wc1 + wc2);
  EXPECT_TRUE(MatchPattern(fp, Fn({x_, y_}, Op("add", {x_, y_}))));
  EXPECT_FALSE(MatchPattern(fp, Fn({x_, y_}, Op("subtract", {x_, y_}))));
  Pattern any = IsFunctionAnyParams(Wildcard());
  EXPECT_TRUE(MatchPattern(any, Fn({x_}, x_)));
  EXPECT_TRUE(MatchPattern(any, Fn({x_, y_}, Op("add", {x_, y_}))));
}

TEST_F(MatchTest, IfPatterns) {
  Pattern px = IsVar("x"), py = IsVar("y");
  Pattern pat = IsIf(IsOp("less")(px, py), px, py);
  EXPECT_TRUE(MatchPattern(pat, b_.MakeIf(Op("less", {x_, y_}), x_, y_)));
  EXPECT_FALSE(MatchPattern(pat, b_.MakeIf(Op("greater", {x_, y_}), x_, y_)));
  EXPECT_FALSE(MatchPattern(pat, b_.MakeIf(Op("less", {x_, y_}), y_, x_)));
}

TEST_F(MatchTest, LetPatterns) {
  Pattern px = IsVar("x"), py = IsVar("y"), let_var = IsVar("let");
  Pattern pat = IsLet(let_var, IsOp("less")(px, py), let_var);
  const Var* lv = V("let");
  EXPECT_TRUE(MatchPattern(pat, b_.MakeLet(lv, Op("less", {x_, y_}), lv)));
  EXPECT_FALSE(MatchPattern(pat, b_.MakeLet(lv, Op("greater", {x_, y_}), lv)));
  EXPECT_FALSE(MatchPattern(pat, b_.MakeLet(lv, Op("less", {x_, y_}), Op("multiply", {lv, x_}))));
}

TEST_F(MatchTest, Optional) {
  Pattern pattern =
      IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), Wildcard()).Optional([](const Pattern& p) {
        return IsOp("nn.bias_add")(p, Wildcard());
      }));
  const Call* conv = Op("nn.conv2d", {x_, w_});
  EXPECT_TRUE(MatchPattern(pattern, Op("nn.relu", {conv})));
  EXPECT_TRUE(MatchPattern(pattern, Op("nn.relu", {Op("nn.bias_add", {conv, b_var_})})));

  Pattern chain = IsOp("nn.conv2d")(Wildcard(), Wildcard())
                      .Optional([](const Pattern& p) { return IsOp("nn.relu")(p); })
                      .Optional([](const Pattern& p) { return IsOp("tanh")(p); });
  const Call* relu = Op("nn.relu", {conv});
  const Call* tanh = Op("tanh", {conv});
  EXPECT_TRUE(MatchPattern(chain, conv));
  EXPECT_TRUE(MatchPattern(chain, relu));
  EXPECT_TRUE(MatchPattern(chain, tanh));
  EXPECT_TRUE(MatchPattern(chain, Op("tanh", {relu})));
  EXPECT_FALSE(MatchPattern(chain, Op("nn.relu", {tanh})));
}

TEST_F(MatchTest, NoMatchOptional) {
  Pattern pattern =
      IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), Wildcard()).Optional([](const Pattern& p) {
        return IsOp("nn.bias_add")(p, Wildcard());
      }));
  EXPECT_FALSE(MatchPattern(pattern, Op("tanh", {Op("nn.conv2d", {x_, w_})})));
  EXPECT_FALSE(MatchPattern(pattern, Op("tanh", {Op("nn.dense", {x_, w_})})));
  EXPECT_FALSE(MatchPattern(
      pattern, Op("nn.relu", {Op("nn.bias_add", {Op("nn.dense", {x_, w_}), b_var_})})));
  EXPECT_FALSE(MatchPattern(pattern, Op("nn.relu", {Op("add", {Op("nn.conv2d", {x_, w_}), w_})})));
}

TEST_F(MatchTest, ConstantsOnlyAfterBinding) {
  Pattern pattern = IsOp("nn.bias_add")(IsOp("nn.conv2d")(Wildcard(), IsConstant()), Wildcard());
  EXPECT_FALSE(MatchPattern(pattern, Op("nn.bias_add", {Op("nn.conv2d", {x_, w_}), b_var_})));
  NDArray ones = NDArray::Empty(DataType::Float(32), {3, 3, 3, 3});
  const Constant* wc = b_.MakeConstant(ones);
  EXPECT_TRUE(MatchPattern(pattern, Op("nn.bias_add", {Op("nn.conv2d", {x_, wc}), b_var_})));
}

TEST_F(MatchTest, Tuples) {
  const OpExpr* z = GetOp("add");
  Pattern tp = IsTuple({IsVar("x"), Wildcard(), IsOp("add")});
  EXPECT_TRUE(MatchPattern(tp, Tup({x_, y_, z})));
  EXPECT_TRUE(MatchPattern(IsTupleGetItem(tp, 1), Get(Tup({x_, y_, z}), 1)));
  Pattern any_index = IsTupleGetItem(tp);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(MatchPattern(any_index, Get(Tup({x_, y_, z}), i)));
  Pattern concat = IsOp("concatenate")(IsAnyTuple());
  EXPECT_TRUE(MatchPattern(concat, Op("concatenate", {Tup({x_})})));
  EXPECT_TRUE(MatchPattern(concat, Op("concatenate", {Tup({x_, y_})})));
  EXPECT_TRUE(MatchPattern(concat, Op("concatenate", {Tup({x_, y_, z})})));
}

TEST_F(MatchTest, NoMatchTuples) {
  const OpExpr* z = GetOp("add");
  EXPECT_FALSE(
      MatchPattern(IsTuple({IsVar("x"), Wildcard(), IsOp("add"), Wildcard()}), Tup({x_, y_, z})));
  Pattern tp = IsTuple({IsVar("x"), Wildcard(), IsOp("add")});
  EXPECT_FALSE(MatchPattern(IsTupleGetItem(tp, 1), Get(Tup({x_, y_, z}), 2)));
}

TEST_F(MatchTest, TypesReadInferredTypes) {
  const Var* xf = V("x", F32({10, 10}));
  const Var* xi = V("x", TensorTy(DataType::Int(32), {10, 10}));
  Infer(xf);
  Infer(xi);
  EXPECT_TRUE(MatchPattern(HasType(F32({10, 10})), xf));
  EXPECT_FALSE(MatchPattern(HasType(F32({10, 10})), xi));
  EXPECT_TRUE(MatchPattern(HasDType("float32"), xf));
  EXPECT_FALSE(MatchPattern(HasDType("float32"), xi));
  EXPECT_TRUE(MatchPattern(HasShape({10, 10}), xf));
  EXPECT_FALSE(MatchPattern(HasShape({10, 5}), xi));
  EXPECT_TRUE(MatchPattern(HasShape({DimPattern::Any(), 10}), xf));
  EXPECT_FALSE(MatchPattern(HasShape({DimPattern::Any()}), xf));
  // Untyped nodes never satisfy a type constraint.
  EXPECT_FALSE(MatchPattern(HasDType("float32"), V("untyped", F32({1}))));
}

TEST_F(MatchTest, OpAttrMaps) {
  constexpr int64_t kElemWise = 0, kBroadcast = 1;
  Pattern add = IsOp("add").HasAttr({{"TOpPattern", AttrValue::Int(kBroadcast)}});
  EXPECT_TRUE(MatchPattern(add(Wildcard(), Wildcard()), Op("add", {x_, y_})));
  Pattern dense = IsOp("nn.dense").HasAttr({{"TOpPattern", AttrValue::Int(kElemWise)}});
  EXPECT_FALSE(MatchPattern(dense(Wildcard(), Wildcard()), Op("nn.dense", {x_, y_})));
  EXPECT_FALSE(MatchPattern(add(Wildcard(), Wildcard()), Op("subtract", {x_, y_})));
  const Var* z = V("z");
  EXPECT_FALSE(MatchPattern(add(Wildcard(), Wildcard()), b_.MakeLet(z, Op("add", {x_, y_}), z)));
}

TEST_F(MatchTest, FunctionAttrs) {
  Pattern pattern = Wildcard().HasAttr({{"Composite", AttrValue::Str("add")}});
  EXPECT_TRUE(MatchPattern(pattern, Fn({x_, y_}, Op("add", {x_, y_}), FnAttr("Composite", "add"))));
  EXPECT_FALSE(
      MatchPattern(pattern, Fn({x_, y_}, Op("add", {x_, y_}), FnAttr("RandomTest", "add"))));
  EXPECT_FALSE(
      MatchPattern(pattern, Fn({x_, y_}, Op("add", {x_, y_}), FnAttr("Composite", "conv_bias"))));
}

TEST_F(MatchTest, CallAttrs) {
  Pattern layout =
      IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{"data_layout", AttrValue::Str("NCHW")}});
  EXPECT_TRUE(MatchPattern(layout, Op("nn.conv2d", {x_, y_})));
  Pattern kernel =
      IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{"kernel_size", AttrValue::Ints({3, 3})}});
  EXPECT_TRUE(
      MatchPattern(kernel, Op("nn.conv2d", {x_, y_}, {{"kernel_size", AttrValue::Ints({3, 3})}})));
  // Non-op calls with dictionary attrs; an empty dict matches any call.
  const Var* a = V("a");
  const Attrs* dict = FnAttr("call_attr", "attr");
  Pattern call_attr = Wildcard()(Wildcard()).HasAttr({{"call_attr", AttrValue::Str("attr")}});
  EXPECT_TRUE(MatchPattern(call_attr, CallOf(a, {b_var_}, dict)));
  Pattern empty = Wildcard()(Wildcard()).HasAttr({});
  EXPECT_TRUE(MatchPattern(empty, CallOf(a, {b_var_}, EmptyAttrs())));
  EXPECT_TRUE(MatchPattern(empty, CallOf(a, {b_var_}, dict)));
  EXPECT_TRUE(MatchPattern(empty, CallOf(a, {b_var_})));
}

TEST_F(MatchTest, NoMatchCallAttrs) {
  auto conv_with = [&](std::string_view key, AttrValue v) {
    return IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{key, v}});
  };
  EXPECT_FALSE(
      MatchPattern(conv_with("data_layout", AttrValue::Str("NHWC")), Op("nn.conv2d", {x_, y_})));
  EXPECT_FALSE(
      MatchPattern(conv_with("RandomAttr", AttrValue::Str("NCHW")), Op("nn.conv2d", {x_, y_})));
  EXPECT_FALSE(MatchPattern(conv_with("kernel_size", AttrValue::Ints({3, 3})),
                            Op("nn.conv2d", {x_, y_}, {{"kernel_size", AttrValue::Ints({2, 1})}})));
  Pattern call_attr = Wildcard()(Wildcard()).HasAttr({{"call_attr", AttrValue::Str("attr")}});
  const Var* a = V("a");
  EXPECT_FALSE(MatchPattern(call_attr, CallOf(a, {b_var_})));
  EXPECT_FALSE(MatchPattern(call_attr, CallOf(a, {b_var_}, FnAttr("wrong", "attr"))));
  EXPECT_FALSE(MatchPattern(call_attr, CallOf(a, {b_var_}, FnAttr("call_attr", "wrong"))));
  EXPECT_FALSE(MatchPattern(call_attr, CallOf(a, {b_var_}, EmptyAttrs())));
}

TEST_F(MatchTest, DTypeAttrAsString) {
  Pattern cast = IsOp("cast")(Wildcard()).HasAttr({{"dtype", AttrValue::Str("float32")}});
  EXPECT_TRUE(MatchPattern(cast, Op("cast", {x_}, {{"dtype", AttrValue::Str("float32")}})));
  EXPECT_FALSE(MatchPattern(cast, Op("cast", {x_}, {{"dtype", AttrValue::Str("int8")}})));
}

// TVM's MatchRetValue: the field's kind decides. An int field compares by
// value across widths, but not with a float; a double field only with a
// float; an array field structurally (element widths must agree).
TEST_F(MatchTest, AttrNumbersCompareAsTvmMatchRetValue) {
  Pattern groups =
      IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{"groups", AttrValue::Int(1, 64)}});
  EXPECT_TRUE(MatchPattern(groups, Op("nn.conv2d", {x_, y_})));
  Pattern groups_f =
      IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{"groups", AttrValue::Float(1)}});
  EXPECT_FALSE(MatchPattern(groups_f, Op("nn.conv2d", {x_, y_})));
  const Call* leaky = Op("nn.leaky_relu", {x_}, {{"alpha", AttrValue::Float(0)}});
  Pattern alpha = IsOp("nn.leaky_relu")(Wildcard()).HasAttr({{"alpha", AttrValue::Int(0)}});
  EXPECT_FALSE(MatchPattern(alpha, leaky));
  Pattern alpha_f = IsOp("nn.leaky_relu")(Wildcard()).HasAttr({{"alpha", AttrValue::Float(0)}});
  EXPECT_TRUE(MatchPattern(alpha_f, leaky));
  const Call* conv = Op("nn.conv2d", {x_, y_}, {{"kernel_size", AttrValue::Ints({3, 3})}});
  Pattern k = IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{"kernel_size", AttrValue::Ints({3, 3})}});
  EXPECT_TRUE(MatchPattern(k, conv));
  Pattern k21 = IsOp("nn.conv2d")(Wildcard(), Wildcard()).HasAttr({{"kernel_size", AttrValue::Ints({2, 1})}});
  EXPECT_FALSE(MatchPattern(k21, conv));
  Pattern k64 = IsOp("nn.conv2d")(Wildcard(), Wildcard())
                    .HasAttr({{"kernel_size", AttrValue::Array({AttrValue::Int(3, 64), AttrValue::Int(3, 64)})}});
  EXPECT_FALSE(MatchPattern(k64, conv));
}

class DiamondTest : public PatternTest {
 protected:
  Pattern conv_ = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern diamond_ = IsOp("add")(IsOp("nn.relu")(conv_), IsOp("nn.leaky_relu")(conv_));
};

TEST_F(DiamondTest, SharedSubPatternBindsOneNode) {
  const Call* conv = Op("nn.conv2d", {V("input"), V("weight")});
  const Call* relu = Op("nn.relu", {conv});
  const Call* leaky = Op("nn.leaky_relu", {conv});
  EXPECT_TRUE(MatchPattern(diamond_, Op("add", {relu, leaky})));
  EXPECT_FALSE(MatchPattern(diamond_, leaky));
  EXPECT_FALSE(MatchPattern(diamond_, relu));
}

TEST_F(DiamondTest, FakeDiamondOfTwoConvsDoesNotMatch) {
  const Call* conv1 = Op("nn.conv2d", {V("input1"), V("weight1")});
  const Call* conv2 = Op("nn.conv2d", {V("input2"), V("weight2")});
  EXPECT_FALSE(
      MatchPattern(diamond_, Op("add", {Op("nn.relu", {conv1}), Op("nn.leaky_relu", {conv2})})));
}

TEST_F(DiamondTest, MultiDiamondWithAnExtraUseDoesNotMatchAtTheOuterAdd) {
  const Call* conv = Op("nn.conv2d", {V("input"), V("weight")});
  const Call* inner = Op("add", {Op("nn.relu", {conv}), Op("nn.leaky_relu", {conv})});
  EXPECT_FALSE(MatchPattern(diamond_, Op("add", {inner, conv})));
}

TEST_F(MatchTest, CapturesArePublishedOnlyOnFullMatch) {
  auto compiled = CompilePattern(IsOp("add")(Capture("lhs"), IsOp("nn.relu")(Capture("arg"))));
  ASSERT_TRUE(compiled.ok());
  Matcher m(*compiled, nullptr);
  const Call* relu = Op("nn.relu", {y_});
  ASSERT_TRUE(m.Match(Op("add", {x_, relu})));
  EXPECT_EQ(m.Capture("lhs"), x_);
  EXPECT_EQ(m.Capture("arg"), y_);
  // Commuted: the straight attempt binds ?lhs to the relu and fails; the
  // swapped attempt must not see that stale binding.
  ASSERT_TRUE(m.Match(Op("add", {relu, x_})));
  EXPECT_EQ(m.Capture("lhs"), x_);
  EXPECT_FALSE(m.Match(Op("add", {x_, y_})));
  EXPECT_EQ(m.Capture("lhs"), nullptr);
  EXPECT_TRUE(m.bindings().empty());
}

TEST_F(MatchTest, AlternationIsOrdered) {
  auto compiled = CompilePattern(Capture("c", IsConstant()) | Capture("w"));
  ASSERT_TRUE(compiled.ok());
  Matcher m(*compiled, nullptr);
  const Constant* one = Const(1);
  ASSERT_TRUE(m.Match(one));
  EXPECT_EQ(m.Capture("c"), one);
  EXPECT_EQ(m.Capture("w"), nullptr);
}

TEST_F(MatchTest, RecursivePatternsMatchChainsAndStopAtTheDepthLimit) {
  Pattern dense = IsOp("nn.dense")(Wildcard(), Wildcard());
  Pattern casts =
      Recursive("casts", [&](const Pattern& self) { return IsOp("nn.relu")(self | dense); });
  const Expr* e = Op("nn.dense", {x_, w_});
  for (int i = 0; i < 6; ++i) e = Op("nn.relu", {e});
  EXPECT_TRUE(MatchPattern(casts, e));
  EXPECT_FALSE(MatchPattern(casts, Op("nn.relu", {Op("exp", {x_})})));
  // A chain far deeper than the recursion cap fails cleanly instead of
  // overflowing the stack.
  const Expr* deep = Op("nn.dense", {x_, w_});
  for (int i = 0; i < 3 * Matcher::kMaxDepth; ++i) deep = Op("nn.relu", {deep});
  auto compiled = CompilePattern(casts);
  ASSERT_TRUE(compiled.ok());
  Matcher m(*compiled, nullptr);
  EXPECT_FALSE(m.Match(deep));
  EXPECT_TRUE(m.depth_exceeded());
}

TEST_F(MatchTest, ExprPatternsCompareStructurally) {
  EXPECT_TRUE(MatchPattern(IsExpr(Const(0)), Const(0)));
  EXPECT_FALSE(MatchPattern(IsExpr(Const(0)), Const(0, DataType::Int(32))));
  EXPECT_FALSE(MatchPattern(IsExpr(Const(0)), Const(1)));
  EXPECT_TRUE(MatchPattern(IsExpr(x_), x_));
  EXPECT_FALSE(MatchPattern(IsExpr(x_), V("x")));
  EXPECT_TRUE(MatchPattern(IsExpr(Op("add", {x_, Const(1)})), Op("add", {x_, Const(1)})));
}

}  // namespace
}  // namespace carve::testing
