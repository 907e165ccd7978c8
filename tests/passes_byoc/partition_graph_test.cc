// Ports of TVM v0.16 tests/python/relay/test_pass_partition_graph.py
// (tvm-reference 6.6). The TVM tests build annotations with small Python
// annotators; here the annotated modules are written out. Execution halves
// (check_result) belong to the interpreter's tests. Not ported:
// test_extern_dnnl_mobilenet and test_dnnl_fuse's MobileNet part (they need
// the DNNL runtime and relay.testing workloads), test_function_lifting_inline
// (TVM's Inline pass), test_preserve_type_import (carve has no ADTs); the
// BatchNorm folding half of test_dnnl_fuse is covered by the pattern-count
// cases below without SimplifyInference.
#include "passes/byoc/partition_graph.h"

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"
#include "passes/byoc/annotate_target.h"
#include "passes/fold/bind_params.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "patterns/builders.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

constexpr const char* kAttrs =
    R"(Compiler="{0}", Primitive=1, Inline=1, global_symbol="tvmgen_default_{1}")";

// The attributes PartitionGraph gives `tvmgen_default_<name>` for target
// `target`, as function-attribute text.
std::string Attrs(std::string_view target, std::string_view name) {
  return fmt::format(fmt::runtime(kAttrs), target, name);
}

Module Partitioned(std::string_view text, PartitionGraphOptions options = {}) {
  Module mod = ParseTyped(text);
  RunOk(PartitionGraph(options), mod);
  return mod;
}

// TVM's FIXME: the two C-compiler chains share the input %x and "should be
// merged". Regions only merge along dataflow edges, in TVM and here, so
// there are two functions.
TEST(PartitionGraph, MultiNodeCompiler) {
  std::string chain = R"(
  %{0}0 = annotation.compiler_begin(%x, compiler="ccompiler");
  %{0}1 = annotation.compiler_begin(%w{1}, compiler="ccompiler");
  %{0}2 = add(%{0}0, %{0}1);
  %{0}3 = annotation.compiler_begin(%w{2}, compiler="ccompiler");
  %{0}4 = subtract(%{0}2, %{0}3);
  %{0}5 = annotation.compiler_begin(%w{3}, compiler="ccompiler");
  %{0}6 = multiply(%{0}4, %{0}5);
  %{0}7 = annotation.compiler_end(%{0}6, compiler="ccompiler");
)";
  std::string params = "%x: Tensor[(10, 10), float32]";
  for (int i = 0; i < 8; ++i) params += fmt::format(", %w{}: Tensor[(10, 10), float32]", i);
  Module mod = Partitioned("def @main(" + params + ") {" +
                           fmt::format(fmt::runtime(chain), "1", 0, 1, 2) +
                           fmt::format(fmt::runtime(chain), "2", 3, 4, 5) + R"(
  %30 = add(%x, %w6);
  %31 = subtract(%30, %w7);
  %32 = (%17, %27, %31);
  concatenate(%32)
})");
  std::vector<std::string> names;
  for (const auto& [gv, fn] : mod.Functions()) names.emplace_back(gv->name());
  EXPECT_THAT(names, ::testing::ElementsAre("main", "tvmgen_default_ccompiler_main_0",
                                            "tvmgen_default_ccompiler_main_4"));
}

TEST(PartitionGraph, ExternCcompilerSingleOp) {
  Module mod = Partitioned(R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="ccompiler");
  %1 = annotation.compiler_begin(%y, compiler="ccompiler");
  %2 = add(%0, %1);
  annotation.compiler_end(%2, compiler="ccompiler")
})");
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32]) {
  @tvmgen_default_ccompiler_main_0(%x, %y)
}
def @tvmgen_default_ccompiler_main_0(%ccompiler_0_i0: Tensor[(8, 8), float32],
    %ccompiler_0_i1: Tensor[(8, 8), float32], )" +
                                  Attrs("ccompiler", "ccompiler_main_0") + R"() -> Tensor[(8, 8), float32] {
  add(%ccompiler_0_i0, %ccompiler_0_i1)
})");
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
  const Function* fn = mod.Lookup("tvmgen_default_ccompiler_main_0");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->params()[1]->name(), "ccompiler_0_i1");
}

// Only add is offloaded; log, exp and concatenate stay in @main.
const char* kDefaultOps = R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32]) {{
  %0 = annotation.compiler_begin(%x, compiler="{0}");
  %1 = annotation.compiler_begin(%y, compiler="{0}");
  %2 = add(%0, %1);
  %3 = annotation.compiler_end(%2, compiler="{0}");
  %4 = log(%3);
  %5 = exp(%3);
  %6 = (%4, %5);
  concatenate(%6)
}})";

