// The rewrite driver, ported from TVM's test_dataflow_pattern.py rewrite tests
// (test_rewrite ... test_rewrite_with_pattern_recursion), plus carve's
// non-convergence report and re-typing between rounds.
#include "patterns/rewrite.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "patterns/builders.h"
#include "patterns/query.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

class RewriteTest : public PatternTest {
 protected:
  const Expr* Rewrite(std::vector<RewriteRule> rules, const Expr* e,
                      const RewriteOptions& options = {}) {
    auto r = RewriteExpr(rules, e, mod_.arena(), options);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->expr : nullptr;
  }
  // A rule built from a lambda over the context.
  static RewriteRule Rule(std::string name, Pattern p,
                          std::function<const Expr*(const RewriteContext&)> f, bool once = false) {
    RewriteRule r;
    r.name = std::move(name);
    r.pattern = std::move(p);
    r.rewrite = [f](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> { return f(ctx); };
    r.rewrite_once = once;
    return r;
  }
  RewriteRule AddToSubtract() {
    return Rule("add_to_sub", IsOp("add")(Wildcard(), Wildcard()), [this](const RewriteContext& c) {
      const auto* post = Cast<Call>(c.post());
      return Op("subtract", {post->args()[0], post->args()[1]});
    });
  }
  const Var* x_ = V("x");
  const Var* y_ = V("y");
  const Var* w_ = V("w");
};

TEST_F(RewriteTest, AddToSubtract) {
  const Expr* out = Rewrite({AddToSubtract()}, Op("add", {x_, y_}));
  EXPECT_TRUE(MatchPattern(IsOp("subtract")(Wildcard(), Wildcard()), out));
}

TEST_F(RewriteTest, AroundACalledFunction) {
  const Var* in = V("input");
  const Var* wt = V("weight");
  const Function* fn = Fn({in, wt}, Op("nn.relu", {Op("nn.conv2d", {in, wt})}));
  const Expr* out = Rewrite({AddToSubtract()}, Op("add", {CallOf(fn, {x_, w_}), y_}));
  EXPECT_TRUE(MatchPattern(IsOp("subtract")(Wildcard(), Wildcard()), out));
}

TEST_F(RewriteTest, InlinesACompositeFunction) {
  const Var* a = V("a");
  const Var* b = V("b");
  const Function* f = Fn({x_, y_}, Op("add", {x_, y_}), FnAttr("Composite", "add"));
  const Call* c_abs = Op("abs", {CallOf(f, {a, b})});
  RewriteRule inline_add = Rule(
      "inline", Wildcard().HasAttr({{"Composite", AttrValue::Str("add")}})(Wildcard(), Wildcard()),
      [this](const RewriteContext& c) {
        const auto* post = Cast<Call>(c.post());
        return Op("add", {post->args()[0], post->args()[1]});
      });
  const Expr* out = Rewrite({inline_add}, c_abs);
  EXPECT_TRUE(MatchPattern(IsOp("abs")(IsOp("add")(Wildcard(), Wildcard())), out));
}

TEST_F(RewriteTest, IdentityCallbackLeavesTheGraphUnchanged) {
  const Call* y_add = Op("add", {y_, y_});
  const Call* n0 = Op("add", {x_, y_add});
  const Call* n1 = Op("add", {x_, n0});
  const Call* out = Op("add", {n1, n0});
  Pattern a = Wildcard(), b = Wildcard();
  Pattern p0 = IsOp("add")(a, b);
  Pattern p1 = IsOp("add")(p0, a);
  RewriteRule identity =
      Rule("id", IsOp("add")(p0, p1), [](const RewriteContext& c) { return c.post(); });
  EXPECT_EQ(Rewrite({identity}, out), out);
}

class BatchNormTest : public RewriteTest {
 protected:
  // gamma * (x - mean) / sqrt(var + eps) + beta  =>  nn.batch_norm(...)[0]
  RewriteRule BatchNormRule() {
    x_p_ = Wildcard(), var_p_ = Wildcard(), mean_p_ = Wildcard();
    beta_p_ = Wildcard(), gamma_p_ = Wildcard(), eps_p_ = IsConstant();
    Pattern p = gamma_p_ * (x_p_ - mean_p_) / IsOp("sqrt")(var_p_ + eps_p_) + beta_p_;
    return Rule("batch_norm", p, [this](const RewriteContext& c) {
      double eps = Cast<Constant>(c.Get(eps_p_))->data().GetAsDouble(0);
      return BN(c.Get(x_p_), c.Get(gamma_p_), c.Get(beta_p_), c.Get(mean_p_), c.Get(var_p_), eps);
    });
  }
  const Expr* BN(const Expr* x, const Expr* gamma, const Expr* beta, const Expr* mean,
                 const Expr* var, double eps = 1e-5) {
    return Get(
        Op("nn.batch_norm", {x, gamma, beta, mean, var}, {{"epsilon", AttrValue::Float(eps)}}), 0);
  }
  const Expr* Formula(const Expr* x, bool plus = true) {
    const Expr* norm = Op("divide", {Op("multiply", {gamma_, Op("subtract", {x, mean_})}),
                                     Op("sqrt", {Op("add", {var_, Const(1e-5)})})});
    return Op(plus ? "add" : "subtract", {norm, beta_});
  }
  Pattern x_p_, var_p_, mean_p_, beta_p_, gamma_p_, eps_p_;
  const Var* var_ = V("var");
  const Var* mean_ = V("mean");
  const Var* beta_ = V("beta");
  const Var* gamma_ = V("gamma");
};

TEST_F(BatchNormTest, Fuse) {
  ExpectSame(Rewrite({BatchNormRule()}, Formula(x_)), BN(x_, gamma_, beta_, mean_, var_));
}

TEST_F(BatchNormTest, NearMissIsNotRewritten) {
  const Expr* fake = Formula(x_, /*plus=*/false);
  EXPECT_EQ(Rewrite({BatchNormRule()}, fake), fake);
}

TEST_F(BatchNormTest, DoubleAndPartial) {
  const Expr* bn1 = BN(x_, gamma_, beta_, mean_, var_);
  ExpectSame(Rewrite({BatchNormRule()}, Formula(Formula(x_))), BN(bn1, gamma_, beta_, mean_, var_));
  const Expr* fake = Formula(x_, false);
  ExpectSame(Rewrite({BatchNormRule()}, Formula(fake)), BN(fake, gamma_, beta_, mean_, var_));
}

TEST_F(BatchNormTest, CommutedAndReassociatedForms) {
  const Expr* expected = BN(x_, gamma_, beta_, mean_, var_);
  const Expr* sub = Op("subtract", {x_, mean_});
  const Expr* sqrt = Op("sqrt", {Op("add", {var_, Const(1e-5)})});
  // beta + gamma * (x - mean) / sqrt(var + eps)
  const Expr* commuted = Op("add", {beta_, Op("divide", {Op("multiply", {gamma_, sub}), sqrt})});
  ExpectSame(Rewrite({BatchNormRule()}, commuted), expected);
  // gamma * ((x - mean) / sqrt(var + eps)) + beta
  const Expr* sub2 = Op("subtract", {x_, mean_});
  const Expr* sqrt2 = Op("sqrt", {Op("add", {var_, Const(1e-5)})});
  const Expr* associated =
      Op("add", {Op("multiply", {gamma_, Op("divide", {sub2, sqrt2})}), beta_});
  ExpectSame(Rewrite({BatchNormRule()}, associated), expected);
}

TEST_F(RewriteTest, QuadrupleDominatorRemoval) {
  Pattern inp = Wildcard(), weight = Wildcard();
  Pattern elemwise = Wildcard().HasAttr({{"TOpPattern", AttrValue::Int(0)}})(Wildcard()) |
                     IsOp("add")(Wildcard(), Wildcard());
  Pattern p =
      Dominates(IsOp("nn.conv2d")(inp, weight), elemwise, IsOp("add")(Wildcard(), Wildcard()));
  RewriteRule rule = Rule("remove", p, [&](const RewriteContext& c) {
    return Op("nn.conv2d", {c.Get(inp), c.Get(weight)});
  });
  const Var* in = V("input");
  const Var* wt = V("weight");
  auto classic = [&](const Expr* i) {
    const Call* conv = Op("nn.conv2d", {i, wt});
    return Op("add", {Op("nn.relu", {Op("nn.relu", {conv})}), Op("nn.leaky_relu", {conv})});
  };
  auto deeper = [&](const Expr* i) {
    const Call* conv = Op("nn.conv2d", {i, wt});
    return Op("add",
              {Op("tanh", {Op("nn.relu", {Op("nn.relu", {conv})})}), Op("nn.leaky_relu", {conv})});
  };
  auto single = [&](const Expr* i) {
    const Call* relu = Op("nn.relu", {Op("nn.relu", {Op("nn.conv2d", {i, wt})})});
    return Op("add", {relu, Op("tanh", {relu})});
  };
  auto nested = [&](const Expr* i) {
    const Call* conv = Op("nn.conv2d", {i, wt});
    const Call* relu = Op("nn.relu", {conv});
    return Op("add", {Op("tanh", {Op("add", {relu, relu})}), Op("nn.leaky_relu", {conv})});
  };
  const Expr* out = nested(single(deeper(classic(in))));
  const Expr* four = in;
  for (int i = 0; i < 4; ++i) four = Op("nn.conv2d", {four, wt});
  ExpectSame(Rewrite({rule}, out), four);
}

TEST_F(RewriteTest, AlgebraicSimplificationWithSixRules) {
  const Constant* zero = ConstI(0);
  const Constant* zerof = Const(0.0);
  const Constant* one = ConstI(1);
  const Constant* onef = Const(1.0);
  auto zero_p = [&] { return IsExpr(ConstI(0)) | IsExpr(Const(0.0)); };
  auto one_p = [&] { return IsExpr(ConstI(1)) | IsExpr(Const(1.0)); };
  auto keep = [](Pattern x) { return [x](const RewriteContext& c) { return c.Get(x); }; };
  Pattern ax = Wildcard(), sx = Wildcard(), mx = Wildcard(), dx = Wildcard();
  Pattern mz = zero_p(), zd = zero_p();
  std::vector<RewriteRule> rules = {
      Rule("add_zero", ax + zero_p(), keep(ax)),   Rule("sub_zero", sx - zero_p(), keep(sx)),
      Rule("mul_one", mx * one_p(), keep(mx)),     Rule("div_one", dx / one_p(), keep(dx)),
      Rule("mul_zero", mz * Wildcard(), keep(mz)), Rule("zero_div", zd / Wildcard(), keep(zd)),
  };
  auto simplify = [&](const Expr* e) { return Rewrite(rules, e); };
  EXPECT_EQ(simplify(Op("add", {x_, zero})), x_);
  EXPECT_EQ(simplify(Op("add", {x_, zerof})), x_);
  EXPECT_EQ(simplify(Op("add", {zero, x_})), x_);
  EXPECT_EQ(simplify(Op("add", {zerof, x_})), x_);
  EXPECT_EQ(simplify(Op("subtract", {x_, zero})), x_);
  EXPECT_EQ(simplify(Op("subtract", {x_, zerof})), x_);
  EXPECT_EQ(simplify(Op("multiply", {x_, one})), x_);
  EXPECT_EQ(simplify(Op("multiply", {onef, x_})), x_);
  EXPECT_EQ(simplify(Op("multiply", {x_, zero})), zero);
  EXPECT_EQ(simplify(Op("multiply", {x_, zerof})), zerof);
  EXPECT_EQ(simplify(Op("divide", {x_, one})), x_);
  EXPECT_EQ(simplify(Op("divide", {x_, onef})), x_);
  EXPECT_EQ(simplify(Op("divide", {zero, x_})), zero);
  EXPECT_EQ(simplify(Op("divide", {zerof, x_})), zerof);
  // (x + 0 * y) / 1 + (y * 1) - 0 / x  =>  x + y
  const Expr* big =
      Op("subtract", {Op("add", {Op("divide", {Op("add", {x_, Op("multiply", {zero, y_})}), one}),
                                 Op("multiply", {y_, one})}),
                      Op("divide", {zero, x_})});
  ExpectSame(simplify(big), Op("add", {x_, y_}));
}

TEST_F(RewriteTest, FunctionWithFuzzyBody) {
  const Var* b = V("b");
  const Var* x1 = V("x1");
  const Var* w1 = V("w1");
  Pattern fp = IsFunction({Wildcard(), Wildcard()}, Wildcard());
  Pattern p = fp(Wildcard(), Wildcard()) + Wildcard();
  const Function* fn = Fn({x1, w1}, Op("nn.conv2d", {x1, w1}));
  const Expr* expr = Op("add", {Op("add", {CallOf(fn, {x_, w_}), b}), b});
  RewriteRule rule = Rule("r", p, [&](const RewriteContext&) { return Op("add", {x_, w_}); });
  ExpectSame(Rewrite({rule}, expr), Op("add", {Op("add", {x_, w_}), b}));
}

class RewriteOnceTest : public RewriteTest {
 protected:
  // Drops the last field of a concatenate's tuple; a single field is unwrapped.
  RewriteRule ConcatRule(bool once) {
    return Rule(
        "concat", IsOp("concatenate").CallAnyArgs(),
        [this](const RewriteContext& c) -> const Expr* {
          const auto* tuple = Cast<Tuple>(Cast<Call>(c.post())->args()[0]);
          auto fields = tuple->fields();
          if (fields.size() == 1) return fields[0];
          std::vector<const Expr*> kept(fields.begin(), fields.end() - 1);
          return Concat(kept);
        },
        once);
  }
  RewriteRule ReluAfterSoftmax(bool once) {
    return Rule(
        "relu", IsOp("nn.softmax").CallAnyArgs(),
        [this](const RewriteContext& c) -> const Expr* { return Op("nn.relu", {c.post()}); }, once);
  }
  const Expr* Concat(std::vector<const Expr*> fields) {
    return Op("concatenate", {Tup(std::move(fields))}, {{"axis", AttrValue::Int(0)}});
  }
  const Var* z_ = V("z");
};

TEST_F(RewriteOnceTest, OneRule) {
  ExpectSame(Rewrite({ConcatRule(false)}, Concat({x_, y_, z_})), x_);
  ExpectSame(Rewrite({ConcatRule(true)}, Concat({x_, y_, z_})), Concat({x_, y_}));
}

TEST_F(RewriteOnceTest, TwoRules) {
  const Expr* before = Op("nn.softmax", {Concat({x_, y_, z_})});
  ExpectSame(Rewrite({ReluAfterSoftmax(true), ConcatRule(true)}, before),
             Op("nn.relu", {Op("nn.softmax", {Concat({x_, y_})})}));
  ExpectSame(Rewrite({ReluAfterSoftmax(true), ConcatRule(false)}, before),
             Op("nn.relu", {Op("nn.softmax", {x_})}));
}

TEST_F(RewriteTest, RecursivePatternsRewriteOnce) {
  const Var* data = V("data", F32({2, 8}));
  const Expr* feat =
      Op("nn.dense", {data, b_.MakeConstant(NDArray::Empty(DataType::Float(32), {4, 8}))});
  for (int i = 0; i < 6; ++i) feat = Op("cast", {feat}, {{"dtype", AttrValue::Str("float32")}});
  const Expr* expected = Op("nn.relu", {feat});
  Pattern dense = IsOp("nn.dense")(Wildcard(), Wildcard());
  auto relu_after = [this](const RewriteContext& c) -> const Expr* {
    return Op("nn.relu", {c.post()});
  };
  Pattern call_args =
      Recursive("a", [&](const Pattern& self) { return IsOp("cast")(self | dense); });
  Pattern alt_right =
      Recursive("b", [&](const Pattern& self) { return IsOp("cast")(dense | self); });
  for (const Pattern& p : {call_args, alt_right}) {
    ExpectSame(Rewrite({Rule("r", p, relu_after, /*once=*/true)}, feat), expected);
  }
}

TEST_F(RewriteTest, NonConvergenceIsAnErrorNamingTheRule) {
  // relu(%x) => relu(relu(%x)) never stops (one rewrite per round).
  RewriteRule grow = Rule("grow", IsOp("nn.relu")(IsVar()),
                          [this](const RewriteContext& c) { return Op("nn.relu", {c.post()}); });
  RewriteOptions options;
  options.max_rounds = 7;
  auto r = RewriteExpr({AddToSubtract(), grow}, Op("nn.relu", {x_}), mod_.arena(), options);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("did not converge after 7 rounds"));
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("grow (1 rewrite in the last round, 7 in total)"));
  EXPECT_THAT(std::string(r.status().message()), ::testing::Not(HasSubstr("add_to_sub")));
}

