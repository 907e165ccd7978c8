// The nnapi static-cost annotator (backends/nnapi/nnapi_cost.h): the cost
// table, and partitions below the minimum cost inlined back into the host
// function by the nnapi flow.
#include "backends/nnapi/nnapi_cost.h"

#include <cstdlib>

#include "backends/partition.h"
#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/visit.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

// The typed call of `op` in @main (outside composites), or nullptr.
const Call* FindCall(const Module& mod, std::string_view op) {
  const Call* found = nullptr;
  PostOrderVisit(mod.Lookup("main")->body(), [&](const Expr* e) {
    const Call* c = DynCast<Call>(e);
    if (c != nullptr && c->op() != nullptr && c->op()->name == op) found = c;
  });
  return found;
}

std::vector<const Function*> NnapiFunctions(const Module& mod) {
  std::vector<const Function*> out;
  for (const auto& [gv, fn] : mod.Functions()) {
    if (fn->GetStringAttr("Compiler") == "nnapi") out.push_back(fn);
  }
  return out;
}

Module PartitionNnapi(std::string_view text, std::map<std::string, std::vector<int64_t>> consts,
                      bool prune = true) {
  Module mod = testing::ParseTyped(text);
  BackendPartitionOptions options;
  options.prune = prune;
  uint32_t seed = 3;
  for (const auto& [name, shape] : consts) options.params[name] = testing::RandomF32(shape, seed++);
  absl::StatusOr<Module> out = PartitionForBackend(mod, "nnapi", options);
  EXPECT_TRUE(out.ok()) << RenderStatus(out.status());
  return out.ok() ? *out : Module();
}

constexpr std::string_view kOps = R"(
def @main(%x: Tensor[(1, 3, 16, 16), float32], %w: Tensor[(8, 3, 3, 3), float32],
          %d: Tensor[(10, 128), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.avg_pool2d(%1, pool_size=[4, 4], strides=[4, 4]);
  %3 = reshape(%2, newshape=[1, 128]);
  nn.softmax(nn.dense(%3, %d, units=10))
}
)";

TEST(NnapiCostTest, OpTable) {
  Module mod = testing::ParseTyped(kOps);
  // 2 * |out| (1*8*16*16) * C_in*KH*KW (27).
  EXPECT_EQ(NnapiOpFlops(FindCall(mod, "nn.conv2d")), 2 * 2048 * 27);
  EXPECT_EQ(NnapiOpFlops(FindCall(mod, "nn.relu")), 2048);
  EXPECT_EQ(NnapiOpFlops(FindCall(mod, "nn.avg_pool2d")), 128 * 16);
  EXPECT_EQ(NnapiOpFlops(FindCall(mod, "reshape")), 0);
  EXPECT_EQ(NnapiOpFlops(FindCall(mod, "nn.dense")), 2 * 10 * 128);
  EXPECT_EQ(NnapiOpFlops(FindCall(mod, "nn.softmax")), 3 * 10);
  EXPECT_EQ(NnapiStaticCost(mod.Lookup("main")), 110592 + 2048 + 2048 + 2560 + 30);
}

TEST(NnapiCostTest, DepthwiseConvCountsOneInputChannelPerGroup) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 16, 7, 7), float32], %w: Tensor[(16, 1, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=16, channels=16, kernel_size=[3, 3])
}
)");
  EXPECT_EQ(NnapiOpFlops(FindCall(mod, "nn.conv2d")), 2 * 16 * 49 * 9);
}

TEST(NnapiCostTest, CheapPartitionStaysOnTheHost) {
  constexpr std::string_view kCheap = R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32], %y: Tensor[(1, 8, 8, 8), float32]) {
  nn.relu(add(%x, %y))
}
)";
  // Without the annotator the two ops are offloaded (1024 FLOPs) ...
  EXPECT_EQ(NnapiFunctions(PartitionNnapi(kCheap, {}, /*prune=*/false)).size(), 1u);
  // ... with it they stay in @main.
  Module mod = PartitionNnapi(kCheap, {});
  EXPECT_TRUE(NnapiFunctions(mod).empty()) << testing::Show(mod);
  EXPECT_NE(FindCall(mod, "add"), nullptr);
  EXPECT_NE(FindCall(mod, "nn.relu"), nullptr);
}