const char* kDefaultOpsExpected = R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32]) {{
  %0 = @tvmgen_default_{1}_main_0(%x, %y);
  %1 = log(%0);
  %2 = exp(%0);
  %3 = (%1, %2);
  concatenate(%3)
}}
def @tvmgen_default_{1}_main_0(%a: Tensor[(8, 8), float32], %b: Tensor[(8, 8), float32],
    Compiler="{0}", Primitive=1, Inline=1, global_symbol="tvmgen_default_{1}_main_0") {{
  add(%a, %b)
}})";

TEST(PartitionGraph, ExternCcompilerDefaultOps) {
  Module mod = Partitioned(fmt::format(fmt::runtime(kDefaultOps), "ccompiler"));
  EXPECT_TRUE(SameModule(
      mod, ParseTyped(fmt::format(fmt::runtime(kDefaultOpsExpected), "ccompiler", "ccompiler"))));
}

// Default annotations far from the root (past the scan that lets the pass
// skip a region-set build) are removed all the same: the `t` region is
// numbered as if they were never there.
TEST(PartitionGraph, DefaultAnnotationsFarFromTheRoot) {
  std::string text = R"(def @main(%x: Tensor[(2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="default");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="default");
  %3 = annotation.compiler_begin(%2, compiler="t");
)";
  constexpr int kChain = 3000;
  for (int i = 0; i < kChain; ++i) text += fmt::format("  %{} = tanh(%{});\n", i + 4, i + 3);
  text += fmt::format("  annotation.compiler_end(%{}, compiler=\"t\")\n}}\n", kChain + 3);
  Module mod = Partitioned(text);
  ASSERT_NE(mod.Lookup("tvmgen_default_t_main_0"), nullptr) << Show(mod);
  const Call* call = Cast<Call>(mod.Lookup("main")->body());
  EXPECT_TRUE(IsOpCall(call->args()[0], "nn.relu"));
}

// Non-alphanumerics in the name become `_`; the Compiler attribute keeps them.
TEST(PartitionGraph, ExternCompilerSanitizedOps) {
  Module mod = Partitioned(fmt::format(fmt::runtime(kDefaultOps), "unsanitary-name++"));
  EXPECT_TRUE(SameModule(mod, ParseTyped(fmt::format(fmt::runtime(kDefaultOpsExpected),
                                                     "unsanitary-name++", "unsanitary_name__"))));
}

// Regions are numbered per function, and named after it.
TEST(PartitionGraph, ExternCcompilerMultipleFunctions) {
  std::string main = fmt::format(fmt::runtime(kDefaultOps), "ccompiler");
  std::string sub = main;
  sub.replace(sub.find("@main"), 5, "@subfunction");
  for (size_t at = sub.find("(8, 8)"); at != std::string::npos; at = sub.find("(8, 8)")) {
    sub.replace(at, 6, "(16, 16)");
  }
  Module mod = Partitioned(main + sub.substr(sub.find("def")));
  std::vector<std::string> names;
  for (const auto& [gv, fn] : mod.Functions()) names.emplace_back(gv->name());
  EXPECT_THAT(names, ::testing::ElementsAre("main", "subfunction",
                                            "tvmgen_default_ccompiler_main_0",
                                            "tvmgen_default_ccompiler_subfunction_0"));
}

// One region per op (no merging); an input read twice is one parameter.
TEST(PartitionGraph, ExternCcompiler) {
  Module mod = Partitioned(R"(
def @main(%x: Tensor[(2, 2), float32], %y: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="ccompiler");
  %1 = annotation.compiler_begin(%x, compiler="ccompiler");
  %2 = add(%0, %1);
  %3 = annotation.compiler_end(%2, compiler="ccompiler");
  %4 = annotation.compiler_begin(%y, compiler="ccompiler");
  %5 = annotation.compiler_begin(%y, compiler="ccompiler");
  %6 = multiply(%4, %5);
  %7 = annotation.compiler_end(%6, compiler="ccompiler");
  %8 = annotation.compiler_begin(%7, compiler="ccompiler");
  %9 = annotation.compiler_begin(%3, compiler="ccompiler");
  %10 = subtract(%8, %9);
  annotation.compiler_end(%10, compiler="ccompiler")
})");
  Module expected = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32], %y: Tensor[(2, 2), float32]) {
  %0 = @tvmgen_default_ccompiler_main_0(%y);
  %1 = @tvmgen_default_ccompiler_main_3(%x);
  @tvmgen_default_ccompiler_main_2(%0, %1)
}
def @tvmgen_default_ccompiler_main_0(%i: Tensor[(2, 2), float32], )" +
                                  Attrs("ccompiler", "ccompiler_main_0") + R"() {
  multiply(%i, %i)
}
def @tvmgen_default_ccompiler_main_2(%a: Tensor[(2, 2), float32], %b: Tensor[(2, 2), float32],
    )" + Attrs("ccompiler", "ccompiler_main_2") + R"() {
  subtract(%a, %b)
}
def @tvmgen_default_ccompiler_main_3(%i: Tensor[(2, 2), float32], )" +
                                  Attrs("ccompiler", "ccompiler_main_3") + R"() {
  add(%i, %i)
})");
  EXPECT_TRUE(SameModule(mod, expected));
}

