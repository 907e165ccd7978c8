// Each backend's whole flow (partition_for_<backend>) on the shapes of TVM's
// contrib tests (tvm-reference 6.8), and the pruning steps.
#include "backends/partition.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "backends/dnnl/dnnl_backend.h"

#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"

namespace carve {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// One string per offloaded function (in name order): the composites and ops
// at its top level (not inside composites), sorted, joined by '+'.
std::vector<std::string> TopLevel(const Module& mod, std::string_view backend) {
  std::vector<std::string> out;
  for (const auto& [gv, fn] : mod.Functions()) {
    if (fn->GetStringAttr("Compiler") != backend) continue;
    std::vector<std::string> parts;
    std::vector<const Expr*> stack{fn->body()};
    absl::flat_hash_set<const Expr*> seen;
    while (!stack.empty()) {
      const Expr* e = stack.back();
      stack.pop_back();
      if (!seen.insert(e).second) continue;
      if (const Call* c = DynCast<Call>(e)) {
        if (const Function* f = DynCast<Function>(c->callee())) {
          parts.emplace_back(f->GetStringAttr("Composite"));
        } else if (c->op() != nullptr) {
          parts.emplace_back(c->op()->name);
        }
        for (const Expr* a : c->args()) stack.push_back(a);
      } else {
        ForEachChild(e, [&](const Expr* c) { if (!Isa<Function>(c)) stack.push_back(c); });
      }
    }
    std::sort(parts.begin(), parts.end());
    std::string joined;
    for (const std::string& p : parts) joined += (joined.empty() ? "" : "+") + p;
    out.push_back(joined);
  }
  return out;
}

Module Partition(std::string_view text, std::string_view backend,
                 std::map<std::string, std::vector<int64_t>> consts = {}) {
  Module mod = testing::ParseTyped(text);
  BackendPartitionOptions options;
  uint32_t seed = 11;
  for (const auto& [name, shape] : consts) options.params[name] = testing::RandomF32(shape, seed++);
  absl::StatusOr<Module> out = PartitionForBackend(mod, backend, options);
  EXPECT_TRUE(out.ok()) << RenderStatus(out.status());
  return out.ok() ? *out : Module();
}

constexpr std::string_view kBnnsConvBias = R"(
def @main(%x: Tensor[(1, 8, 10, 10), float32], %w: Tensor[(8, 8, 3, 3), float32],
          %b: BIAS_TYPE) {
  nn.relu(BIAS_OP(nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]), %b))
}
)";

std::string BnnsConvBias(std::string_view op, std::string_view bias_type) {
  std::string text(kBnnsConvBias);
  text.replace(text.find("BIAS_TYPE"), 9, bias_type);
  text.replace(text.find("BIAS_OP"), 7, op);
  return text;
}

// test_conv2d_patterns.py: test_pattern_conv2d_with_bias_add (fused for axis
// 1 only) and test_pattern_conv2d_with_add (fused for (8, 1, 1) and
// (1, 8, 1, 1) biases).
TEST(BnnsPartitionTest, BiasFusedOnlyAlongChannels) {
  Module fused = Partition(BnnsConvBias("nn.bias_add", "Tensor[(8), float32]"), "bnns",
                           {{"w", {8, 8, 3, 3}}, {"b", {8}}});
  EXPECT_THAT(TopLevel(fused, "bnns"), ElementsAre("bnns.conv2d_bias_relu"));
  for (std::string_view shape : {"Tensor[(8, 1, 1), float32]", "Tensor[(1, 8, 1, 1), float32]"}) {
    std::vector<int64_t> dims = shape.find("(8, 1, 1)") != std::string_view::npos
                                    ? std::vector<int64_t>{8, 1, 1}
                                    : std::vector<int64_t>{1, 8, 1, 1};
    Module m = Partition(BnnsConvBias("add", shape), "bnns", {{"w", {8, 8, 3, 3}}, {"b", dims}});
    EXPECT_THAT(TopLevel(m, "bnns"), ElementsAre("bnns.conv2d_bias_relu")) << shape;
  }
  // A (10,) bias broadcasts along W: conv2d -> relu is not a pattern, so the
  // conv is offloaded on its own (and add, relu stay on the host).
  Module along_w = Partition(BnnsConvBias("add", "Tensor[(10), float32]"), "bnns",
                             {{"w", {8, 8, 3, 3}}, {"b", {10}}});
  EXPECT_THAT(TopLevel(along_w, "bnns"), ElementsAre("nn.conv2d"));
}

