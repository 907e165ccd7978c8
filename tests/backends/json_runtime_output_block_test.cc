// The JSON runtime lays a graph's heads out as adjacent slices of one
// allocation when every head's kernel writes into a given destination (the
// dnnl kernels), so the host's concatenate of a squeezenet fire module's
// two expand convolutions is a view instead of a 1.5 MB copy. The values
// are the ones each head had in storage of its own (bit for bit), and a
// graph whose heads cannot all be placed keeps each head's own storage.
#include <cstring>
#include <string>
#include <vector>

#include "backends/partition.h"
#include "backends/runtime/json_runtime.h"
#include "backends_test_util.h"
#include "dnnl_graph_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

// A fire module (squeeze 1x1, then expand 1x1 and 3x3, each with a relu)
// whose region returns `heads`, a tuple or one of the two expands.
std::string FirePart(const std::string& ret, const std::string& heads) {
  return fmt::format(R"(
def @part(%x: Tensor[(1, 16, 9, 9), float32], %ws: Tensor[(8, 16, 1, 1), float32],
          %we1: Tensor[(16, 8, 1, 1), float32], %we3: Tensor[(16, 8, 3, 3), float32],
          Compiler="dnnl", global_symbol="part") -> {} {{
  %0 = nn.relu(nn.conv2d(%x, %ws, padding=[0, 0, 0, 0], channels=8, kernel_size=[1, 1]));
  %1 = nn.relu(nn.conv2d(%0, %we1, padding=[0, 0, 0, 0], channels=16, kernel_size=[1, 1]));
  %2 = nn.relu(nn.conv2d(%0, %we3, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]));
  {}
}}
def @main(%x: Tensor[(1, 16, 9, 9), float32], %ws: Tensor[(8, 16, 1, 1), float32],
          %we1: Tensor[(16, 8, 1, 1), float32], %we3: Tensor[(16, 8, 3, 3), float32]) {{
  @part(%x, %ws, %we1, %we3)
}}
)",
                     ret, heads);
}

constexpr const char* kOne = "Tensor[(1, 16, 9, 9), float32]";
const std::string kTwo = fmt::format("({0}, {0})", kOne);

std::vector<NDArray> RunPart(const std::string& text, const std::vector<NDArray>& inputs) {
  Module mod = testing::ParseTyped(text);
  testing::DnnlGraph g = testing::BuildDnnlGraph(mod);
  return g.runtime->Run(inputs).value();
}

TEST(JsonRuntimeOutputBlock, HeadsAreAdjacentAndUnchanged) {
  Module mod = testing::ParseTyped(FirePart(kTwo, "(%1, %2)"));
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 3);
  testing::DnnlGraph g = testing::BuildDnnlGraph(mod);
  EXPECT_TRUE(g.runtime->fresh_outputs());  // distinct bytes still
  // Each expand alone: one head, in storage of its own.
  NDArray e1 = RunPart(FirePart(kOne, "%1"), inputs)[0];
  NDArray e3 = RunPart(FirePart(kOne, "%2"), inputs)[0];
  EXPECT_FALSE(e1.IsFollowedBy(e3));
  for (int call = 0; call < 2; ++call) {  // the second call reuses the kernels
    std::vector<NDArray> got = g.runtime->Run(inputs).value();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_TRUE(got[0].IsFollowedBy(got[1])) << "call " << call;
    EXPECT_TRUE(got[0].BitwiseEqual(e1)) << "call " << call;
    EXPECT_TRUE(got[1].BitwiseEqual(e3)) << "call " << call;
  }
}

TEST(JsonRuntimeOutputBlock, HeadsInOrderOrNotAtAll) {
  Module mod = testing::ParseTyped(FirePart(kTwo, "(%2, %1)"));
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 4);
  std::vector<NDArray> swapped = testing::BuildDnnlGraph(mod).runtime->Run(inputs).value();
  EXPECT_TRUE(swapped[0].IsFollowedBy(swapped[1]));  // head order, not node order
  // A head the reference fallback makes (a reshape's view) is not placed,
  // nor is any other head of that graph.
  const std::string with_view = FirePart(
      fmt::format("({}, Tensor[(16, 81), float32])", kOne), "(%1, reshape(%2, newshape=[16, 81]))");
  std::vector<NDArray> got = RunPart(with_view, inputs);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[0].IsFollowedBy(got[1]));
  NDArray e3 = RunPart(FirePart(kOne, "%2"), inputs)[0];
  EXPECT_EQ(0, std::memcmp(got[1].raw_data(), e3.raw_data(), e3.nbytes()));
}

// A partitioned fire module: the region's two outputs and the host's
// concatenate of them (TVM's dnnl partition leaves it on the host) give
// the reference kernels' result.
TEST(JsonRuntimeOutputBlock, PartitionedFireModuleMatchesTheReference) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 16, 9, 9), float32], %ws: Tensor[(8, 16, 1, 1), float32],
          %we1: Tensor[(16, 8, 1, 1), float32], %we3: Tensor[(16, 8, 3, 3), float32]) {
  %0 = nn.relu(nn.conv2d(%x, %ws, padding=[0, 0, 0, 0], channels=8, kernel_size=[1, 1]));
  %1 = nn.relu(nn.conv2d(%0, %we1, padding=[0, 0, 0, 0], channels=16, kernel_size=[1, 1]));
  %2 = nn.relu(nn.conv2d(%0, %we3, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]));
  %3 = concatenate((%1, %2), axis=1);
  nn.max_pool2d(%3, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)
}
)");
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 6);
  BackendPartitionOptions options;
  options.params["ws"] = inputs[1], options.params["we1"] = inputs[2];
  options.params["we3"] = inputs[3];
  absl::StatusOr<Module> part = PartitionForBackend(mod, "dnnl", options);
  ASSERT_TRUE(part.ok()) << RenderStatus(part.status());
  const std::string text = testing::Show(*part);
  EXPECT_NE(text.find("concatenate"), std::string::npos) << text;
  std::vector<NDArray> expected = testing::RunMain(mod, inputs, nullptr);
  std::vector<NDArray> got =
      testing::RunMain(*part, std::vector<NDArray>{inputs[0]}, &ExternalRegistry::Global());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_LE(testing::CloseRatio(got[0], expected[0], 1e-4, 1e-4), 1.0) << text;
}

}  // namespace
}  // namespace carve