// The whole graph in one region; the weight read by both convs is one input.
TEST(PartitionGraph, ExternDnnlWholeGraph) {
  Module mod = Partitioned(R"(
def @main(%data: Tensor[(1, 32, 14, 14), float32], %weight1: Tensor[(32, 1, 3, 3), float32]) {
  %0 = annotation.compiler_begin(%data, compiler="dnnl");
  %1 = annotation.compiler_begin(%weight1, compiler="dnnl");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  %3 = annotation.compiler_begin(%weight1, compiler="dnnl");
  %4 = nn.conv2d(%2, %3, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  %5 = add(%2, %4);
  annotation.compiler_end(%5, compiler="dnnl")
})");
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(1, 32, 14, 14), float32], %input: Tensor[(32, 1, 3, 3), float32]) {
  @tvmgen_default_dnnl_main_0(%data, %input)
}
def @tvmgen_default_dnnl_main_0(%data0: Tensor[(1, 32, 14, 14), float32],
    %input0: Tensor[(32, 1, 3, 3), float32], )" +
                                  Attrs("dnnl", "dnnl_main_0") + R"() {
  %0 = nn.conv2d(%data0, %input0, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  %1 = nn.conv2d(%0, %input0, padding=[1, 1, 1, 1], groups=32, kernel_size=[3, 3]);
  add(%0, %1)
})");
  EXPECT_TRUE(SameModule(mod, expected));
}

// conv2d and batch_norm in separate regions: ids 0 and 2 (the batch_norm
// region starts at the third compiler_begin), as TVM names them.
TEST(PartitionGraph, FunctionLifting) {
  Module mod = Partitioned(R"(
def @main(%data: Tensor[(1, 3, 224, 224), float32], %weight: Tensor[(16, 3, 3, 3), float32],
          %bn_gamma: Tensor[(16), float32], %bn_beta: Tensor[(16), float32],
          %bn_mean: Tensor[(16), float32], %bn_var: Tensor[(16), float32]) {
  %0 = annotation.compiler_begin(%data, compiler="test_compiler");
  %1 = annotation.compiler_begin(%weight, compiler="test_compiler");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %3 = annotation.compiler_end(%2, compiler="test_compiler");
  %4 = annotation.compiler_begin(%3, compiler="test_compiler");
  %5 = annotation.compiler_begin(%bn_gamma, compiler="test_compiler");
  %6 = annotation.compiler_begin(%bn_beta, compiler="test_compiler");
  %7 = annotation.compiler_begin(%bn_mean, compiler="test_compiler");
  %8 = annotation.compiler_begin(%bn_var, compiler="test_compiler");
  %9 = nn.batch_norm(%4, %5, %6, %7, %8);
  annotation.compiler_end(%9, compiler="test_compiler")
})");
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(1, 3, 224, 224), float32], %weight: Tensor[(16, 3, 3, 3), float32],
          %bn_gamma: Tensor[(16), float32], %bn_beta: Tensor[(16), float32],
          %bn_mean: Tensor[(16), float32], %bn_var: Tensor[(16), float32]) {
  %0 = @tvmgen_default_test_compiler_main_0(%data, %weight);
  @tvmgen_default_test_compiler_main_2(%0, %bn_gamma, %bn_beta, %bn_mean, %bn_var)
}
def @tvmgen_default_test_compiler_main_0(%data1: Tensor[(1, 3, 224, 224), float32],
    %weight1: Tensor[(16, 3, 3, 3), float32], )" +
                                  Attrs("test_compiler", "test_compiler_main_0") + R"() {
  nn.conv2d(%data1, %weight1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3])
}
def @tvmgen_default_test_compiler_main_2(%data0: Tensor[(1, 16, 224, 224), float32],
    %g: Tensor[(16), float32], %b: Tensor[(16), float32], %m: Tensor[(16), float32],
    %v: Tensor[(16), float32], )" +
                                  Attrs("test_compiler", "test_compiler_main_2") + R"() {
  nn.batch_norm(%data0, %g, %b, %m, %v)
})");
  EXPECT_TRUE(SameModule(mod, expected));
}

