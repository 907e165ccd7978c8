// Partition, ported from TVM's test_dataflow_pattern.py partition tests
// (test_double_partition ... test_partition_parallel_branch_with_same_input),
// plus MergeComposite's table semantics on the corpus BYOC demo.
#include "patterns/partition.h"

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "patterns/builders.h"
#include "tests/patterns/pattern_test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

class PartitionTest : public PatternTest {
 protected:
  const Expr* Part(const Pattern& p, const Expr* e, PartitionOptions options = {}) {
    auto r = Partition(p, e, mod_.arena(), options);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : nullptr;
  }
  static PartitionOptions WithComposite(std::string_view name) {
    PartitionOptions o;
    o.attrs.push_back({"Composite", AttrValue::Str(name)});
    return o;
  }
  // fn (params) { body } with PartitionedFromPattern=label (and Composite).
  const Function* Composite(std::vector<const Var*> params, const Expr* body,
                            std::string_view label, std::string_view composite = "") {
    const Attrs* attrs = FnAttr("PartitionedFromPattern", label);
    if (!composite.empty()) attrs = WithAttr(attrs, "Composite", AttrValue::Str(composite));
    return Fn(std::move(params), body, attrs);
  }
  const Call* ConvBiasRelu(const Expr* x, const Expr* w, const Expr* b) {
    return Op("nn.relu", {Op("nn.bias_add", {Op("nn.conv2d", {x, w}), b})});
  }
  const Var* x_ = V("x");
  const Var* w_ = V("w");
  const Var* b_ = V("b");
};

TEST_F(PartitionTest, DoublePartitionWithComposites) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern bias = IsOp("nn.bias_add")(conv, Wildcard());
  Pattern relu = IsOp("nn.relu")(bias);
  const Var* w2 = V("weight");
  const Var* b2 = V("bias");
  const Expr* graph = Op("nn.bias_add", {Op("nn.conv2d", {ConvBiasRelu(x_, w_, b_), w2}), b2});
  const Expr* p = Part(relu, graph, WithComposite("conv_bias_relu"));
  p = Part(bias, p, WithComposite("conv_bias"));

  const Var *i0 = V("i"), *w0 = V("w"), *b0 = V("b");
  const Function* f0 = Composite({i0, w0, b0}, ConvBiasRelu(i0, w0, b0),
                                 "nn.conv2d_nn.bias_add_nn.relu_", "conv_bias_relu");
  const Var *i1 = V("i"), *w1 = V("w"), *b1 = V("b");
  const Function* f1 = Composite({i1, w1, b1}, Op("nn.bias_add", {Op("nn.conv2d", {i1, w1}), b1}),
                                 "nn.conv2d_nn.bias_add_", "conv_bias");
  ExpectSame(p, CallOf(f1, {CallOf(f0, {x_, w_, b_}), w2, b2}));
}

TEST_F(PartitionTest, AttributeOrderAndParameterNames) {
  Pattern relu = IsOp("nn.relu")(Wildcard());
  const Expr* p = Part(relu, Op("nn.relu", {x_}), WithComposite("byoc.relu"));
  const auto* call = Cast<Call>(p);
  const auto* fn = Cast<Function>(call->callee());
  ASSERT_EQ(fn->attrs()->entries().size(), 2u);
  EXPECT_EQ(fn->attrs()->entries()[0].key, "PartitionedFromPattern");
  EXPECT_EQ(fn->attrs()->entries()[1].key, "Composite");
  EXPECT_EQ(fn->params()[0]->name(), "FunctionVar_0_0");
  EXPECT_EQ(fn->params()[0]->annotation(), nullptr);
  EXPECT_EQ(Print(p),
            "free_var %x;\n"
            "%0 = fn (%FunctionVar_0_0, PartitionedFromPattern=\"nn.relu_\", "
            "Composite=\"byoc.relu\") {\n"
            "  nn.relu(%FunctionVar_0_0)\n"
            "};\n"
            "%0(%x)");
}