TEST_F(RewriteTest, GrowthStopsAtTheNodeLimit) {
  // relu(?x) => relu(relu(?x)) on every relu: the graph doubles every round.
  RewriteRule grow = Rule("grow", IsOp("nn.relu")(Wildcard()),
                          [this](const RewriteContext& c) { return Op("nn.relu", {c.post()}); });
  RewriteOptions options;
  options.max_nodes = 1000;
  auto r = RewriteExpr({grow}, Op("nn.relu", {x_}), mod_.arena(), options);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string message(r.status().message());
  EXPECT_THAT(message, HasSubstr("rewriting grew the graph from 3 to "));
  EXPECT_THAT(message, HasSubstr("nodes, over the node limit of 1000, in 10 rounds; still "
                                 "firing: grow (512 rewrites in the last round, 1023 in total)"));
  // The default limit (16x, at least 65536 nodes) stops it too, quickly.
  auto d = RewriteExpr({grow}, Op("nn.relu", {x_}), mod_.arena());
  ASSERT_EQ(d.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("over the node limit of 65536"));
  EXPECT_EQ(DefaultMaxNodes(10), 65536);
  EXPECT_EQ(DefaultMaxNodes(100000), 1600000);
}

TEST_F(RewriteTest, RequireTypeRunsTheRetypeCallbackBetweenPasses) {
  const Var* a = V("a", F32({4}));
  const Expr* e = Op("nn.relu", {Op("exp", {a})});
  // exp(t) where t is float32  =>  negative(t); needs the type of the arg.
  Pattern arg = Wildcard();
  RewriteRule rule = Rule("exp_f32", IsOp("exp")(arg.HasDType("float32")),
                          [&](const RewriteContext& c) { return Op("negative", {c.Get(arg)}); });
  rule.require_type = true;
  auto missing = RewriteExpr({rule}, e, mod_.arena());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  int calls = 0;
  RewriteOptions options;
  options.retype = [&](const Expr* x) -> absl::StatusOr<const Expr*> {
    ++calls;
    auto t = InferExprType(x, &mod_);
    if (!t.ok()) return t.status();
    return x;
  };
  auto r = RewriteExpr({rule}, e, mod_.arena(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectSame(r->expr, Op("nn.relu", {Op("negative", {a})}));
  EXPECT_EQ(calls, 2);  // once before each pass that follows a change
  EXPECT_EQ(r->rewrites[0].second, 1);
}

TEST_F(RewriteTest, WholeModules) {
  Module mod;
  IRBuilder b = mod.builder();
  const Var* a = b.MakeVar("a");
  const Var* c = b.MakeVar("c");
  mod.Add("main", b.MakeFunction(std::vector<const Var*>{a}, Op("add", {a, a})));
  mod.Add("other", b.MakeFunction(std::vector<const Var*>{c}, Op("nn.relu", {Op("add", {c, c})})));
  auto r = RewriteModule({AddToSubtract()}, mod);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rewrites[0].second, 2);
  EXPECT_TRUE(FindMatches(IsOp("add")(Wildcard(), Wildcard()), mod)->empty());
  auto subs = FindMatches(IsOp("subtract")(Wildcard(), Wildcard()), mod);
  ASSERT_EQ(subs->size(), 2u);
  EXPECT_EQ((*subs)[0].function, "main");
  EXPECT_EQ((*subs)[1].function, "other");
}

TEST_F(RewriteTest, CallbackErrorsPropagate) {
  RewriteRule failing;
  failing.name = "fails";
  failing.pattern = IsOp("add")(Wildcard(), Wildcard());
  failing.rewrite = [](const RewriteContext&) -> absl::StatusOr<const Expr*> {
    return absl::UnimplementedError("nope");
  };
  auto r = RewriteExpr({failing}, Op("add", {x_, y_}), mod_.arena());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  failing.pattern = IsOp("ad")(Wildcard(), Wildcard());
  r = RewriteExpr({failing}, Op("add", {x_, y_}), mod_.arena());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("rule 'fails': unknown operator 'ad'"));
}

}  // namespace
}  // namespace carve::testing
