// Ports of TVM v0.16 tests/python/relay/test_pass_merge_composite.py
// (tvm-reference 6.2), through the MergeComposite pass and a target's table.
// test_einsum_reshape_pattern uses concatenate in place of einsum (carve's
// registry has no einsum); the shape of the pattern (optional reshapes
// around an op of a tuple) is the same.
#include "passes/byoc/merge_composite.h"

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "patterns/builders.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

// (x + y) * (x - y)
Pattern AddSubMul() {
  Pattern x = Wildcard();
  Pattern y = Wildcard();
  return (x + y) * (x - y);
}

Pattern AddRelu() { return IsOp("nn.relu")(Wildcard() + Wildcard()); }

Pattern ConvBiasRelu() {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  return IsOp("nn.relu")(IsOp("nn.bias_add")(conv, Wildcard()));
}

// Runs MergeComposite's core with `table` on @main (names as the TVM tests
// write them, without a target prefix), then types the module.
Module Merge(std::string_view text, const std::vector<CompositeRule>& table) {
  Module mod = ParseTyped(text);
  absl::StatusOr<const Function*> fn =
      MergeCompositeFunction(mod.Lookup("main"), table, mod.arena());
  EXPECT_TRUE(fn.ok()) << fn.status();
  if (fn.ok()) mod.Add("main", *fn);
  absl::Status typed = InferType(mod);
  EXPECT_TRUE(typed.ok()) << typed;
  return mod;
}

CompositeRule Rule(std::string name, Pattern p, RootCheck check = nullptr) {
  return CompositeRule{std::move(name), std::move(p), std::move(check), ""};
}

TEST(MergeComposite, SimpleMerge) {
  Module mod = Merge(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = add(%a, %b);
  nn.relu(%0)
})",
                     {Rule("add_relu", AddRelu())});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = fn (%in_1, %in_2, Composite="add_relu", PartitionedFromPattern="add_nn.relu_") {
    %1 = add(%in_1, %in_2);
    nn.relu(%1)
  };
  %0(%a, %b)
})")));
}

TEST(MergeComposite, BranchMerge) {
  Module mod = Merge(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32],
          %c: Tensor[(10, 10), float32]) {
  %0 = add(%a, %b);
  %1 = subtract(%a, %b);
  %2 = multiply(%0, %1);
  %3 = add(%c, %2);
  %4 = subtract(%c, %2);
  %5 = multiply(%3, %4);
  nn.relu(%5)
})",
                     {Rule("add_sub_mul", AddSubMul())});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32],
          %c: Tensor[(10, 10), float32]) {
  %0 = fn (%in_1, %in_2, Composite="add_sub_mul", PartitionedFromPattern="add_subtract_multiply_") {
    %1 = add(%in_1, %in_2);
    %2 = subtract(%in_1, %in_2);
    multiply(%1, %2)
  };
  %3 = %0(%a, %b);
  %4 = fn (%in_3, %in_4, Composite="add_sub_mul", PartitionedFromPattern="add_subtract_multiply_") {
    %5 = add(%in_3, %in_4);
    %6 = subtract(%in_3, %in_4);
    multiply(%5, %6)
  };
  %7 = %4(%c, %3);
  nn.relu(%7)
})")));
}

TEST(MergeComposite, ReuseCallMerge) {
  Pattern x = Wildcard();
  Pattern y = Wildcard();
  Pattern add = IsOp("add")(x, y);
  Pattern add_add_add = IsOp("add")(IsOp("add")(x, add), add);
  Module mod = Merge(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = subtract(%a, %b);
  %1 = add(%0, %b);
  %2 = add(%0, %1);
  add(%2, %1)
})",
                     {Rule("add_add_add", add_add_add)});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = fn (%in_1, %in_2, Composite="add_add_add", PartitionedFromPattern="add_add_add_") {
    %1 = add(%in_1, %in_2);
    %2 = add(%in_1, %1);
    add(%2, %1)
  };
  %3 = subtract(%a, %b);
  %0(%3, %b)
})")));
}

