// IndexedGraph construction (Build's shortcuts: ops, the root's parameters
// and recent nodes found without a map, a map of other shared nodes, inputs written
// straight into the CSR, let edges merged in emission order), Derive through
// a composite table, and the grouper and body builder on groups too large
// for their searched paths.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "patterns/builders.h"
#include "patterns/graph.h"
#include "patterns/group.h"
#include "patterns/partition.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

class GraphTest : public PatternTest {
 protected:
  // `e`'s graph must equal the one the map-only numbering gives (forced by a
  // stale scratch mark on `stale`, a node of `e`), node for node.
  static void ExpectSameAsMapNumbering(const Expr* e, const Expr* stale) {
    IndexedGraph fast(e);
    for (const Expr* n : fast.nodes()) EXPECT_EQ(n->scratch_mark(), 0);
    stale->set_scratch_mark(9);
    IndexedGraph slow(e);
    stale->set_scratch_mark(0);
    ASSERT_EQ(fast.size(), slow.size());
    for (uint32_t i = 0; i < fast.size(); ++i) {
      EXPECT_EQ(fast.node(i), slow.node(i)) << i;
      EXPECT_EQ(fast.kind(i), slow.kind(i)) << i;
      EXPECT_EQ(fast.call_op(i), slow.call_op(i)) << i;
      EXPECT_EQ(fast.IndexOf(slow.node(i)), i);
      EXPECT_TRUE(std::ranges::equal(fast.inputs(i), slow.inputs(i))) << i;
      EXPECT_TRUE(std::ranges::equal(fast.outputs(i), slow.outputs(i))) << i;
    }
    EXPECT_TRUE(std::ranges::equal(fast.root_params(), slow.root_params()));
  }

  // Wherever the matcher matches in `g`, MayMatchInGraph says so; a match
  // started at a graph index gives its bindings their own nodes' indices.
  // Adds up the matches, the nodes ruled out and the indexed bindings.
  struct MayMatchCounts {
    int matches = 0, rejected = 0, indexed = 0;
  };
  static void ExpectMayMatchWhereMatches(const std::vector<Pattern>& patterns,
                                         const IndexedGraph& g, MayMatchCounts& counts) {
    for (const Pattern& p : patterns) {
      auto compiled = CompilePattern(p);
      ASSERT_TRUE(compiled.ok());
      Matcher matcher(*compiled, &g);
      for (uint32_t i = 0; i < g.size(); ++i) {
        bool may = MayMatchInGraph(**compiled, (*compiled)->root(), g, i);
        bool does = matcher.Match(g.node(i));
        if (does) {
          EXPECT_TRUE(may) << "node " << i << " of " << Print(g.node(i));
        }
        counts.matches += does;
        counts.rejected += !may;
        // With the root's index, the bindings carry their nodes' indices.
        ASSERT_EQ(matcher.Match(g.node(i), i), does);
        for (const Binding& b : matcher.bindings()) {
          if (b.index == IndexedGraph::kNone) continue;
          EXPECT_EQ(g.node(b.index), b.expr) << "node " << i;
          ++counts.indexed;
        }
      }
    }
  }

  const Var* x_ = V("x");
};