// test_pattern_conv2d_with_non_cons_weights / _non_cons_bias.
TEST(BnnsPartitionTest, VariableWeightsOrBiasAreNotFused) {
  Module var_bias = Partition(BnnsConvBias("nn.bias_add", "Tensor[(8), float32]"), "bnns",
                              {{"w", {8, 8, 3, 3}}});
  EXPECT_THAT(TopLevel(var_bias, "bnns"), ElementsAre("nn.conv2d"));
  Module var_weight = Partition(BnnsConvBias("nn.bias_add", "Tensor[(8), float32]"), "bnns",
                                {{"b", {8}}});
  // conv2d_check wants a constant weight: not even the conv is offloaded.
  EXPECT_THAT(TopLevel(var_weight, "bnns"), IsEmpty()) << testing::Show(var_weight);
}

// test_dense.py: dense, dense + bias, dense + bias + gelu, one partition each
// (no region merging).
TEST(BnnsPartitionTest, DenseBiasGelu) {
  Module mod = Partition(R"(
def @main(%x: Tensor[(1, 32), float32], %w: Tensor[(16, 32), float32], %b: Tensor[(16), float32]) {
  %0 = add(nn.dense(%x, %w, units=16), %b);
  %1 = multiply(add(multiply(power(%0, 3f), 0.044715f), %0), 0.797885f);
  %2 = multiply(add(tanh(%1), 1f), 0.5f);
  multiply(%2, %0)
}
)",
                         "bnns", {{"w", {16, 32}}, {"b", {16}}});
  // The constant sqrt(2/pi) must match TVM's float32 exactly: 0.797885f is
  // not it, so no gelu composite; dense + bias is.
  EXPECT_THAT(TopLevel(mod, "bnns"), ElementsAre("bnns.dense_bias"));
  Module exact = Partition(R"(
def @main(%x: Tensor[(1, 32), float32], %w: Tensor[(16, 32), float32], %b: Tensor[(16), float32]) {
  %0 = add(nn.dense(%x, %w, units=16), %b);
  %1 = multiply(add(multiply(power(%0, 3f), 0.044715f), %0), 0.7978845608028654f);
  %2 = multiply(add(tanh(%1), 1f), 0.5f);
  multiply(%2, %0)
}
)",
                           "bnns", {{"w", {16, 32}}, {"b", {16}}});
  EXPECT_THAT(TopLevel(exact, "bnns"), ElementsAre("bnns.dense_bias_gelu"));
}

// test_arm_compute_lib test_pooling / test_conv2d shapes: NHWC, batch 1.
TEST(AclPartitionTest, OneFunctionPerOpOrComposite) {
  Module mod = Partition(R"(
def @main(%x: Tensor[(1, 14, 14, 32), float32], %w: Tensor[(3, 3, 32, 16), float32],
          %b: Tensor[(16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3],
                 data_layout="NHWC", kernel_layout="HWIO");
  %1 = nn.relu(nn.bias_add(%0, %b, axis=3));
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2], layout="NHWC");
  reshape(%2, newshape=[1, -1])
}
)",
                         "arm_compute_lib", {{"w", {3, 3, 32, 16}}, {"b", {16}}});
  EXPECT_THAT(TopLevel(mod, "arm_compute_lib"),
              ElementsAre("arm_compute_lib.conv2d", "nn.max_pool2d", "reshape"));
}

TEST(AclPartitionTest, NchwAndBatchAreRejected) {
  Module mod = Partition(R"(
def @main(%x: Tensor[(2, 14, 14, 32), float32]) {
  nn.max_pool2d(nn.max_pool2d(%x, pool_size=[2, 2], layout="NHWC"), pool_size=[2, 2])
}
)",
                         "arm_compute_lib");
  // Pools have no batch rule; the NCHW pool is rejected.
  EXPECT_THAT(TopLevel(mod, "arm_compute_lib"), ElementsAre("nn.max_pool2d"));
}