TEST(NnapiCostTest, ExpensivePartitionIsOffloaded) {
  Module mod = PartitionNnapi(kOps, {{"w", {8, 3, 3, 3}}, {"d", {10, 128}}});
  std::vector<const Function*> fns = NnapiFunctions(mod);
  ASSERT_EQ(fns.size(), 1u) << testing::Show(mod);
  EXPECT_EQ(NnapiStaticCost(fns[0]), 110592 + 2048 + 2048 + 2560 + 30);
  EXPECT_EQ(FindCall(mod, "nn.conv2d"), nullptr);
}

TEST(NnapiCostTest, OnlyTheCheapPartitionGoesBack) {
  // global_avg_pool2d is not an NNAPI op here: it splits the graph into an
  // expensive conv partition and a cheap add + relu partition.
  Module mod = PartitionNnapi(R"(
def @main(%x: Tensor[(1, 8, 16, 16), float32], %w: Tensor[(16, 8, 3, 3), float32],
          %y: Tensor[(1, 16, 1, 1), float32]) {
  %0 = nn.relu(nn.conv2d(%x, %w, padding=[1, 1, 1, 1]));
  %1 = nn.global_avg_pool2d(%0);
  nn.relu(add(%1, %y))
}
)",
                              {{"w", {16, 8, 3, 3}}});
  std::vector<const Function*> fns = NnapiFunctions(mod);
  ASSERT_EQ(fns.size(), 1u) << testing::Show(mod);
  EXPECT_GE(NnapiStaticCost(fns[0]), kNnapiDefaultMinFlops);
  EXPECT_NE(FindCall(mod, "add"), nullptr) << testing::Show(mod);
  EXPECT_EQ(FindCall(mod, "nn.conv2d"), nullptr);
}

TEST(NnapiCostTest, ThresholdIsConfigurable) {
  Module mod = PartitionNnapi(kOps, {{"w", {8, 3, 3, 3}}, {"d", {10, 128}}}, /*prune=*/false);
  Module keep = mod;
  ASSERT_EQ(NnapiFunctions(mod).size(), 1u);
  absl::StatusOr<bool> pruned = PruneNnapiSubgraphs(keep, 0);
  ASSERT_TRUE(pruned.ok());
  EXPECT_FALSE(*pruned);
  pruned = PruneNnapiSubgraphs(mod, 1000000);
  ASSERT_TRUE(pruned.ok());
  EXPECT_TRUE(*pruned);
  EXPECT_TRUE(NnapiFunctions(mod).empty());
  EXPECT_NE(FindCall(mod, "nn.conv2d"), nullptr);

  // The environment variable reaches the flow.
  ASSERT_EQ(setenv(kNnapiMinFlopsEnv, "1000000", 1), 0);
  Module high = PartitionNnapi(kOps, {{"w", {8, 3, 3, 3}}, {"d", {10, 128}}});
  EXPECT_TRUE(NnapiFunctions(high).empty());
  ASSERT_EQ(setenv(kNnapiMinFlopsEnv, "0", 1), 0);
  Module low = PartitionNnapi("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }", {});
  EXPECT_EQ(NnapiFunctions(low).size(), 1u);
  ASSERT_EQ(setenv(kNnapiMinFlopsEnv, "lots", 1), 0);
  absl::StatusOr<int64_t> bad = NnapiMinOffloadFlops();
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("CARVE_NNAPI_MIN_FLOPS='lots'"));
  unsetenv(kNnapiMinFlopsEnv);
  absl::StatusOr<int64_t> fallback = NnapiMinOffloadFlops();
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ(*fallback, kNnapiDefaultMinFlops);
}

}  // namespace
}  // namespace carve