TEST(MergeComposite, MultiplePatterns) {
  Module mod = Merge(R"(
def @main(%data: Tensor[(1, 512, 28, 28), float32], %kernel: Tensor[(256, 512, 1, 1), float32],
          %bias: Tensor[(256), float32], %a: Tensor[(1, 256, 28, 28), float32],
          %b: Tensor[(1, 256, 28, 28), float32]) {
  %0 = nn.conv2d(%data, %kernel, padding=[0, 0, 0, 0], kernel_size=[1, 1]);
  %1 = nn.bias_add(%0, %bias);
  %2 = nn.relu(%1);
  %3 = add(%2, %a);
  %4 = nn.relu(%3);
  multiply(%4, %b)
})",
                     {Rule("conv2d_bias_relu", ConvBiasRelu()), Rule("add_relu", AddRelu())});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%data: Tensor[(1, 512, 28, 28), float32], %kernel: Tensor[(256, 512, 1, 1), float32],
          %bias: Tensor[(256), float32], %a: Tensor[(1, 256, 28, 28), float32],
          %b: Tensor[(1, 256, 28, 28), float32]) {
  %0 = fn (%in_1, %in_2, %in_3, Composite="conv2d_bias_relu",
           PartitionedFromPattern="nn.conv2d_nn.bias_add_nn.relu_") {
    %1 = nn.conv2d(%in_1, %in_2, padding=[0, 0, 0, 0], kernel_size=[1, 1]);
    %2 = nn.bias_add(%1, %in_3);
    nn.relu(%2)
  };
  %3 = %0(%data, %kernel, %bias);
  %4 = fn (%in_4, %in_5, Composite="add_relu", PartitionedFromPattern="add_nn.relu_") {
    %5 = add(%in_4, %in_5);
    nn.relu(%5)
  };
  %6 = %4(%3, %a);
  multiply(%6, %b)
})")));
}

TEST(MergeComposite, OptionalPattern) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern layer = IsOp("nn.bias_add")(conv, Wildcard()).Optional([](const Pattern& p) {
    return IsOp("nn.relu")(p);
  });
  Module mod = Merge(R"(
def @main(%x: Tensor[(1, 3, 7, 7), float32], %w1: Tensor[(3, 3, 1, 1), float32],
          %w2: Tensor[(3, 3, 1, 1), float32], %b1: Tensor[(3), float32],
          %b2: Tensor[(3), float32]) {
  %0 = nn.conv2d(%x, %w1, kernel_size=[1, 1]);
  %1 = nn.bias_add(%0, %b1);
  %2 = nn.relu(%1);
  %3 = nn.conv2d(%2, %w2, kernel_size=[1, 1]);
  nn.bias_add(%3, %b2)
})",
                     {Rule("layer", layer)});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%x: Tensor[(1, 3, 7, 7), float32], %w1: Tensor[(3, 3, 1, 1), float32],
          %w2: Tensor[(3, 3, 1, 1), float32], %b1: Tensor[(3), float32],
          %b2: Tensor[(3), float32]) {
  %0 = fn (%x1, %w, %b, Composite="layer", PartitionedFromPattern="nn.conv2d_nn.bias_add_nn.relu_") {
    %1 = nn.conv2d(%x1, %w, kernel_size=[1, 1]);
    %2 = nn.bias_add(%1, %b);
    nn.relu(%2)
  };
  %3 = %0(%x, %w1, %b1);
  %4 = fn (%x2, %w3, %b3, Composite="layer", PartitionedFromPattern="nn.conv2d_nn.bias_add_") {
    %5 = nn.conv2d(%x2, %w3, kernel_size=[1, 1]);
    nn.bias_add(%5, %b3)
  };
  %4(%3, %w2, %b2)
})")));
}