// test_dnnl.py: conv2d -> add -> relu of the blog, with CanonicalizeOps.
TEST(DnnlPartitionTest, BlogConvBiasReluOnePartition) {
  Module mod = Partition(R"(
def @main(%x: Tensor[(1, 32, 14, 14), float32], %w: Tensor[(32, 32, 3, 3), float32],
          %b: Tensor[(32), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  nn.softmax(nn.global_avg_pool2d(%2))
}
)",
                         "dnnl", {{"w", {32, 32, 3, 3}}, {"b", {32}}});
  EXPECT_THAT(TopLevel(mod, "dnnl"),
              ElementsAre("dnnl.conv2d_bias_relu+nn.global_avg_pool2d+nn.softmax"));
}

// test_prune_dnnl_subgraph: partitions without a compute op go back to main.
TEST(DnnlPartitionTest, PrunesPartitionsWithoutComputeOps) {
  Module mod = Partition(R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(8, 8, 1, 1), float32]) {
  %0 = nn.relu(%x);
  %1 = negative(%0);
  nn.conv2d(%1, %w, channels=8, kernel_size=[1, 1])
}
)",
                         "dnnl", {{"w", {8, 8, 1, 1}}});
  EXPECT_THAT(TopLevel(mod, "dnnl"), ElementsAre("nn.conv2d"));
  bool relu_in_main = false;
  PostOrderVisit(mod.Lookup("main")->body(), [&](const Expr* e) {
    relu_in_main = relu_in_main || IsOpCall(e, "nn.relu");
  });
  EXPECT_TRUE(relu_in_main) << testing::Show(mod);
}

// prune_dnnl_subgraphs rewrites @main only and then keeps what @main reaches
// (TVM's SubgraphRemover + RemoveUnusedFunctions): a compute-free partition
// called from @helper stays, one called from @main is inlined, and a function
// nothing calls is dropped.
TEST(DnnlPartitionTest, PruneInlinesIntoMainOnlyAndDropsUnreachable) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %0 = @dnnl_a(%x);
  @helper(%0)
}
def @helper(%y: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  @dnnl_b(%y)
}
def @dnnl_a(%i: Tensor[(1, 8), float32], Compiler="dnnl", Primitive=1, Inline=1,
            global_symbol="dnnl_a") -> Tensor[(1, 8), float32] {
  nn.relu(%i)
}
def @dnnl_b(%i: Tensor[(1, 8), float32], Compiler="dnnl", Primitive=1, Inline=1,
            global_symbol="dnnl_b") -> Tensor[(1, 8), float32] {
  tanh(%i)
}
def @unused(%u: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %u
}
)");
  absl::StatusOr<bool> pruned = PruneDnnlSubgraphs(mod);
  ASSERT_TRUE(pruned.ok()) << RenderStatus(pruned.status());
  EXPECT_TRUE(*pruned);
  std::vector<std::string> names;
  for (const auto& [gv, fn] : mod.Functions()) names.emplace_back(gv->name());
  EXPECT_THAT(names, ElementsAre("dnnl_b", "helper", "main")) << testing::Show(mod);
  bool relu_in_main = false;
  PostOrderVisit(mod.Lookup("main")->body(), [&](const Expr* e) {
    relu_in_main = relu_in_main || IsOpCall(e, "nn.relu");
  });
  EXPECT_TRUE(relu_in_main) << testing::Show(mod);
}

// With @main and one other function, prune_dnnl_subgraphs does nothing.
TEST(DnnlPartitionTest, PruneKeepsASinglePartition) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  @dnnl_a(%x)
}
def @dnnl_a(%i: Tensor[(1, 8), float32], Compiler="dnnl", Primitive=1, Inline=1,
            global_symbol="dnnl_a") -> Tensor[(1, 8), float32] {
  nn.relu(%i)
}
)");
  absl::StatusOr<bool> pruned = PruneDnnlSubgraphs(mod);
  ASSERT_TRUE(pruned.ok()) << RenderStatus(pruned.status());
  EXPECT_FALSE(*pruned);
  EXPECT_NE(mod.Lookup("dnnl_a"), nullptr);
}