class PartitionDominatorTest : public PartitionTest {
 public:
  Pattern Diamond(bool fuzzy) {
    Pattern elemwise = Wildcard().HasAttr({{"TOpPattern", AttrValue::Int(0)}})(Wildcard());
    if (fuzzy) elemwise = elemwise | IsOp("add")(Wildcard(), Wildcard());
    return Dominates(IsOp("nn.conv2d")(Wildcard(), Wildcard()), elemwise,
                     IsOp("add")(Wildcard(), Wildcard()));
  }
  const Expr* Classic(const Expr* i, const Expr* w) {
    const Call* conv = Op("nn.conv2d", {i, w});
    return Op("add", {Op("nn.relu", {Op("nn.relu", {conv})}), Op("nn.leaky_relu", {conv})});
  }
  const Expr* Deeper(const Expr* i, const Expr* w) {
    const Call* conv = Op("nn.conv2d", {i, w});
    return Op("add",
              {Op("tanh", {Op("nn.relu", {Op("nn.relu", {conv})})}), Op("nn.leaky_relu", {conv})});
  }
  const Expr* Single(const Expr* i, const Expr* w) {
    const Call* relu = Op("nn.relu", {Op("nn.relu", {Op("nn.conv2d", {i, w})})});
    return Op("add", {relu, Op("tanh", {relu})});
  }
  const Expr* Nested(const Expr* i, const Expr* w) {
    const Call* conv = Op("nn.conv2d", {i, w});
    const Call* relu = Op("nn.relu", {conv});
    return Op("add", {Op("tanh", {Op("add", {relu, relu})}), Op("nn.leaky_relu", {conv})});
  }
};

TEST_F(PartitionDominatorTest, Single) {
  const Expr* in = Op("multiply", {x_, x_});
  const Expr* wt = Op("multiply", {w_, w_});
  const Var *i = V("input"), *w = V("weight");
  const Function* f =
      Composite({i, w}, Classic(i, w), "nn.conv2d_nn.relu_nn.relu_nn.leaky_relu_add_");
  ExpectSame(Part(Diamond(false), Classic(in, wt)), CallOf(f, {in, wt}));
}

TEST_F(PartitionDominatorTest, Quadruple) {
  const Expr* out = Nested(Single(Deeper(Classic(x_, w_), w_), w_), w_);
  using Builder = const Expr* (PartitionDominatorTest::*)(const Expr*, const Expr*);
  const std::pair<Builder, const char*> parts[] = {
      {&PartitionDominatorTest::Classic, "nn.conv2d_nn.relu_nn.relu_nn.leaky_relu_add_"},
      {&PartitionDominatorTest::Deeper, "nn.conv2d_nn.relu_nn.relu_tanh_nn.leaky_relu_add_"},
      {&PartitionDominatorTest::Single, "nn.conv2d_nn.relu_nn.relu_tanh_add_"},
      {&PartitionDominatorTest::Nested, "nn.conv2d_nn.relu_add_tanh_nn.leaky_relu_add_"}};
  const Expr* expected = x_;
  for (const auto& [build, label] : parts) {
    const Var *i = V("input"), *w = V("weight");
    expected = CallOf(Composite({i, w}, (this->*build)(i, w), label), {expected, w_});
  }
  ExpectSame(Part(Diamond(true), out), expected);
}

class PartitionBatchNormTest : public PartitionTest {
 protected:
  Pattern BnPattern() {
    return Wildcard() * (Wildcard() - Wildcard()) / IsOp("sqrt")(Wildcard() + IsConstant()) +
           Wildcard();
  }
  const Expr* BN(const Expr* x, const Expr* var, const Expr* mean, const Expr* beta,
                 const Expr* gamma) {
    const Expr* norm = Op("divide", {Op("multiply", {gamma, Op("subtract", {x, mean})}),
                                     Op("sqrt", {Op("add", {var, eps_})})});
    return Op("add", {norm, beta});
  }
  const Function* BnFunction() {
    const Var *xf = V("xf"), *varf = V("varf"), *meanf = V("meanf"), *betaf = V("betaf"),
              *gammaf = V("gammaf");
    // Parameters in pattern post-order: gamma, x, mean, var (eps embedded), beta.
    return Composite({gammaf, xf, meanf, varf, betaf}, BN(xf, varf, meanf, betaf, gammaf),
                     "subtract_multiply_add_sqrt_divide_add_");
  }
  const Constant* eps_ = Const(1e-5);
  const Var *var_ = V("var"), *mean_ = V("mean"), *beta_ = V("beta"), *gamma_ = V("gamma");
};