TEST_F(GraphTest, FunctionWithParametersUsedOutOfOrderAndTwice) {
  const Var *a = V("a"), *c = V("c"), *d = V("d");
  // d before c, a three times, ops shared by several calls.
  const Expr* body =
      Op("add", {Op("nn.relu", {Op("add", {d, a})}), Op("add", {Op("add", {a, c}), a})});
  const Function* fn = Fn({a, c, d}, body);
  ExpectSameAsMapNumbering(fn, a);
  ExpectSameAsMapNumbering(fn, GetOp("add"));
  IndexedGraph g(fn);
  ASSERT_EQ(g.root_params().size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(g.node(g.root_params()[k]), fn->params()[k]);
  EXPECT_TRUE(IndexedGraph(body).root_params().empty());
}

TEST_F(GraphTest, LetsTuplesProjectionsAndIfs) {
  const Var *x = V("x"), *y = V("y"), *t = V("t"), *s = V("s");
  const Expr* tuple = Tup({x, Op("nn.relu", {y}), x});
  const Expr* cond = Op("equal", {Get(tuple, 0), Get(tuple, 1)});
  const Expr* branch = b_.MakeIf(cond, Get(t, 2), Op("add", {Get(t, 0), s}));
  const Expr* lets = b_.MakeLet(t, tuple, b_.MakeLet(s, Op("nn.relu", {Get(t, 1)}), branch));
  const Function* fn = Fn({x, y}, lets);
  ExpectSameAsMapNumbering(fn, y);
  ExpectSameAsMapNumbering(lets, GetOp("nn.relu"));
}

TEST_F(GraphTest, NestedFunctionsAndCompositeCalls) {
  const Var *p = V("p"), *q = V("q"), *x = V("x");
  const Function* inner = Fn({p, q}, Op("add", {p, q}), FnAttr("Composite", "c"));
  const Function* fn = Fn({x}, CallOf(inner, {Op("nn.relu", {x}), x}));
  ExpectSameAsMapNumbering(fn, x);
}

// Fan-outs met again long after they were numbered (past the table of
// recent nodes), through the map of shared nodes.
TEST_F(GraphTest, LongRangeFanOuts) {
  std::vector<const Expr*> fields;
  const Expr* e = x_;
  std::vector<const Expr*> kept;
  for (int k = 0; k < 20000; ++k) {
    e = Op("nn.relu", {e});
    if (k % 400 == 0) kept.push_back(e);
  }
  fields.push_back(e);
  fields.insert(fields.end(), kept.begin(), kept.end());
  const Expr* root = Tup(fields);
  ExpectSameAsMapNumbering(root, kept.back());
  IndexedGraph g(root);
  auto inputs = g.inputs(g.root());
  ASSERT_EQ(inputs.size(), fields.size());
  for (size_t k = 0; k < fields.size(); ++k) EXPECT_EQ(g.node(inputs[k]), fields[k]);
}

// Two entries: the second partitions the graph Derive computed from the
// first's result, with the root function's parameters tracked through it;
// the same as partitioning twice from scratch.
TEST_F(GraphTest, CompositeTableMatchesEntryByEntry) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern bias = IsOp("nn.bias_add")(conv, Wildcard());
  Pattern relu = IsOp("nn.relu")(bias);
  std::vector<const Var*> params;
  const Expr* e = x_;
  for (int k = 0; k < 6; ++k) {
    const Var* w = V("w" + std::to_string(k));
    const Var* b = V("b" + std::to_string(k));
    params.push_back(b);  // parameters not in use order
    params.push_back(w);
    e = Op("nn.bias_add", {Op("nn.conv2d", {e, w}), b});
    if (k % 2 == 0) e = Op("nn.relu", {e});
  }
  params.push_back(x_);
  const Function* fn = Fn(params, e);
  std::vector<CompositeEntry> table = {{"conv_bias_relu", relu, {}}, {"conv_bias", bias, {}}};
  auto both = PartitionComposites(table, fn, mod_.arena());
  ASSERT_TRUE(both.ok());
  PartitionOptions first, second;
  first.attrs.push_back({"Composite", AttrValue::Str("conv_bias_relu")});
  second.attrs.push_back({"Composite", AttrValue::Str("conv_bias")});
  auto one = Partition(relu, fn, mod_.arena(), first);
  ASSERT_TRUE(one.ok());
  auto two = Partition(bias, *one, mod_.arena(), second);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(Print(*both), Print(*two));
}

// An entry whose every group its check rejects leaves the graph unchanged:
// the rebuild that took the graph's node array gives it back, and the next
// entry partitions the same graph (as a fresh partition would). A let in
// the graph makes the rebuild copy the array instead: same results.
TEST_F(GraphTest, RejectedEntryKeepsTheGraphForTheNext) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern relu = IsOp("nn.relu")(conv);
  for (bool with_let : {false, true}) {
    SCOPED_TRACE(with_let ? "with a let" : "edges only");
    std::vector<const Var*> params = {x_};
    const Expr* e = x_;
    for (int k = 0; k < 4; ++k) {
      const Var* w = V("w" + std::to_string(k));
      params.push_back(w);
      e = Op("nn.relu", {Op("nn.conv2d", {e, w})});
    }
    if (with_let) {
      const Var* t = V("t");
      e = b_.MakeLet(t, e, Op("nn.relu", {t}));
    }
    const Function* fn = Fn(params, e);
    std::vector<CompositeEntry> table = {{"never", relu, [](const Expr*) { return false; }},
                                         {"conv", conv, {}}};
    PartitionStats stats;
    auto both = PartitionComposites(table, fn, mod_.arena(), false, &stats);
    ASSERT_TRUE(both.ok());
    EXPECT_EQ(stats.groups, 8);
    EXPECT_EQ(stats.partitioned, 4);
    PartitionOptions options;
    options.attrs.push_back({"Composite", AttrValue::Str("conv")});
    auto fresh = Partition(conv, fn, mod_.arena(), options);
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ(Print(*both), Print(*fresh));
  }
}

