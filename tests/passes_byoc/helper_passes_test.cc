// The helper passes of backend pipelines: bind_params_by_name, FoldConstant,
// CanonicalizeOps, RemoveDropout, DeadCodeElimination, SimplifyExpr,
// ConvertLayout.
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "passes/fold/bind_params.h"
#include "passes/simplify/cleanup_passes.h"
#include "passes/layout/convert_layout.h"
#include "passes/fold/fold_constant.h"
#include "passes/pass_registry.h"
#include "passes/simplify/simplify_expr.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

using ::testing::HasSubstr;

NDArray Filled(std::initializer_list<int64_t> shape, double value) {
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) a.SetFromDouble(i, value);
  return a;
}

int CountOps(const Module& mod, std::string_view op) {
  int n = 0;
  for (const auto& [gv, fn] : mod.Functions()) {
    PostOrderVisit(fn, [&](const Expr* e) { n += IsOpCall(e, op); });
  }
  return n;
}

TEST(BindParams, BindsByNameAndDropsParameters) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) { add(%x, %w) })");
  absl::StatusOr<bool> bound = BindParams(mod, {{"w", Filled({2}, 3)}, {"unknown", Filled({1}, 0)}});
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_TRUE(*bound);
  const Function* main = mod.Lookup("main");
  ASSERT_EQ(main->params().size(), 1u);
  EXPECT_TRUE(Isa<Constant>(Cast<Call>(main->body())->args()[1]));
}

TEST(BindParams, Errors) {
  // The parser rejects duplicate parameter names, so build the function
  // directly (TVM's bind_params_by_name fails on it).
  Module dup = ParseTyped("def @main(%x: Tensor[(2), float32]) { %x }");
  IRBuilder b = dup.builder();
  const Var* x0 = b.MakeVar("x", TensorTy(DataType::Float(32), {2}));
  const Var* x1 = b.MakeVar("x", TensorTy(DataType::Float(32), {2}));
  std::vector<const Var*> params = {x0, x1};
  const Function* two = b.MakeFunction(params, x0);
  absl::StatusOr<const Function*> twice =
      BindParamsByName(two, {{"x", Filled({2}, 1)}}, dup.arena());
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("several parameters"));
  Module mod = ParseTyped("def @main(%x: Tensor[(2), float32]) { %x }");
  absl::StatusOr<bool> shape = BindParams(mod, {{"x", Filled({3}, 1)}});
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(std::string(shape.status().message()),
              HasSubstr("it is Tensor[(2), float32], the tensor is Tensor[(3), float32]"));
}

// Without an evaluator only calls that move no data fold.
TEST(FoldConstant, ReshapesWithoutKernels) {
  SetConstantEvaluator(nullptr);
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32], %c: Tensor[(2, 2), float32]) {
  %0 = reshape(%c, newshape=[4]);
  %1 = add(%0, %x);
  %2 = add(%c, %c);
  (%1, %2)
})");
  ASSERT_TRUE(BindParams(mod, {{"c", Filled({2, 2}, 1)}}).ok());
  RunOk(FoldConstant(), mod);
  EXPECT_EQ(CountOps(mod, "reshape"), 0) << Show(mod);
  EXPECT_EQ(CountOps(mod, "add"), 2) << Show(mod);
  const Call* add = Cast<Call>(Cast<Tuple>(mod.Lookup("main")->body())->fields()[0]);
  const Constant* folded = DynCast<Constant>(add->args()[0]);
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(folded->data().shape(), (std::vector<int64_t>{4}));
}

TEST(FoldConstant, EvaluatesWithAnEvaluatorAndSkipsPrimitives) {
  int evaluated = 0;
  SetConstantEvaluator([&evaluated](const Call* call, std::span<const NDArray> args)
                           -> absl::StatusOr<std::vector<NDArray>> {
    ++evaluated;
    if (call->op()->name != "add") return absl::UnimplementedError("no kernel");
    NDArray out = args[0].Copy();
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      out.SetFromDouble(i, args[0].GetAsDouble(i) + args[1].GetAsDouble(i));
    }
    return std::vector<NDArray>{out};
  });
  Module mod = ParseTyped(R"(
def @main(%x: float32) {
  %0 = add(1f, 2f);
  %1 = multiply(3f, 4f);
  %2 = fn (%p: float32, Primitive=1) { add(5f, 6f) };
  %3 = (1f, %x);
  %4 = %3.0;
  (add(%0, %x), %1, %2(%x), %4)
})");
  RunOk(FoldConstant(), mod);
  SetConstantEvaluator(nullptr);
  EXPECT_EQ(evaluated, 2);  // add(1, 2) folded, multiply has no kernel: kept
  EXPECT_EQ(CountOps(mod, "multiply"), 1);
  EXPECT_EQ(CountOps(mod, "add"), 2) << Show(mod);  // add(%0, %x) and the primitive's
  const Tuple* out = Cast<Tuple>(mod.Lookup("main")->body());
  const Call* first = Cast<Call>(out->fields()[0]);
  ASSERT_TRUE(Isa<Constant>(first->args()[0]));
  EXPECT_EQ(Cast<Constant>(first->args()[0])->data().GetAsDouble(0), 3.0);
  EXPECT_TRUE(Isa<Constant>(out->fields()[3]));  // (1f, %x).0
}