TEST_F(PartitionBatchNormTest, ParameterOrderFollowsThePattern) {
  ExpectSame(Part(BnPattern(), BN(x_, var_, mean_, beta_, gamma_)),
             CallOf(BnFunction(), {gamma_, x_, mean_, var_, beta_}));
}

TEST_F(PartitionBatchNormTest, TwoSeparateFunctions) {
  const Expr* bn2 = BN(BN(x_, var_, mean_, beta_, gamma_), var_, mean_, beta_, gamma_);
  const Call* inner = CallOf(BnFunction(), {gamma_, x_, mean_, var_, beta_});
  ExpectSame(Part(BnPattern(), bn2), CallOf(BnFunction(), {gamma_, inner, mean_, var_, beta_}));
}

TEST_F(PartitionTest, OverlappingProjectionsAreNotPartitioned) {
  Pattern bn = IsOp("nn.batch_norm")(Wildcard(), Wildcard(), Wildcard(), Wildcard(), Wildcard());
  Pattern tgi = IsTupleGetItem(bn, 0);
  const Call* call = Op("nn.batch_norm", {x_, V("gamma"), V("beta"), V("mean"), V("var")});
  const Expr* add = Op("add", {Get(call, 0), Get(call, 0)});
  EXPECT_EQ(Part(tgi, add), add);
}

TEST_F(PartitionTest, OverusedInteriorNodeIsNotPartitioned) {
  Pattern pattern = IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), Wildcard()));
  const Call* conv = Op("nn.conv2d", {x_, w_});
  const Expr* out = Op("add", {Op("nn.relu", {conv}), conv});
  PartitionStats stats;
  auto r = Partition(pattern, out, mod_.arena(), {}, &stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, out);
  EXPECT_EQ(stats.groups, 0);
}

TEST_F(PartitionTest, FuzzyTupleFieldsBecomeParameters) {
  Pattern concat = IsOp("concatenate")(IsAnyTuple());
  auto cat = [&](std::vector<const Expr*> fields) {
    return Op("concatenate", {Tup(std::move(fields))});
  };
  const Var* y = V("y");
  const Expr* z = Op("add", {x_, y});
  std::vector<const Expr*> args = {x_, y, z};
  for (size_t n = 1; n <= 3; ++n) {
    std::vector<const Expr*> outer(args.begin(), args.begin() + n);
    std::vector<const Var*> params;
    std::vector<const Expr*> param_exprs;
    for (size_t k = 0; k < n; ++k) {
      params.push_back(V("p"));
      param_exprs.push_back(params.back());
    }
    ExpectSame(Part(concat, cat(outer)),
               CallOf(Composite(params, cat(param_exprs), "Tuple_concatenate_"), outer));
  }
}

TEST_F(PartitionTest, FuzzyFunctionArgs) {
  Pattern pattern = IsFunctionAnyParams(Wildcard() + Wildcard()).CallAnyArgs() + Wildcard();
  const Var *y = V("y"), *z = V("z");
  const Var *xp = V("xp"), *yp = V("yp"), *zp = V("zp");
  std::vector<const Function*> fns = {Fn({xp}, Op("add", {xp, xp})),
                                      Fn({xp, yp}, Op("add", {xp, yp})),
                                      Fn({xp, yp, zp}, Op("add", {Op("add", {xp, yp}), zp}))};
  std::vector<const Expr*> actual = {x_, y, z};
  for (const Function* fn : fns) {
    size_t n = fn->params().size();
    std::vector<const Expr*> call_args(actual.begin(), actual.begin() + n);
    const Expr* expr = Op("add", {CallOf(fn, call_args), b_});
    std::vector<const Var*> params;
    std::vector<const Expr*> inner_args;
    for (size_t k = 0; k <= n; ++k) params.push_back(V("p"));
    for (size_t k = 0; k < n; ++k) inner_args.push_back(params[k]);
    std::string label = n == 3 ? "add_add_FunctionCall_add_" : "add_FunctionCall_add_";
    const Function* f = Composite(params, Op("add", {CallOf(fn, inner_args), params[n]}), label);
    call_args.push_back(b_);
    ExpectSame(Part(pattern, expr), CallOf(f, call_args));
  }
}