// A let-bound variable's edge to its value comes with its let (TVM's
// order): `%0 = add(..); let %v = %0; multiply(%0, ..)` gives add's
// outputs as [multiply, v], not the node order [v, multiply]. Freeing the
// derived tables keeps those outputs (BuildOutputs would reorder them);
// a graph without lets gets its outputs back in the same order.
TEST_F(GraphTest, OutputOrderSurvivesReleasingDerivedTables) {
  const Var* v = V("v");
  const Expr* sum = Op("add", {x_, x_});
  const Expr* product = Op("multiply", {sum, x_});
  const Expr* let = b_.MakeLet(v, sum, Tup({product, v}));
  const Expr* plain = Tup({product, Op("nn.relu", {sum}), sum});
  for (const Expr* root : {let, plain}) {
    IndexedGraph g(root);
    std::vector<std::vector<uint32_t>> before;
    for (uint32_t i = 0; i < g.size(); ++i) {
      before.emplace_back(g.outputs(i).begin(), g.outputs(i).end());
    }
    if (root == let) {
      std::vector<uint32_t> want = {g.IndexOf(product), g.IndexOf(v)};
      EXPECT_EQ(before[g.IndexOf(sum)], want);
    }
    g.ReleaseDerivedTables();
    for (uint32_t i = 0; i < g.size(); ++i) {
      EXPECT_TRUE(std::ranges::equal(g.outputs(i), before[i])) << "node " << i;
    }
  }
}

// A group of more members than the body builder searches, and inputs
// further from the root than the grouper's neighbourhood holds.
TEST_F(GraphTest, LargeGroups) {
  constexpr int kFields = 70;
  std::vector<Pattern> field_patterns;
  std::vector<const Expr*> fields;
  std::vector<const Var*> vars;
  for (int k = 0; k < kFields; ++k) {
    field_patterns.push_back(IsOp("nn.relu")(Wildcard()));
    vars.push_back(V("v" + std::to_string(k)));
    fields.push_back(Op("nn.relu", {vars.back()}));
  }
  const Expr* root = Tup(fields);
  PartitionStats stats;
  auto out = Partition(IsTuple(field_patterns), root, mod_.arena(), {}, &stats);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(stats.partitioned, 1);
  const auto* call = DynCast<Call>(*out);
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(call->args().size(), static_cast<size_t>(kFields));
  for (int k = 0; k < kFields; ++k) EXPECT_EQ(call->args()[k], vars[k]);
  const auto* fn = DynCast<Function>(call->callee());
  ASSERT_NE(fn, nullptr);
  const auto* body = DynCast<Tuple>(fn->body());
  ASSERT_NE(body, nullptr);
  ASSERT_EQ(body->fields().size(), static_cast<size_t>(kFields));
  for (int k = 0; k < kFields; ++k) {
    const auto* relu = DynCast<Call>(body->fields()[k]);
    ASSERT_NE(relu, nullptr);
    ASSERT_EQ(relu->args().size(), 1u);
    EXPECT_EQ(relu->args()[0], fn->params()[k]);
    EXPECT_EQ(fn->params()[k]->name(), "FunctionVar_0_" + std::to_string(k));
  }
}