// A let-bound value partitioned as TVM does it: @main reads free variables,
// and CheckRunnablePartition names them with their lets.
TEST(CheckRunnablePartitionTest, NamesFreeVariablesAndTheirLets) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  let %a: Tensor[(1, 8), float32] = nn.relu(%x);
  %a
}
)");
  EXPECT_TRUE(CheckRunnablePartition(mod).ok());
  absl::StatusOr<Module> partitioned = PartitionForBackend(mod, "tensorrt");
  ASSERT_TRUE(partitioned.ok()) << RenderStatus(partitioned.status());
  absl::Status status = CheckRunnablePartition(*partitioned);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << testing::Show(*partitioned);
  EXPECT_THAT(std::string(status.message()),
              ::testing::HasSubstr("%tensorrt_1_i0 (the value of let %a)"));
}

// test_tensorrt: one-op composites merged into one region; squeeze's arity
// keeps it on the host; inputs of different batch sizes are pruned.
TEST(TensorRtPartitionTest, CompositesMergeAndArityMismatchesStayOnHost) {
  Module mod = Partition(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);
  squeeze(nn.global_avg_pool2d(%2), axis=[2, 3])
}
)",
                         "tensorrt", {{"w", {4, 3, 3, 3}}});
  EXPECT_THAT(TopLevel(mod, "tensorrt"),
              ElementsAre("tensorrt.nn.conv2d+tensorrt.nn.global_avg_pool2d+"
                          "tensorrt.nn.max_pool2d+tensorrt.nn.relu"));
  // Two independent sigmoids stay two partitions (no dataflow edge to merge
  // along), each valid on its own.
  Module separate = Partition(R"(
def @main(%x: Tensor[(2, 4), float32], %y: Tensor[(3, 4), float32]) {
  %0 = sigmoid(%x);
  %1 = sigmoid(%y);
  concatenate((%0, %1), axis=0)
}
)",
                              "tensorrt");
  EXPECT_THAT(TopLevel(separate, "tensorrt"), ElementsAre("tensorrt.sigmoid", "tensorrt.sigmoid"));
  Module batches = Partition(R"(
def @main(%x: Tensor[(2, 4), float32], %y: Tensor[(1, 4), float32]) {
  %0 = sigmoid(%x);
  add(%0, %y)
}
)",
                             "tensorrt");
  // sigmoid and add end in one region with inputs of batch 2 and 1: pruned.
  EXPECT_THAT(TopLevel(batches, "tensorrt"), IsEmpty()) << testing::Show(batches);
}

TEST(NnapiPartitionTest, ConvWithFusedActivationAndElementwise) {
  Module mod = Partition(R"(
def @main(%x: Tensor[(1, 3, 16, 16), float32], %w: Tensor[(8, 3, 3, 3), float32],
          %b: Tensor[(8), float32]) {
  %0 = nn.bias_add(nn.conv2d(%x, %w, padding=[1, 1, 1, 1]), %b);
  %1 = clip(%0, a_min=0f, a_max=6f);
  %2 = nn.avg_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);
  nn.softmax(reshape(%2, newshape=[1, -1]))
}
)",
                         "nnapi", {{"w", {8, 3, 3, 3}}, {"b", {8}}});
  EXPECT_THAT(TopLevel(mod, "nnapi"),
              ElementsAre("nn.avg_pool2d+nn.softmax+nnapi.conv2d_relu6+reshape"));
}

TEST(PartitionTest, UnknownBackendIsAnError) {
  Module mod = testing::ParseTyped("def @main(%x: Tensor[(1), float32]) { nn.relu(%x) }");
  absl::StatusOr<Module> out = PartitionForBackend(mod, "bnn");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("did you mean 'bnns'?"));
}

}  // namespace
}  // namespace carve