TEST_F(PartitionTest, CheckOnAttributes) {
  Pattern pattern = IsOp("nn.relu")(IsOp("nn.conv2d")(IsVar("input"), Wildcard()));
  PartitionOptions options;
  options.check = [](const Expr* pre) {
    const auto* conv = Cast<Call>(Cast<Call>(pre)->args()[0]);
    return conv->attrs()->GetString("data_layout") == "NCHW";
  };
  const Var *x = V("input"), *w = V("weight");
  const Var *xf = V("input"), *wf = V("weight");
  const Function* f =
      Composite({xf, wf}, Op("nn.relu", {Op("nn.conv2d", {xf, wf})}), "nn.conv2d_nn.relu_");
  ExpectSame(Part(pattern, Op("nn.relu", {Op("nn.conv2d", {x, w})}), options), CallOf(f, {x, w}));
  const Expr* nhwc =
      Op("nn.relu", {Op("nn.conv2d", {x, w}, {{"data_layout", AttrValue::Str("NHWC")}})});
  EXPECT_EQ(Part(pattern, nhwc, options), nhwc);
}

// A rejected group downstream of an accepted one: its nodes (whose inputs
// changed) are rebuilt over the accepted group's call, while nothing of an
// accepted group but its call reaches the result.
TEST_F(PartitionTest, RejectedGroupRebuiltOverAcceptedOne) {
  Pattern pattern = IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), Wildcard()));
  const Var* w2 = V("w2");
  PartitionOptions options;
  options.check = [](const Expr* pre) {
    const Expr* weight = Cast<Call>(Cast<Call>(pre)->args()[0])->args()[1];
    return Cast<Var>(weight)->name() != "w2";
  };
  const Expr* graph =
      Op("nn.relu", {Op("nn.conv2d", {Op("nn.relu", {Op("nn.conv2d", {x_, w_})}), w2})});
  const Var *xf = V("x"), *wf = V("w");
  const Function* f =
      Composite({xf, wf}, Op("nn.relu", {Op("nn.conv2d", {xf, wf})}), "nn.conv2d_nn.relu_");
  ExpectSame(Part(pattern, graph, options),
             Op("nn.relu", {Op("nn.conv2d", {CallOf(f, {x_, w_}), w2})}));
}

TEST_F(PartitionTest, CheckOnTypes) {
  Pattern pattern = IsOp("nn.relu")(IsOp("nn.conv2d")(Wildcard(), Wildcard()));
  PartitionOptions options;
  options.check = [](const Expr* pre) {
    const auto* conv = Cast<Call>(Cast<Call>(pre)->args()[0]);
    const auto* t = DynCast<TensorType>(conv->checked_type());
    return conv->attrs()->GetString("data_layout") == "NCHW" && t != nullptr &&
           t->shape()[0].value == 1;
  };
  auto graph = [&](int64_t batch, std::string_view layout) {
    const Var* x = V("input", F32({batch, 10, 10, 10}));
    const Var* w = V("weight", F32({10, 10, 3, 3}));
    const Expr* relu =
        Op("nn.relu", {Op("nn.conv2d", {x, w}, {{"data_layout", AttrValue::Str(layout)}})});
    Infer(relu);
    return relu;
  };
  const Expr* ok = Part(pattern, graph(1, "NCHW"), options);
  ASSERT_TRUE(Isa<Call>(ok));
  const auto* fn = DynCast<Function>(Cast<Call>(ok)->callee());
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->GetStringAttr("PartitionedFromPattern"), "nn.conv2d_nn.relu_");
  const Expr* nhwc = graph(1, "NHWC");
  EXPECT_EQ(Part(pattern, nhwc, options), nhwc);
  const Expr* batch2 = graph(2, "NCHW");
  EXPECT_EQ(Part(pattern, batch2, options), batch2);
}

TEST_F(PartitionTest, BothOptionalPlacementsGiveTheSamePartition) {
  Pattern bias = IsOp("nn.conv2d")(Wildcard(), Wildcard()).Optional([](const Pattern& p) {
    return IsOp("nn.bias_add")(p, Wildcard());
  });
  Pattern pattern1 = IsOp("nn.relu")(bias);
  Pattern pattern2 = IsOp("nn.bias_add")(IsOp("nn.conv2d")(Wildcard(), Wildcard()), Wildcard())
                         .Optional([](const Pattern& p) { return IsOp("nn.relu")(p); });
  const Expr* relu = ConvBiasRelu(x_, w_, b_);
  const Var *xf = V("x"), *wf = V("w"), *bf = V("b");
  const Function* f =
      Composite({xf, wf, bf}, ConvBiasRelu(xf, wf, bf), "nn.conv2d_nn.bias_add_nn.relu_");
  EXPECT_TRUE(MatchPattern(pattern1, relu));
  ExpectSame(Part(pattern1, relu), CallOf(f, {x_, w_, b_}));
  EXPECT_TRUE(MatchPattern(pattern2, relu));
  ExpectSame(Part(pattern2, relu), CallOf(f, {x_, w_, b_}));
}