// The grouper's prefilter is a necessary condition: wherever the matcher
// matches, MayMatchInGraph says so, and a match started at a graph index
// gives its bindings their own nodes' indices (commutative retries,
// alternations, re-associated multiply/divide, wrappers, tuples, recursion,
// wildcard callees, patterns longer than the prefilter's step budget), also
// in a graph of opaque composites and in one with lets; and it rules out
// calls of other ops and calls whose args are calls of other ops without a
// match attempt.
TEST_F(GraphTest, MayMatchInGraphNeverRejectsAMatch) {
  const Var *a = V("a"), *w = V("w"), *b = V("b"), *c = V("c");
  const Expr* conv = Op("nn.conv2d", {a, w});
  const Expr* bias = Op("nn.bias_add", {conv, b});
  const Expr* sum = Op("add", {c, bias});  // the conv-side arg second
  const Expr* relu = Op("nn.relu", {Op("add", {bias, sum})});
  const Expr* mul = Op("multiply", {a, Op("divide", {b, c})});
  constexpr int kDeep = 300;  // more steps than MayMatchInGraph takes
  const Expr* deep = a;
  Pattern deep_p = Wildcard();
  for (int k = 0; k < kDeep; ++k) {
    deep = Op("nn.relu", {deep});
    deep_p = IsOp("nn.relu")(deep_p);
  }
  const Expr* t = Tup({relu, mul, Get(Tup({a, b}), 1), Const(1.0), deep});
  Pattern conv_p = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern bias_p = IsOp("nn.bias_add")(conv_p, Wildcard());
  std::vector<Pattern> patterns = {
      IsOp("add")(bias_p, Wildcard()),
      IsOp("add")(IsOp("nn.relu")(Wildcard()), Wildcard()),
      IsOp("nn.relu")(Alt(IsOp("add")(conv_p, Wildcard()), IsOp("add")(bias_p, Wildcard()))),
      HasAttr({}, Capture("x", IsOp("add")(Wildcard(), bias_p))),
      (Wildcard() * Wildcard()) / Wildcard(),  // matches a * (b / c) re-associated
      IsTuple({Wildcard(), Wildcard(), IsTupleGetItem(IsAnyTuple(), 1), IsConstant(), Wildcard()}),
      Recursive("chain",
                [](const Pattern& self) {
                  return Alt(IsOp("add")(self, Wildcard()),
                             IsOp("nn.bias_add")(Wildcard(), Wildcard()));
                }),
      IsVar(),
      deep_p,
      IsCall(Wildcard(), {IsOp("nn.conv2d")(Wildcard(), Wildcard()), Wildcard()}),
      IsCall(IsOp("nn.bias_add") | IsOp("add"), {Wildcard(), IsVar()}),
  };
  IndexedGraph g(t);
  MayMatchCounts counts;
  ExpectMayMatchWhereMatches(patterns, g, counts);
  EXPECT_GE(counts.matches, 9);
  EXPECT_GT(counts.rejected, 0);
  EXPECT_GE(counts.indexed, 20 + kDeep);

  // The same nodes around a composite call, its function opaque (a leaf),
  // and bound by lets: the same matches.
  const Var* p = V("p");
  const Function* composite = Fn({p}, Op("add", {p, p}), FnAttr("PartitionedFromPattern", "add_"));
  IndexedGraph opaque(Tup({t, CallOf(composite, {sum})}), {.opaque_composites = true});
  ASSERT_EQ(opaque.kind(opaque.IndexOf(composite)), ExprKind::kFunction);
  EXPECT_TRUE(opaque.inputs(opaque.IndexOf(composite)).empty());
  MayMatchCounts opaque_counts;
  ExpectMayMatchWhereMatches(patterns, opaque, opaque_counts);
  EXPECT_GE(opaque_counts.matches, counts.matches);
  const Var *s = V("s"), *u = V("u");
  const Expr* lets = b_.MakeLet(
      s, sum, b_.MakeLet(u, Op("nn.relu", {s}), Tup({t, Op("add", {u, s}), Op("add", {s, bias})})));
  IndexedGraph let_graph(lets);
  MayMatchCounts let_counts;
  ExpectMayMatchWhereMatches(patterns, let_graph, let_counts);
  EXPECT_GE(let_counts.matches, counts.matches);
  EXPECT_GE(let_counts.indexed, counts.indexed);

  auto relu_of_add_conv = CompilePattern(IsOp("nn.relu")(IsOp("add")(conv_p, Wildcard())));
  ASSERT_TRUE(relu_of_add_conv.ok());
  EXPECT_FALSE(
      MayMatchInGraph(**relu_of_add_conv, (*relu_of_add_conv)->root(), g, g.IndexOf(relu)));
  auto add_bias = CompilePattern(IsOp("add")(bias_p, Wildcard()));
  ASSERT_TRUE(add_bias.ok());
  EXPECT_TRUE(MayMatchInGraph(**add_bias, (*add_bias)->root(), g, g.IndexOf(sum)));  // swapped
  EXPECT_FALSE(MayMatchInGraph(**add_bias, (*add_bias)->root(), g, g.IndexOf(bias)));

  // A wildcard callee does not admit every call: the args are looked at
  // (SimplifyExpr's FullElementwise); nor does an alternation tree below a
  // call stop the look (EliminateIdentity's operand).
  Pattern zeros = IsCall(IsOp("zeros"), {}) | IsOp("zeros_like")(Wildcard());
  auto fill = CompilePattern(IsCall(Wildcard(), {zeros, Wildcard()}) |
                             IsCall(Wildcard(), {Wildcard(), zeros}));
  ASSERT_TRUE(fill.ok());
  EXPECT_FALSE(MayMatchInGraph(**fill, (*fill)->root(), g, g.IndexOf(sum)));
  Pattern zero = Capture("zero", IsConstant() | zeros);
  auto identity = CompilePattern(IsOp("add")(Wildcard(), zero) | IsOp("multiply")(Wildcard(), zero) |
                                 IsOp("subtract")(Wildcard(), zero) |
                                 IsOp("divide")(Wildcard(), zero));
  ASSERT_TRUE(identity.ok());
  EXPECT_FALSE(MayMatchInGraph(**identity, (*identity)->root(), g, g.IndexOf(sum)));
}

}  // namespace
}  // namespace carve::testing