// The table order decides which of overlapping patterns wins.
TEST(MergeComposite, MergeOrder) {
  Pattern a = IsOp("nn.relu")(IsOp("abs")(IsOp("add")(Wildcard(), Wildcard())));
  Pattern b = IsOp("abs")(IsOp("add")(Wildcard(), Wildcard()));
  Pattern c = IsOp("nn.relu")(IsOp("abs")(Wildcard()));
  const char* before = R"(
def @main(%input_1: Tensor[(10, 10), float32], %input_2: Tensor[(10, 10), float32]) {
  %0 = add(%input_1, %input_2);
  %1 = abs(%0);
  nn.relu(%1)
})";
  EXPECT_TRUE(SameModule(Merge(before, {Rule("A", a), Rule("B", b), Rule("C", c)}), ParseTyped(R"(
def @main(%input_1: Tensor[(10, 10), float32], %input_2: Tensor[(10, 10), float32]) {
  %0 = fn (%x, %y, Composite="A", PartitionedFromPattern="add_abs_nn.relu_") {
    %1 = add(%x, %y);
    %2 = abs(%1);
    nn.relu(%2)
  };
  %0(%input_1, %input_2)
})")));
  EXPECT_TRUE(SameModule(Merge(before, {Rule("B", b), Rule("C", c), Rule("A", a)}), ParseTyped(R"(
def @main(%input_1: Tensor[(10, 10), float32], %input_2: Tensor[(10, 10), float32]) {
  %0 = fn (%x, %y, Composite="B", PartitionedFromPattern="add_abs_") {
    %1 = add(%x, %y);
    abs(%1)
  };
  %2 = %0(%input_1, %input_2);
  nn.relu(%2)
})")));
  EXPECT_TRUE(SameModule(Merge(before, {Rule("C", c), Rule("A", a), Rule("B", b)}), ParseTyped(R"(
def @main(%input_1: Tensor[(10, 10), float32], %input_2: Tensor[(10, 10), float32]) {
  %0 = fn (%x, Composite="C", PartitionedFromPattern="abs_nn.relu_") {
    %1 = abs(%x);
    nn.relu(%1)
  };
  %2 = add(%input_1, %input_2);
  %0(%2)
})")));
}

TEST(MergeComposite, ParallelMerge) {
  Module mod = Merge(R"(
def @main(%input_1: Tensor[(10, 10), float32], %input_2: Tensor[(10, 10), float32]) {
  %0 = add(%input_1, %input_2);
  %1 = subtract(%input_1, %input_2);
  %2 = multiply(%0, %1);
  %3 = add(%input_1, %input_2);
  %4 = subtract(%input_1, %input_2);
  %5 = multiply(%3, %4);
  multiply(%2, %5)
})",
                     {Rule("add_sub_mul", AddSubMul())});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%input_1: Tensor[(10, 10), float32], %input_2: Tensor[(10, 10), float32]) {
  %0 = fn (%x, %y, Composite="add_sub_mul", PartitionedFromPattern="add_subtract_multiply_") {
    %1 = add(%x, %y);
    %2 = subtract(%x, %y);
    multiply(%1, %2)
  };
  %3 = %0(%input_1, %input_2);
  %4 = fn (%x1, %y1, Composite="add_sub_mul", PartitionedFromPattern="add_subtract_multiply_") {
    %5 = add(%x1, %y1);
    %6 = subtract(%x1, %y1);
    multiply(%5, %6)
  };
  %7 = %4(%input_1, %input_2);
  multiply(%3, %7)
})")));
}

// add_sub_mul needs both branches to read the same two values: with four
// independent inputs only the add_relu composites form.
TEST(MergeComposite, MultipleInputSubgraphs) {
  std::vector<CompositeRule> table = {Rule("add_sub_mul", AddSubMul()),
                                      Rule("add_relu", AddRelu())};
  std::string params;
  for (int i = 0; i < 8; ++i) {
    params += fmt::format("{}%input_{}: Tensor[(10, 10), float32]", i ? ", " : "", i);
  }
  std::string relus = R"(
  %0 = add(%input_0, %input_1);
  %1 = nn.relu(%0);
  %2 = add(%input_2, %input_3);
  %3 = nn.relu(%2);)";
  Module a = Merge("def @main(" + params + ") {" + relus + R"(
  %8 = add(%1, %3);
  %9 = subtract(%1, %3);
  multiply(%8, %9)
})",
                   table);
  int add_sub_mul = 0;
  int add_relu = 0;
  PostOrderVisit(a.Lookup("main"), [&](const Expr* e) {
    if (const Function* fn = DynCast<Function>(e)) {
      add_sub_mul += fn->GetStringAttr("Composite") == "add_sub_mul";
      add_relu += fn->GetStringAttr("Composite") == "add_relu";
    }
  });
  EXPECT_EQ(add_sub_mul, 1) << Show(a);
  EXPECT_EQ(add_relu, 2) << Show(a);

  Module b = Merge("def @main(" + params + ") {" + relus + R"(
  %4 = add(%input_4, %input_5);
  %5 = nn.relu(%4);
  %6 = add(%input_6, %input_7);
  %7 = nn.relu(%6);
  %8 = add(%1, %3);
  %9 = subtract(%5, %7);
  multiply(%8, %9)
})",
                   table);
  add_sub_mul = 0;
  add_relu = 0;
  PostOrderVisit(b.Lookup("main"), [&](const Expr* e) {
    if (const Function* fn = DynCast<Function>(e)) {
      add_sub_mul += fn->GetStringAttr("Composite") == "add_sub_mul";
      add_relu += fn->GetStringAttr("Composite") == "add_relu";
    }
  });
  EXPECT_EQ(add_sub_mul, 0) << Show(b);
  EXPECT_EQ(add_relu, 4) << Show(b);
}