TEST_F(PartitionTest, CalledFunctionPatterns) {
  const Var *x1 = V("x1"), *w1 = V("w1");
  Pattern wc_x1 = Wildcard(), wc_w1 = Wildcard();
  const Function* func = Fn({x1, w1}, Op("nn.conv2d", {x1, w1}));
  const Expr* expr = Op("add", {Op("add", {CallOf(func, {x_, w_}), b_}), b_});
  auto expected = [&] {
    const Var *x2 = V("x2"), *w2 = V("w2"), *b2 = V("b2");
    const Function* f2 = Composite({x2, w2, b2}, Op("add", {CallOf(func, {x2, w2}), b2}),
                                   "nn.conv2d_FunctionCall_add_");
    return Op("add", {CallOf(f2, {x_, w_, b_}), b_});
  };
  Pattern exact =
      IsFunction({wc_x1, wc_w1}, IsOp("nn.conv2d")(wc_x1, wc_w1))(Wildcard(), Wildcard()) +
      Wildcard();
  ExpectSame(Part(exact, expr), expected());
  Pattern fuzzy_body =
      IsFunction({Wildcard(), Wildcard()}, Wildcard())(Wildcard(), Wildcard()) + Wildcard();
  ExpectSame(Part(fuzzy_body, expr), expected());
  // A function pattern alone is not partitioned (it is not called).
  EXPECT_EQ(Part(IsFunctionAnyParams(Wildcard()), func), func);
}

TEST_F(PartitionTest, AlternativeFunctionPatterns) {
  const Var *x1 = V("x1"), *w1 = V("w1");
  Pattern wc_x1 = Wildcard(), wc_w1 = Wildcard(), wc_x = Wildcard(), wc_w = Wildcard();
  Pattern f0 = IsFunction({wc_x1, wc_w1}, IsOp("sigmoid")(IsOp("nn.conv2d")(wc_x1, wc_w1)));
  Pattern f1 = IsFunction({wc_x1, wc_w1}, IsOp("nn.relu")(IsOp("nn.conv2d")(wc_x1, wc_w1)));
  Pattern pattern = f0(wc_x, wc_w) | f1(wc_x, wc_w);
  const Function* func = Fn({x1, w1}, Op("nn.relu", {Op("nn.conv2d", {x1, w1})}));
  const Expr* expr = Op("add", {CallOf(func, {x_, w_}), b_});
  const Var *x2 = V("x2"), *w2 = V("w2");
  const Function* f2 =
      Composite({x2, w2}, CallOf(func, {x2, w2}), "nn.conv2d_nn.relu_FunctionCall_");
  ExpectSame(Part(pattern, expr), Op("add", {CallOf(f2, {x_, w_}), b_}));
}