// A constant input (here from bind_params_by_name) is bound into the body.
TEST(PartitionGraph, ConstantPropagation) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="ccompiler");
  %1 = annotation.compiler_begin(%y, compiler="ccompiler");
  %2 = add(%0, %1);
  %3 = annotation.compiler_end(%2, compiler="ccompiler");
  log(%3)
})");
  NDArray ones = NDArray::Empty(DataType::Float(32), {8, 8});
  for (int64_t i = 0; i < 64; ++i) ones.SetFromDouble(i, 1.0);
  absl::StatusOr<bool> bound = BindParams(mod, {{"x", ones}});
  ASSERT_TRUE(bound.ok()) << bound.status();
  RunOk(PartitionGraph(), mod);
  const Function* fn = mod.Lookup("tvmgen_default_ccompiler_main_0");
  ASSERT_NE(fn, nullptr) << Show(mod);
  ASSERT_EQ(fn->params().size(), 1u);
  EXPECT_EQ(fn->params()[0]->name(), "ccompiler_0_i1");
  const Call* add = DynCast<Call>(fn->body());
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(Isa<Constant>(add->args()[0]));
  const Function* main = mod.Lookup("main");
  ASSERT_EQ(main->params().size(), 1u);
  const Call* log = Cast<Call>(main->body());
  EXPECT_EQ(Cast<Call>(log->args()[0])->args().size(), 1u);
}

TEST(PartitionGraph, NotBindConstant) {
  const char* text = R"(
def @main(%x: Tensor[(2, 2), float32], %y: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="ccompiler");
  %1 = annotation.compiler_begin(%y, compiler="ccompiler");
  %2 = add(%0, %1);
  annotation.compiler_end(%2, compiler="ccompiler")
})";
  NDArray ones = NDArray::Empty(DataType::Float(32), {2, 2});
  for (bool bind : {true, false}) {
    Module mod = ParseTyped(text);
    ASSERT_TRUE(BindParams(mod, {{"x", ones}}).ok());
    RunOk(PartitionGraph({"default", bind}), mod);
    const Call* call = Cast<Call>(mod.Lookup("main")->body());
    EXPECT_EQ(call->args().size(), bind ? 1u : 2u) << Show(mod);
    EXPECT_EQ(mod.Lookup("tvmgen_default_ccompiler_main_0")->params().size(), bind ? 1u : 2u);
  }
}

// A region with three outputs: a tuple body (no return type, as TVM), read
// back with projections.
TEST(PartitionGraph, MultipleOutputs) {
  Module mod = Partitioned(R"(
def @main(%data: Tensor[(1, 3, 224, 224), float32], %weight: Tensor[(16, 3, 3, 3), float32],
          %bn_gamma: Tensor[(16), float32], %bn_beta: Tensor[(16), float32],
          %bn_mean: Tensor[(16), float32], %bn_var: Tensor[(16), float32]) {
  %0 = annotation.compiler_begin(%data, compiler="test_target");
  %1 = annotation.compiler_begin(%weight, compiler="test_target");
  %2 = annotation.compiler_begin(%bn_gamma, compiler="test_target");
  %3 = annotation.compiler_begin(%bn_beta, compiler="test_target");
  %4 = annotation.compiler_begin(%bn_mean, compiler="test_target");
  %5 = annotation.compiler_begin(%bn_var, compiler="test_target");
  %6 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %7 = nn.batch_norm(%6, %2, %3, %4, %5);
  %8 = %7.0;
  %9 = nn.relu(%8);
  %10 = annotation.compiler_end(%9, compiler="test_target");
  %11 = %7.1;
  %12 = annotation.compiler_end(%11, compiler="test_target");
  %13 = %7.2;
  %14 = annotation.compiler_end(%13, compiler="test_target");
  %15 = abs(%12);
  %16 = abs(%14);
  (%10, %15, %16)
})");
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(1, 3, 224, 224), float32], %weight: Tensor[(16, 3, 3, 3), float32],
          %bn_gamma: Tensor[(16), float32], %bn_beta: Tensor[(16), float32],
          %bn_mean: Tensor[(16), float32], %bn_var: Tensor[(16), float32]) {
  %0 = @tvmgen_default_test_target_main_0(%data, %weight, %bn_gamma, %bn_beta, %bn_mean, %bn_var);
  %1 = %0.0;
  %2 = %0.1;
  %3 = abs(%2);
  %4 = %0.2;
  %5 = abs(%4);
  (%1, %3, %5)
}
def @tvmgen_default_test_target_main_0(%i0: Tensor[(1, 3, 224, 224), float32],
    %i1: Tensor[(16, 3, 3, 3), float32], %i2: Tensor[(16), float32], %i3: Tensor[(16), float32],
    %i4: Tensor[(16), float32], %i5: Tensor[(16), float32], )" +
                                  Attrs("test_target", "test_target_main_0") + R"() {
  %0 = nn.conv2d(%i0, %i1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = nn.batch_norm(%0, %i2, %i3, %i4, %i5);
  %2 = %1.0;
  %3 = nn.relu(%2);
  %4 = %1.1;
  %5 = %1.2;
  (%3, %4, %5)
})");
  EXPECT_TRUE(SameModule(mod, expected));
  // PartitionGraph leaves a tuple-output function without a return type, and
  // the InferType that ends the pass fills it (update_missing_type_annotation).
  const Type* ret = mod.Lookup("tvmgen_default_test_target_main_0")->ret_type();
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(PrintType(ret), "(Tensor[(1, 16, 224, 224), float32], Tensor[(16), float32], "
                            "Tensor[(16), float32])");
}