TEST(CanonicalizeOps, BiasAddBecomesAddOfExpandDims) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(1, 8, 4, 4), float32], %b: Tensor[(8), float32],
          %y: Tensor[(2, 8), float32]) {
  %0 = nn.bias_add(%x, %b);
  %1 = nn.bias_add(%y, %b, axis=-1);
  (%0, %1)
})");
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(1, 8, 4, 4), float32], %b: Tensor[(8), float32],
          %y: Tensor[(2, 8), float32]) {
  %0 = expand_dims(%b, axis=1, num_newaxis=2);
  %1 = add(%x, %0);
  %2 = add(%y, %b);
  (%1, %2)
})");
  RunOk(CanonicalizeOps(), mod);
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
}

TEST(RemoveDropout, ProjectionZeroOfDropoutIsItsInput) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.dropout(%x);
  %1 = %0.0;
  nn.relu(%1)
})");
  RunOk(RemoveDropout(), mod);
  EXPECT_TRUE(SameModule(mod, ParseTyped("def @main(%x: Tensor[(4), float32]) { nn.relu(%x) }")));
}

TEST(DeadCodeElimination, DropsUnusedLetChains) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(4), float32]) {
  let %a = exp(%x);
  let %b = tanh(%a);
  let %c = nn.relu(%x);
  %c
})");
  RunOk(DeadCodeElimination(), mod);
  EXPECT_TRUE(SameModule(mod, ParseTyped(R"(
def @main(%x: Tensor[(4), float32]) {
  let %c = nn.relu(%x);
  %c
})")));
}

TEST(DeadCodeElimination, KeepsStatefulValuesUnlessIgnoringImpurity) {
  const char* text = R"(
def @main(%x: Tensor[(4), float32]) {
  let %d = nn.dropout(%x);
  %x
})";
  Module kept = ParseTyped(text);
  EXPECT_FALSE(RunOk(DeadCodeElimination(), kept));
  Module dropped = ParseTyped(text);
  EXPECT_TRUE(RunOk(DeadCodeElimination(/*ignore_impurity=*/true), dropped));
}

TEST(SimplifyExpr, RuleTable) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = reshape(%x, newshape=[3, 2]);
  %1 = expand_dims(%0, axis=0);
  %2 = transpose(%x, axes=[1, 0]);
  %3 = transpose(%2, axes=[1, 0]);
  %4 = cast(%y, dtype="float32");
  %5 = multiply(1f, %4);
  %6 = add(%5, 0f);
  %7 = zeros_like(%x);
  (%1, %3, %6, %7)
})");
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = reshape(%x, newshape=[1, 3, 2]);
  %1 = zeros(shape=[2, 3], dtype="float32");
  (%0, %x, %y, %1)
})");
  RunOk(SimplifyExpr(), mod);
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
}

// Every SimplifyExpr pass of one option set shares one rule table for the
// process (compiled once); passes made and run on several threads at once
// give each the answer of its own options: a table for keep_clip_after is
// not the default one, whatever the order the ops are named in.
TEST(SimplifyExpr, SharedRuleTablesOnThreads) {
  constexpr char kText[] = R"(
def @main(%x: Tensor[(1, 4), int8], %y: Tensor[(1, 4), int8]) {
  %0 = nn.relu(%x);
  %1 = clip(%0, a_min=-128f, a_max=127f);
  %2 = clip(%y, a_min=-128f, a_max=127f);
  (%1, %2)
})";
  const Module removed = ParseTyped(R"(
def @main(%x: Tensor[(1, 4), int8], %y: Tensor[(1, 4), int8]) {
  %0 = nn.relu(%x);
  (%0, %y)
})");
  const Module kept = ParseTyped(R"(
def @main(%x: Tensor[(1, 4), int8], %y: Tensor[(1, 4), int8]) {
  %0 = nn.relu(%x);
  %1 = clip(%0, a_min=-128f, a_max=127f);
  (%1, %y)
})");
  absl::StatusOr<SimplifyExprOptions> keep = SimplifyExprOptionsFor({"nn.relu", "add"});
  absl::StatusOr<SimplifyExprOptions> keep_reordered =
      SimplifyExprOptionsFor({"add", "nn.relu", "add"});
  ASSERT_TRUE(keep.ok() && keep_reordered.ok());
  std::vector<Module> mods;
  std::vector<std::thread> threads;
  std::vector<int> same(8, 0);
  for (int i = 0; i < 8; ++i) mods.push_back(ParseTyped(kText));
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      const bool keeps = i % 2 == 1;
      PassPtr pass = !keeps ? SimplifyExpr() : SimplifyExpr(i % 4 == 1 ? *keep : *keep_reordered);
      if (RunOk(pass, mods[i])) same[i] = SameModule(mods[i], keeps ? kept : removed) ? 1 : 2;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(same[i], 1) << "thread " << i << "\n" << Show(mods[i]);
}