TEST_F(PartitionTest, ConstantEmbeddingVersusLifting) {
  const Constant* wc = ConstI(1);
  auto conv_with = [&](Pattern weight) {
    return IsOp("nn.relu")(IsOp("nn.bias_add")(IsOp("nn.conv2d")(Wildcard(), weight), Wildcard()));
  };
  const Expr* relu = ConvBiasRelu(x_, w_, b_);
  const Expr* reluc = ConvBiasRelu(x_, wc, b_);
  auto lifted = [&](const Expr* weight) {
    const Var *xf = V("x"), *wf = V("w"), *bf = V("b");
    return CallOf(
        Composite({xf, wf, bf}, ConvBiasRelu(xf, wf, bf), "nn.conv2d_nn.bias_add_nn.relu_"),
        {x_, weight, b_});
  };
  auto embedded = [&] {
    const Var *xf = V("x"), *bf = V("b");
    return CallOf(Composite({xf, bf}, ConvBiasRelu(xf, wc, bf), "nn.conv2d_nn.bias_add_nn.relu_"),
                  {x_, b_});
  };
  // Wildcards lift.
  ExpectSame(Part(conv_with(Wildcard()), relu), lifted(w_));
  ExpectSame(Part(conv_with(Wildcard()), reluc), lifted(wc));
  // Variables lift; a constant is not a variable.
  ExpectSame(Part(conv_with(IsVar()), relu), lifted(w_));
  EXPECT_EQ(Part(conv_with(IsVar()), reluc), reluc);
  // Constant patterns embed.
  EXPECT_EQ(Part(conv_with(IsConstant()), relu), relu);
  ExpectSame(Part(conv_with(IsConstant()), reluc), embedded());
  // is_expr of a constant embeds.
  EXPECT_EQ(Part(conv_with(IsExpr(wc)), relu), relu);
  ExpectSame(Part(conv_with(IsExpr(wc)), reluc), embedded());
  // Alternations, both orders: the side that matched decides.
  ExpectSame(Part(conv_with(IsVar() | IsConstant()), relu), lifted(w_));
  ExpectSame(Part(conv_with(IsVar() | IsConstant()), reluc), embedded());
  ExpectSame(Part(conv_with(IsConstant() | IsVar()), relu), lifted(w_));
  ExpectSame(Part(conv_with(IsConstant() | IsVar()), reluc), embedded());
}

TEST_F(PartitionTest, ParallelBranchesShareOneParameter) {
  Pattern pattern =
      IsOp("add")(IsOp("multiply")(Wildcard(), Wildcard()), IsOp("add")(Wildcard(), Wildcard()));
  const Var *l = V("left"), *r = V("right");
  const Call* conv = Op("nn.conv2d", {x_, w_});
  const Expr* add = Op("add", {Op("multiply", {l, conv}), Op("add", {conv, r})});
  const Var *lf = V("leftf"), *mf = V("midf"), *rf = V("rightf");
  const Function* f =
      Composite({lf, mf, rf}, Op("add", {Op("multiply", {lf, mf}), Op("add", {mf, rf})}),
                "multiply_add_add_");
  ExpectSame(Part(pattern, add), CallOf(f, {l, conv, r}));
}

TEST_F(PartitionTest, InteriorUseOutsideButDominatedIsDuplicated) {
  constexpr const char* kInput = R"(#[version = "0.0.5"]
def @main(%data: Tensor[(16, 16, 32, 32), float16], %weight: Tensor[(32, 16, 3, 3), float16], %bias: Tensor[(32), float32]) -> Tensor[(16, 32, 32, 32), float32] {
  %0 = layout_transform(%data, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%weight, src_layout="OIHW", dst_layout="OHWI");
  %2 = expand_dims(%bias, axis=1, num_newaxis=2);
  %3 = expand_dims(%2, axis=0);
  %4 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="OHWI", out_dtype="float32");
  %5 = layout_transform(%3, src_layout="NCHW", dst_layout="NHWC");
  %6 = add(%4, %5);
  %7 = sigmoid(%6);
  %8 = multiply(%6, %7);
  layout_transform(%8, src_layout="NHWC", dst_layout="NCHW")
}
)";
  constexpr const char* kExpected = R"(#[version = "0.0.5"]
def @main(%data: Tensor[(16, 16, 32, 32), float16], %weight: Tensor[(32, 16, 3, 3), float16], %bias: Tensor[(32), float32]) -> Tensor[(16, 32, 32, 32), float32] {
  %2 = expand_dims(%bias, axis=1, num_newaxis=2);
  %3 = expand_dims(%2, axis=0);
  %4 = layout_transform(%data, src_layout="NCHW", dst_layout="NHWC");
  %5 = layout_transform(%weight, src_layout="OIHW", dst_layout="OHWI");
  %6 = nn.conv2d(%4, %5, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="OHWI", out_dtype="float32");
  %7 = layout_transform(%3, src_layout="NCHW", dst_layout="NHWC");
  %8 = add(%6, %7);
  %9 = sigmoid(%8);
  %10 = fn (%FunctionVar_0_0, %FunctionVar_0_1, %FunctionVar_0_2, %FunctionVar_0_3, PartitionedFromPattern="nn.conv2d_add_multiply_") {
    %0 = nn.conv2d(%FunctionVar_0_0, %FunctionVar_0_1, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="OHWI", out_dtype="float32");
    %1 = add(%0, %FunctionVar_0_2);
    multiply(%1, %FunctionVar_0_3)
  };
  %11 = %10(%4, %5, %7, %9);
  layout_transform(%11, src_layout="NHWC", dst_layout="NCHW")
}
)";
  auto in = ParseModule("in.relay", kInput);
  auto expected = ParseModule("expected.relay", kExpected);
  ASSERT_TRUE(in.ok()) << RenderStatus(in.status());
  ASSERT_TRUE(expected.ok()) << RenderStatus(expected.status());
  Pattern pattern = IsOp("multiply")(
      IsOp("add")(IsOp("nn.conv2d")(Wildcard(), Wildcard()), Wildcard()), Wildcard());
  auto p = Partition(pattern, in->Lookup("main"), in->arena());
  ASSERT_TRUE(p.ok());
  in->Add("main", Cast<Function>(*p));
  ASSERT_TRUE(InferType(*in).ok());
  auto diff = StructuralDiffModules(*in, *expected);
  EXPECT_FALSE(diff.has_value()) << diff->message << " at " << diff->lhs_path;
}