TEST(PartitionGraph, MixedSingleMultipleOutputs) {
  Module mod = Partitioned(R"(
def @main(%data: Tensor[(10, 10), float32]) {
  %0 = annotation.compiler_begin(%data, compiler="test_target");
  %1 = abs(%0);
  %2 = annotation.compiler_end(%1, compiler="test_target");
  %3 = nn.relu(%1);
  %4 = annotation.compiler_end(%3, compiler="test_target");
  %5 = tanh(%2);
  %6 = annotation.compiler_begin(%4, compiler="test_target");
  %7 = annotation.compiler_begin(%5, compiler="test_target");
  %8 = add(%6, %7);
  annotation.compiler_end(%8, compiler="test_target")
})");
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(10, 10), float32]) {
  %0 = @tvmgen_default_test_target_main_0(%data);
  %1 = %0.1;
  %2 = tanh(%1);
  %3 = %0.0;
  @tvmgen_default_test_target_main_1(%3, %2)
}
def @tvmgen_default_test_target_main_0(%i: Tensor[(10, 10), float32], )" +
                                  Attrs("test_target", "test_target_main_0") + R"() {
  %0 = abs(%i);
  %1 = nn.relu(%0);
  (%1, %0)
}
def @tvmgen_default_test_target_main_1(%a: Tensor[(10, 10), float32],
    %b: Tensor[(10, 10), float32], )" +
                                  Attrs("test_target", "test_target_main_1") + R"() {
  add(%a, %b)
})");
  EXPECT_TRUE(SameModule(mod, expected));
}

// test_dnnl_fuse's pattern-count cases that need no BatchNorm folding:
// conv + relu twice, with the conv_relu pattern (two composites) or only the
// conv_bias_relu pattern (nothing fuses: four single-op partitions).
TEST(PartitionGraph, DnnlFuseCounts) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  CompositeRule conv_relu{"conv2d_relu", IsOp("nn.relu")(conv), nullptr, ""};
  CompositeRule conv_bias_relu{"conv2d_bias_relu", IsOp("nn.relu")(IsOp("add")(conv, Wildcard())),
                               nullptr, ""};
  const char* text = R"(
def @main(%data: Tensor[(1, 3, 224, 224), float32], %w1: Tensor[(8, 3, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%data, %w1, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %w2, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  nn.relu(%2)
})";
  struct Case {
    std::vector<CompositeRule> table;
    size_t partitions;
  };
  for (const Case& c : {Case{{conv_relu}, 2}, Case{{conv_bias_relu}, 4}}) {
    TargetSpecPtr dnnl = RegisterTarget("fuse_dnnl", {"nn.conv2d", "nn.relu", "add"}, c.table);
    Module mod = ParseTyped(text);
    RunOk(MergeComposite({dnnl}), mod);
    RunOk(AnnotateTarget({dnnl}), mod);
    RunOk(PartitionGraph(), mod);
    EXPECT_EQ(mod.size() - 1, c.partitions) << Show(mod);
  }
}