TEST(MergeComposite, TupleGetItemMerge) {
  Pattern bn = IsOp("nn.batch_norm")(Wildcard(), Wildcard(), Wildcard(), Wildcard(), Wildcard());
  Module mod = Merge(R"(
def @main(%x: Tensor[(1, 8), float32], %gamma: Tensor[(8), float32], %beta: Tensor[(8), float32],
          %moving_mean: Tensor[(8), float32], %moving_var: Tensor[(8), float32]) {
  %0 = nn.batch_norm(%x, %gamma, %beta, %moving_mean, %moving_var);
  %1 = %0.0;
  nn.relu(%1)
})",
                     {Rule("bn_relu", IsOp("nn.relu")(IsTupleGetItem(bn, 0)))});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%x: Tensor[(1, 8), float32], %gamma: Tensor[(8), float32], %beta: Tensor[(8), float32],
          %moving_mean: Tensor[(8), float32], %moving_var: Tensor[(8), float32]) {
  %0 = fn (%x1, %g, %b, %m, %v, Composite="bn_relu",
           PartitionedFromPattern="nn.batch_norm_TupleGetItem0_nn.relu_") {
    %1 = nn.batch_norm(%x1, %g, %b, %m, %v);
    %2 = %1.0;
    nn.relu(%2)
  };
  %0(%x, %gamma, %beta, %moving_mean, %moving_var)
})")));
}

const char* kConvNhwc = R"(
def @main(%x: Tensor[(1, 10, 10, 10), float32], %w: Tensor[(10, 10, 3, 3), float32],
          %b: Tensor[(8), float32]) {
  %0 = nn.conv2d(%x, %w, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="OIHW");
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
})";

bool ConvLayoutIs(const Expr* root, std::string_view layout) {
  const Call* conv = Cast<Call>(Cast<Call>(Cast<Call>(root)->args()[0])->args()[0]);
  return conv->attrs()->GetString("data_layout") == layout;
}