// MergeComposite's core on the BYOC demo from the corpus: a while loop as a
// let-bound recursive function; the two composites of the demo, in order.
TEST_F(PartitionTest, CompositeTableOnTheByocDemoMatchesTvm) {
  auto read = [](const std::string& name) {
    std::ifstream f(std::string(CARVE_SHARED_DIR) + "/corpus/" + name);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  auto in = ParseModule("demo_0.relay", read("demo_0_input.relay"));
  auto expected = ParseModule("demo_1.relay", read("demo_1_merge_composite.relay"));
  ASSERT_TRUE(in.ok()) << RenderStatus(in.status());
  ASSERT_TRUE(expected.ok()) << RenderStatus(expected.status());
  ASSERT_TRUE(InferType(*in).ok());
  auto relu_of = [](Pattern p) { return IsOp("nn.relu")(p); };
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  std::vector<CompositeEntry> table = {
      {"byoc_target.conv2d_relu_with_bias", relu_of(IsOp("nn.bias_add")(conv, Wildcard())), {}},
      {"byoc_target.conv2d_relu_wo_bias", relu_of(IsOp("nn.conv2d")(Wildcard(), Wildcard())), {}}};
  auto out = PartitionComposites(table, in->Lookup("main"), in->arena());
  ASSERT_TRUE(out.ok()) << out.status();
  in->Add("main", Cast<Function>(*out));
  ASSERT_TRUE(InferType(*in).ok());
  // TVM's InferType also writes the inferred types into the composite's
  // parameter annotations; carve's leaves annotations alone, so compare the
  // computations, then the names and attributes as printed.
  EqualOptions ignore_types;
  ignore_types.ignore_types = true;
  EXPECT_TRUE(StructuralEqual(*in, *expected, ignore_types));
  std::string printed = PrintModule(*in);
  EXPECT_THAT(printed, HasSubstr("%3 = fn (%FunctionVar_1_0, %FunctionVar_1_1, %FunctionVar_1_2, "
                                 "PartitionedFromPattern=\"nn.conv2d_nn.bias_add_nn.relu_\", "
                                 "Composite=\"byoc_target.conv2d_relu_with_bias\") {"));
  EXPECT_THAT(printed, HasSubstr("%8 = fn (%FunctionVar_0_0, %FunctionVar_0_1, %FunctionVar_0_2, "
                                 "PartitionedFromPattern=\"nn.conv2d_nn.bias_add_nn.relu_\", "
                                 "Composite=\"byoc_target.conv2d_relu_with_bias\") {"));
  EXPECT_THAT(printed, HasSubstr("%9 = %8(%d1, %w1, %b1);"));
}

// An interior node of a composite that is also used outside it (the root
// post-dominates the use) stays in the graph with everything it computes
// from, so a later entry still matches there (TVM applies each entry to the
// rebuilt function). The table skips entries whose ops are gone; a conv2d
// kept alive through an escaping bias_add is not gone.
TEST_F(PartitionTest, CompositeTableLaterEntryMatchesUnderAnEscapingInterior) {
  auto in = ParseModule("esc.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(8, 8, 3, 3), float32], %b: Tensor[(8), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  add(%1, %2)
}
)");
  ASSERT_TRUE(in.ok()) << RenderStatus(in.status());
  ASSERT_TRUE(InferType(*in).ok());
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  std::vector<CompositeEntry> table = {
      {"t.sum", IsOp("add")(IsOp("nn.bias_add")(conv, Wildcard()), Wildcard()), {}},
      {"t.conv", IsOp("nn.conv2d")(Wildcard(), Wildcard()), {}}};
  auto out = PartitionComposites(table, in->Lookup("main"), in->arena());
  ASSERT_TRUE(out.ok()) << out.status();
  in->Add("main", Cast<Function>(*out));
  std::string printed = PrintModule(*in);
  EXPECT_THAT(printed, HasSubstr("Composite=\"t.sum\""));
  EXPECT_THAT(printed, HasSubstr("Composite=\"t.conv\""));
  EXPECT_THAT(printed, HasSubstr("%3 = %2(%x, %w);\n  %4 = nn.bias_add(%3, %b);"));
}