// With every op offloaded and merged, log, subtract and multiply form one
// region whose two reads of `add` share a parameter; without multiply, log
// and subtract are two regions reading the same value.
TEST(PartitionGraph, MultipleUseOfAnOutput) {
  const char* before = R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32],
          %z: Tensor[(8, 8), float32]) {
  %0 = add(%x, %y);
  %1 = subtract(%0, %z);
  %2 = log(%0);
  multiply(%2, %1)
})";
  {
    TargetSpecPtr cc = RegisterTarget("ccompiler", {"subtract", "log", "multiply"});
    Module mod = ParseTyped(before);
    RunOk(AnnotateTarget({cc}), mod);
    RunOk(MergeCompilerRegions(), mod);
    RunOk(PartitionGraph(), mod);
    Module expected = ParseTyped(R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32],
          %z: Tensor[(8, 8), float32]) {
  %0 = add(%x, %y);
  @tvmgen_default_ccompiler_main_0(%0, %z)
}
def @tvmgen_default_ccompiler_main_0(%x0: Tensor[(8, 8), float32],
    %y0: Tensor[(8, 8), float32], )" + Attrs("ccompiler", "ccompiler_main_0") + R"() {
  %0 = log(%x0);
  %1 = subtract(%x0, %y0);
  multiply(%0, %1)
})");
    EXPECT_TRUE(SameModule(mod, expected));
  }
  {
    TargetSpecPtr cc = RegisterTarget("ccompiler", {"subtract", "log"});
    Module mod = ParseTyped(before);
    RunOk(AnnotateTarget({cc}), mod);
    RunOk(MergeCompilerRegions(), mod);
    RunOk(PartitionGraph(), mod);
    Module expected = ParseTyped(R"(
def @main(%x: Tensor[(8, 8), float32], %y: Tensor[(8, 8), float32],
          %z: Tensor[(8, 8), float32]) {
  %0 = add(%x, %y);
  %1 = @tvmgen_default_ccompiler_main_0(%0);
  %2 = @tvmgen_default_ccompiler_main_1(%0, %z);
  multiply(%1, %2)
}
def @tvmgen_default_ccompiler_main_0(%i0: Tensor[(8, 8), float32], )" +
                                    Attrs("ccompiler", "ccompiler_main_0") + R"() {
  log(%i0)
}
def @tvmgen_default_ccompiler_main_1(%x0: Tensor[(8, 8), float32],
    %y0: Tensor[(8, 8), float32], )" + Attrs("ccompiler", "ccompiler_main_1") + R"() {
  subtract(%x0, %y0)
})");
    EXPECT_TRUE(SameModule(mod, expected));
  }
}

// One output read three times is one function output.
TEST(PartitionGraph, DuplicateOutputs) {
  TargetSpecPtr t = RegisterTarget("test_duplicate_outputs", {"abs"});
  Module mod = ParseTyped(R"(
def @main(%data: Tensor[(10, 10), float32]) {
  %0 = abs(%data);
  %1 = nn.relu(%0);
  %2 = tanh(%0);
  %3 = log(%0);
  (%1, %2, %3)
})");
  RunOk(AnnotateTarget({t}), mod);
  RunOk(MergeCompilerRegions(), mod);
  RunOk(PartitionGraph(), mod);
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(10, 10), float32]) {
  %0 = @tvmgen_default_test_duplicate_outputs_main_0(%data);
  %1 = nn.relu(%0);
  %2 = tanh(%0);
  %3 = log(%0);
  (%1, %2, %3)
}
def @tvmgen_default_test_duplicate_outputs_main_0(%i: Tensor[(10, 10), float32], )" +
                                  Attrs("test_duplicate_outputs",
                                        "test_duplicate_outputs_main_0") +
                                  R"() -> Tensor[(10, 10), float32] {
  abs(%i)
})");
  EXPECT_TRUE(SameModule(mod, expected, /*with_types=*/true));
}