// A constant that broadcasts its operand to a bigger shape is not an
// identity.
TEST(SimplifyExpr, BroadcastingConstantIsKept) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(3), float32], %zeros: Tensor[(2, 3), float32]) { add(%x, %zeros) })");
  ASSERT_TRUE(BindParams(mod, {{"zeros", Filled({2, 3}, 0)}}).ok());
  EXPECT_FALSE(RunOk(SimplifyExpr(), mod)) << Show(mod);
  EXPECT_EQ(CountOps(mod, "add"), 1);
}

// TVM's EliminateIdentityRewrite takes a constant operand only when it has
// a single element (IsScalar): an all-zero tensor of x's own shape is kept.
TEST(SimplifyExpr, NonScalarZeroConstantIsKept) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 3), float32], %zeros: Tensor[(2, 3), float32]) { add(%x, %zeros) })");
  ASSERT_TRUE(BindParams(mod, {{"zeros", Filled({2, 3}, 0)}}).ok());
  EXPECT_FALSE(RunOk(SimplifyExpr(), mod)) << Show(mod);
  EXPECT_EQ(CountOps(mod, "add"), 1);
}

// conv -> relu -> conv in NCHW becomes NHWC with one transform in, one out.
// bias_add is canonicalized first (TVM's ConvertLayout requires
// CanonicalizeOps); its (C, 1, 1) bias is expanded to NCHW and transformed;
// the residual add and the pool follow NHWC.
TEST(ConvertLayout, ConvChainToNhwc) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(1, 8, 16, 16), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32], %b: Tensor[(8), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1, 1, 1]);
  %4 = add(%3, %2);
  nn.max_pool2d(%4, pool_size=[2, 2], strides=[2, 2])
})");
  absl::StatusOr<PassPtr> pass = ConvertLayout({"NHWC", "default"});
  ASSERT_TRUE(pass.ok());
  RunOk(*pass, mod);
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(1, 8, 16, 16), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32], %b: Tensor[(8), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%w1, src_layout="OIHW", dst_layout="HWIO");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO");
  %3 = expand_dims(%b, axis=1, num_newaxis=2);
  %4 = expand_dims(%3, axis=0);
  %5 = layout_transform(%4, src_layout="NCHW", dst_layout="NHWC");
  %6 = add(%2, %5);
  %7 = nn.relu(%6);
  %8 = layout_transform(%w2, src_layout="OIHW", dst_layout="HWIO");
  %9 = nn.conv2d(%7, %8, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO");
  %10 = add(%9, %7);
  %11 = nn.max_pool2d(%10, pool_size=[2, 2], strides=[2, 2], layout="NHWC");
  layout_transform(%11, src_layout="NHWC", dst_layout="NCHW")
})");
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true)) << Show(mod);
}

TEST(ConvertLayout, AlreadyInLayoutIsUnchanged) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(1, 16, 16, 8), float32], %w: Tensor[(3, 3, 8, 8), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO")
})");
  absl::StatusOr<PassPtr> pass = ConvertLayout({"NHWC", "default"});
  ASSERT_TRUE(pass.ok());
  EXPECT_FALSE(RunOk(*pass, mod));
}

}  // namespace
}  // namespace carve::testing

namespace carve::testing {
namespace {

// TVM's InferType fills what was left unannotated: parameters and let
// variables get their inferred types, functions their return types.
TEST(TypeAnnotations, InferTypeFillsMissingAnnotations) {
  absl::StatusOr<Module> mod = ParseModule("t.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  let %f = fn (%y) { tanh(%y) };
  let %z = %f(%x);
  %z
})");
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  absl::StatusOr<bool> filled = InferTypeAndAnnotate(*mod);
  ASSERT_TRUE(filled.ok()) << RenderStatus(filled.status());
  EXPECT_TRUE(*filled);
  EXPECT_EQ(Show(*mod), R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {
  let %f: fn (Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] = fn (%y: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {
    tanh(%y)
  };
  let %z: Tensor[(2, 2), float32] = %f(%x);
  %z
}
)");
  // A second time there is nothing to fill, and a typed module is not
  // inferred again.
  absl::StatusOr<bool> again = RetypeIfNeeded(*mod);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

// A pass that keeps types still leaves the annotations TVM's trailing
// InferType would add, when the module it got lacked them.
TEST(TypeAnnotations, FirstPassOfAPipelineFillsThem) {
  absl::StatusOr<Module> mod = ParseModule("t.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  add(%x, %x)
})");
  ASSERT_TRUE(mod.ok());
  ASSERT_TRUE(InferType(*mod).ok());
  ASSERT_EQ(mod->Lookup("main")->ret_type(), nullptr);
  absl::StatusOr<PassPtr> pipeline = ParsePipeline("AnnotateTarget(byoc_target)");
  ASSERT_TRUE(pipeline.ok());
  PassContext ctx;
  ASSERT_TRUE(RunPipeline(**pipeline, *mod, ctx).ok());
  ASSERT_NE(mod->Lookup("main")->ret_type(), nullptr);
  EXPECT_EQ(PrintType(mod->Lookup("main")->ret_type()), "Tensor[(2, 2), float32]");
}

}  // namespace
}  // namespace carve::testing