// typed: parameters annotated with their arguments' types, the root's type
// returned, as InferType after MergeComposite leaves them.
TEST_F(PartitionTest, CompositeTableTypedBuildsTypedComposites) {
  auto in = ParseModule("typed.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %y: Tensor[(1, 8), float32]) {
  %0 = add(%x, %y);
  nn.relu(%0)
}
)");
  ASSERT_TRUE(in.ok()) << RenderStatus(in.status());
  ASSERT_TRUE(InferType(*in).ok());
  std::vector<CompositeEntry> table = {
      {"t.add_relu", IsOp("nn.relu")(IsOp("add")(Wildcard(), Wildcard())), {}}};
  auto out = PartitionComposites(table, in->Lookup("main"), in->arena(), /*typed=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  const auto* call = Cast<Call>(Cast<Function>(*out)->body());
  const auto* fn = Cast<Function>(call->callee());
  ASSERT_NE(fn->checked_type(), nullptr);
  ASSERT_NE(fn->ret_type(), nullptr);
  EXPECT_EQ(fn->ret_type(), call->checked_type());
  for (const Var* p : fn->params()) {
    EXPECT_EQ(p->annotation(), p->checked_type());
    EXPECT_NE(p->annotation(), nullptr);
  }
}

// Every entry numbers its groups from 0, so entries share the names of a
// group number (partition.cc keeps one arena string per number): a later
// entry with more parameters, then one with fewer, still gets
// FunctionVar_<g>_<k> for exactly its own parameters.
TEST_F(PartitionTest, CompositeTableParameterNamesAcrossEntries) {
  auto in = ParseModule("names.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %y: Tensor[(1, 8), float32], %z: Tensor[(1, 8), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, %y);
  %2 = multiply(%1, %z);
  %3 = subtract(%2, %x);
  nn.relu(%3)
}
)");
  ASSERT_TRUE(in.ok()) << RenderStatus(in.status());
  ASSERT_TRUE(InferType(*in).ok());
  std::vector<CompositeEntry> table = {
      {"t.relu", IsOp("nn.relu")(IsOp("subtract")(Wildcard(), Wildcard())), {}},
      {"t.add_mul", IsOp("multiply")(IsOp("add")(Wildcard(), Wildcard()), Wildcard()), {}},
      {"t.relu1", IsOp("nn.relu")(Wildcard()), {}}};
  auto out = PartitionComposites(table, in->Lookup("main"), in->arena());
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<std::vector<std::string_view>> names;  // per composite, in post-order
  PostOrderVisit(*out, [&](const Expr* e) {
    const auto* fn = DynCast<Function>(e);
    if (fn == nullptr || !fn->HasAttr("Composite")) return;
    names.emplace_back();
    for (const Var* p : fn->params()) names.back().push_back(p->name());
  });
  using V = std::vector<std::string_view>;
  EXPECT_THAT(names,
              ::testing::UnorderedElementsAre(
                  V{"FunctionVar_0_0"}, V{"FunctionVar_0_0", "FunctionVar_0_1", "FunctionVar_0_2"},
                  V{"FunctionVar_0_0", "FunctionVar_0_1"}));
}

TEST_F(PartitionTest, CompositeTableErrorsNameTheEntry) {
  std::vector<CompositeEntry> table = {{"t.bad", IsOp("nn.rleu")(Wildcard()), {}}};
  auto out = PartitionComposites(table, x_, mod_.arena());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("composite 't.bad': unknown operator"));
}

}  // namespace
}  // namespace carve::testing