TEST(PartitionGraph, DuplicateMergeAndTupleGetItem) {
  TargetSpecPtr t =
      RegisterTarget("test_duplicate_merge_and_tuplegetitem", {"nn.batch_norm", "nn.relu"});
  Module mod = ParseTyped(R"(
def @main(%data: Tensor[(10, 10), float32], %bn_gamma: Tensor[(10), float32],
          %bn_beta: Tensor[(10), float32], %bn_mean: Tensor[(10), float32],
          %bn_var: Tensor[(10), float32]) {
  %0 = nn.batch_norm(%data, %bn_gamma, %bn_beta, %bn_mean, %bn_var);
  %1 = %0.0;
  %2 = nn.relu(%1);
  %3 = %0.1;
  %4 = tanh(%3);
  %5 = log(%3);
  (%2, %4, %5)
})");
  RunOk(AnnotateTarget({t}), mod);
  RunOk(MergeCompilerRegions(), mod);
  RunOk(PartitionGraph(), mod);
  std::string name = "test_duplicate_merge_and_tuplegetitem_main_0";
  Module expected = ParseTyped(R"(
def @main(%data: Tensor[(10, 10), float32], %bn_gamma: Tensor[(10), float32],
          %bn_beta: Tensor[(10), float32], %bn_mean: Tensor[(10), float32],
          %bn_var: Tensor[(10), float32]) {
  %0 = @tvmgen_default_)" + name + R"((%data, %bn_gamma, %bn_beta, %bn_mean, %bn_var);
  %1 = %0.0;
  %2 = %0.1;
  %3 = tanh(%2);
  %4 = log(%2);
  (%1, %3, %4)
}
def @tvmgen_default_)" + name + R"((%i0: Tensor[(10, 10), float32], %i1: Tensor[(10), float32],
    %i2: Tensor[(10), float32], %i3: Tensor[(10), float32], %i4: Tensor[(10), float32], )" +
                                  Attrs("test_duplicate_merge_and_tuplegetitem", name) + R"() {
  %0 = nn.batch_norm(%i0, %i1, %i2, %i3, %i4);
  %1 = %0.1;
  %2 = %0.0;
  %3 = nn.relu(%2);
  (%3, %1)
})");
  EXPECT_TRUE(SameModule(mod, expected));
}

// A tuple of constants read by a partition is bound into it.
TEST(PartitionGraph, ConstantTuples) {
  TargetSpecPtr t = RegisterTarget("const_tuples", {"stack"});
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2), float32]) {
  %0 = (1f, 2f);
  %1 = stack(%0);
  add(%x, %1)
})");
  RunOk(AnnotateTarget({t}), mod);
  RunOk(MergeCompilerRegions(), mod);
  RunOk(PartitionGraph(), mod);
  const Function* fn = mod.Lookup("tvmgen_default_const_tuples_main_0");
  ASSERT_NE(fn, nullptr) << Show(mod);
  EXPECT_TRUE(fn->params().empty());
  const Call* stack = Cast<Call>(fn->body());
  const Tuple* tuple = DynCast<Tuple>(stack->args()[0]);
  ASSERT_NE(tuple, nullptr);
  EXPECT_TRUE(Isa<Constant>(tuple->fields()[0]) && Isa<Constant>(tuple->fields()[1]));
}

// compiler_end of a tuple becomes a tuple of ends: the split's fields are
// separate outputs.
TEST(PartitionGraph, FlattenTupleOutput) {
  TargetSpecPtr t = RegisterTarget("test_flatten_tuple_output", {"split", "abs"});
  Module mod = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), uint8]) {
  %0 = split(%a, indices_or_sections=2);
  %1 = %0.0;
  %2 = abs(%1);
  %3 = %0.0;
  %4 = %0.1;
  %5 = (%3, %4);
  %6 = concatenate(%5);
  %7 = nn.relu(%2);
  (%6, %7)
})");
  RunOk(AnnotateTarget({t}), mod);
  RunOk(MergeCompilerRegions(), mod);
  RunOk(PartitionGraph(), mod);
  std::string name = "test_flatten_tuple_output_main_0";
  Module expected = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), uint8]) {
  %0 = @tvmgen_default_)" + name + R"((%a);
  %1 = %0.0;
  %2 = %0.1;
  %3 = (%1, %2);
  %4 = concatenate(%3);
  %5 = %0.2;
  %6 = nn.relu(%5);
  (%4, %6)
}
def @tvmgen_default_)" + name + R"((%i: Tensor[(10, 10), uint8], )" +
                                  Attrs("test_flatten_tuple_output", name) + R"() {
  %0 = split(%i, indices_or_sections=2);
  %1 = %0.0;
  %2 = %0.1;
  %3 = %0.0;
  %4 = abs(%3);
  (%1, %2, %4)
})");
  EXPECT_TRUE(SameModule(mod, expected));
}

TEST(PartitionGraph, TupleOutput) {
  Module mod = Partitioned(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = annotation.compiler_begin(%a, compiler="ccompiler");
  %1 = annotation.compiler_begin(%b, compiler="ccompiler");
  %2 = add(%0, %1);
  %3 = subtract(%0, %1);
  %4 = (%2, %3);
  annotation.compiler_end(%4, compiler="ccompiler")
})");
  Module expected = ParseTyped(R"(
def @main(%a: Tensor[(10, 10), float32], %b: Tensor[(10, 10), float32]) {
  %0 = @tvmgen_default_ccompiler_main_0(%a, %b);
  (%0.0, %0.1)
}
def @tvmgen_default_ccompiler_main_0(%x: Tensor[(10, 10), float32],
    %y: Tensor[(10, 10), float32], )" + Attrs("ccompiler", "ccompiler_main_0") + R"() {
  (add(%x, %y), subtract(%x, %y))
})");
  EXPECT_TRUE(SameModule(mod, expected));
}