TEST(MergeComposite, PatternWithCheck) {
  Module rejected = Merge(kConvNhwc, {Rule("conv_bias_relu", ConvBiasRelu(), [](const Expr* r) {
                            return ConvLayoutIs(r, "NCHW");
                          })});
  EXPECT_TRUE(SameModule(rejected, ParseTyped(kConvNhwc)));
  Module accepted = Merge(kConvNhwc, {Rule("conv_bias_relu", ConvBiasRelu(), [](const Expr* r) {
                            return ConvLayoutIs(r, "NHWC");
                          })});
  EXPECT_TRUE(SameModule(accepted, ParseTyped(R"(
def @main(%x: Tensor[(1, 10, 10, 10), float32], %w: Tensor[(10, 10, 3, 3), float32],
          %b: Tensor[(8), float32]) {
  %0 = fn (%x1, %w1, %b1, Composite="conv_bias_relu",
           PartitionedFromPattern="nn.conv2d_nn.bias_add_nn.relu_") {
    %1 = nn.conv2d(%x1, %w1, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="OIHW");
    %2 = nn.bias_add(%1, %b1);
    nn.relu(%2)
  };
  %0(%x, %w, %b)
})")));
}

// multiply(relu, clip(add(relu, 1))) is not multiply(relu, clip(relu)).
TEST(MergeComposite, DiamondNotMerge) {
  Pattern conv = ConvBiasRelu();
  Pattern pattern = IsOp("multiply")(conv, IsOp("clip")(conv));
  const char* text = R"(
def @main(%data: Tensor[(1, 512, 28, 28), float32], %kernel: Tensor[(256, 512, 1, 1), float32],
          %bias: Tensor[(256), float32]) {
  %0 = nn.conv2d(%data, %kernel, padding=[0, 0, 0, 0], kernel_size=[1, 1]);
  %1 = nn.bias_add(%0, %bias);
  %2 = nn.relu(%1);
  %3 = add(%2, 1f);
  %4 = clip(%3, a_min=0f, a_max=255f);
  multiply(%2, %4)
})";
  EXPECT_TRUE(SameModule(Merge(text, {Rule("pat", pattern)}), ParseTyped(text)));
}

// Checks see the types of a graph already rewritten by an earlier pattern.
TEST(MergeComposite, TypeCheck) {
  const char* text = R"(
def @main(%x: Tensor[(1, 10, 10, 10), float32], %w: Tensor[(10, 10, 3, 3), float32],
          %b: Tensor[(8), float32]) {
  %0 = add(%x, %x);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %w, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="OIHW");
  %3 = nn.bias_add(%2, %b);
  nn.relu(%3)
})";
  auto batch_is = [](bool one) {
    return [one](const Expr* root) {
      const Call* conv = Cast<Call>(Cast<Call>(Cast<Call>(root)->args()[0])->args()[0]);
      const auto* t = DynCast<TensorType>(conv->checked_type());
      return t != nullptr && (t->shape()[0].value == 1) == one;
    };
  };
  int composites_false = 0;
  int composites_true = 0;
  Module rejected =
      Merge(text, {Rule("add_relu", AddRelu()), Rule("conv_bias_relu", ConvBiasRelu(),
                                                     batch_is(false))});
  Module accepted = Merge(text, {Rule("add_relu", AddRelu()),
                                 Rule("conv_bias_relu", ConvBiasRelu(), batch_is(true))});
  PostOrderVisit(rejected.Lookup("main"), [&](const Expr* e) {
    composites_false += Isa<Function>(e) && Cast<Function>(e)->HasAttr("Composite");
  });
  PostOrderVisit(accepted.Lookup("main"), [&](const Expr* e) {
    composites_true += Isa<Function>(e) && Cast<Function>(e)->HasAttr("Composite");
  });
  EXPECT_EQ(composites_false, 1) << Show(rejected);
  EXPECT_EQ(composites_true, 2) << Show(accepted);
}

TEST(MergeComposite, OptionalReshapesAroundAnOpOfATuple) {
  Pattern x = Wildcard();
  x = IsOp("reshape")(x) | x;
  Pattern y = Wildcard();
  y = IsOp("reshape")(y) | y;
  Pattern z = IsOp("concatenate")(IsTuple({x, y}));
  Pattern r = IsOp("reshape")(z) | z;
  Module mod = Merge(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = reshape(%a, newshape=[20, 5]);
  %1 = reshape(%b, newshape=[20, 5]);
  %2 = (%0, %1);
  concatenate(%2)
})",
                     {Rule("concat_reshape", r)});
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = fn (%x, %y, Composite="concat_reshape",
           PartitionedFromPattern="reshape_reshape_Tuple_concatenate_") {
    %1 = reshape(%x, newshape=[20, 5]);
    %2 = reshape(%y, newshape=[20, 5]);
    %3 = (%1, %2);
    concatenate(%3)
  };
  %0(%a, %b)
})")));
}

// Through the pass: composite names carry the target prefix.
TEST(MergeComposite, PassUsesTheTargetsTable) {
  Module mod = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = add(%a, %b);
  nn.relu(%0)
})");
  TargetSpecPtr t = RegisterTarget("mc", {}, {Rule("add_relu", AddRelu())});
  EXPECT_TRUE(RunOk(MergeComposite({t}), mod));
  const Call* call = Cast<Call>(mod.Lookup("main")->body());
  EXPECT_EQ(Cast<Function>(call->callee())->GetStringAttr("Composite"), "mc.add_relu");
}

}  // namespace
}  // namespace carve::testing