// The target's `relay.ext.<target>.optimize` hook runs on each partition.
TEST(PartitionGraph, ExternOptimizeHook) {
  auto spec = std::make_shared<TargetSpec>("test_target_hook");
  int calls = 0;
  spec->set_partition_hook([&calls](const Function* fn, Arena* arena) {
    ++calls;
    IRBuilder b(arena);
    return b.MakeFunction(fn->params(), fn->body(), fn->ret_type(),
                          WithAttr(fn->attrs(), "Optimized", AttrValue::Int(1)));
  });
  TargetRegistry::Global().Register(spec);
  Module mod = Partitioned(R"(
def @main(%x: Tensor[(2, 2), float32], %y: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%y, compiler="test_target_hook");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="test_target_hook");
  multiply(%2, %x)
})");
  EXPECT_EQ(calls, 1);
  const Function* fn = mod.Lookup("tvmgen_default_test_target_hook_main_0");
  ASSERT_NE(fn, nullptr);
  EXPECT_TRUE(fn->HasAttr("Optimized"));
}

TEST(PartitionGraph, ModName) {
  const char* text = R"(
def @main(%x: Tensor[(2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  annotation.compiler_end(%1, compiler="t")
})";
  EXPECT_NE(Partitioned(text, {"my_mod", true}).Lookup("tvmgen_my_mod_t_main_0"), nullptr);
  EXPECT_NE(Partitioned(text, {"", true}).Lookup("tvmgen_t_main_0"), nullptr);
  Module mod = ParseTyped(text);
  absl::StatusOr<bool> bad = RunPass(*PartitionGraph({"bad-name", true}), mod);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("invalid characters"));
}

// A second PartitionGraph renames the functions of the first, as TVM's
// NameMangleExtFuncs does, and updates their calls.
TEST(PartitionGraph, ExistingExternalFunctionsAreRenamed) {
  Module mod = Partitioned(R"(
def @main(%x: Tensor[(2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  annotation.compiler_end(%1, compiler="t")
})");
  RunOk(PartitionGraph(), mod);
  const Function* fn = mod.Lookup("tvmgen_default_tvmgen_default_t_main_0");
  ASSERT_NE(fn, nullptr) << Show(mod);
  EXPECT_EQ(fn->GetStringAttr("global_symbol"), "tvmgen_default_tvmgen_default_t_main_0");
  const Call* call = Cast<Call>(mod.Lookup("main")->body());
  EXPECT_EQ(Cast<GlobalVar>(call->callee())->name(), "tvmgen_default_tvmgen_default_t_main_0");
}

TEST(PartitionGraph, CyclicRegionsAreRejected) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  %3 = (%2,);
  %4 = concatenate(%3);
  %5 = annotation.compiler_begin(%4, compiler="t");
  %6 = add(%1, %5);
  annotation.compiler_end(%6, compiler="t")
})");
  absl::StatusOr<bool> result = RunPass(*PartitionGraph(), mod);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("-> region 0 (t)"));
  EXPECT_EQ(mod.size(), 1u) << Show(mod);  // no function of the failed run is left behind
}

// The walk cannot see a cycle through a let-bound variable (it reaches the
// variable, not its value), so functions with lets get the full test.
TEST(PartitionGraph, CycleThroughALetIsRejected) {
  Module mod = ParseTyped(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  let %y = tanh(%2);
  %3 = annotation.compiler_begin(%y, compiler="t");
  %4 = add(%1, %3);
  annotation.compiler_end(%4, compiler="t")
})");
  absl::StatusOr<bool> result = RunPass(*PartitionGraph(), mod);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("-> region 0 (t)"));
  EXPECT_EQ(mod.size(), 1u) << Show(mod);
}

// Regions on either side of a let are partitioned (the full test finds no
// cycle).
TEST(PartitionGraph, RegionsAroundALet) {
  Module mod = Partitioned(R"(
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="t");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="t");
  let %y = tanh(%2);
  %3 = annotation.compiler_begin(%y, compiler="t");
  %4 = nn.relu(%3);
  annotation.compiler_end(%4, compiler="t")
})");
  EXPECT_NE(mod.Lookup("tvmgen_default_t_main_0"), nullptr) << Show(mod);
  EXPECT_NE(mod.Lookup("tvmgen_default_t_main_1"), nullptr) << Show(mod);
}

}  // namespace
}  // namespace carve::testing
