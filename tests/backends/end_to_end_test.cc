// Partitioned modules run on the backend runtimes (the JSON codegen's graphs
// on oneDNN or carve's fused kernels) agree with the module on the
// reference kernels, for each backend.
#include <map>

#include "backends/partition.h"
#include "backends_test_util.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

struct Model {
  std::string backend;
  std::string text;
  std::vector<std::string> consts;  // @main parameters bound as weights
  double rtol = 1e-4, atol = 1e-5;
};

void ExpectPartitionedMatches(const Model& m) {
  Module mod = testing::ParseTyped(m.text);
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 5);
  const Function* main = mod.Lookup("main");
  BackendPartitionOptions options;
  std::vector<NDArray> remaining;
  for (size_t i = 0; i < main->params().size(); ++i) {
    std::string name(main->params()[i]->name());
    if (std::find(m.consts.begin(), m.consts.end(), name) != m.consts.end()) {
      options.params[name] = inputs[i];
    } else {
      remaining.push_back(inputs[i]);
    }
  }
  absl::StatusOr<Module> part = PartitionForBackend(mod, m.backend, options);
  ASSERT_TRUE(part.ok()) << RenderStatus(part.status());
  size_t offloaded = 0;
  for (const auto& [gv, fn] : part->Functions()) offloaded += fn->HasAttr("Compiler");
  EXPECT_GT(offloaded, 0u) << testing::Show(*part);
  std::vector<NDArray> expected = testing::RunMain(mod, inputs, nullptr);
  std::vector<NDArray> got = testing::RunMain(*part, remaining, &ExternalRegistry::Global());
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(testing::CloseRatio(got[i], expected[i], m.rtol, m.atol), 1.0)
        << m.backend << "\n" << testing::Show(*part);
  }
}

constexpr std::string_view kConvNet = R"(
def @main(%x: Tensor[(1, 8, 12, 12), float32], %w1: Tensor[(16, 8, 3, 3), float32],
          %b1: Tensor[(16), float32], %w2: Tensor[(16, 16, 1, 1), float32],
          %fw: Tensor[(10, 144), float32], %fb: Tensor[(10), float32]) {
  %0 = nn.relu(nn.bias_add(nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=16,
                                     kernel_size=[3, 3]), %b1));
  %1 = sigmoid(nn.conv2d(%0, %w2, channels=16, kernel_size=[1, 1]));
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);
  %3 = nn.avg_pool2d(%2, pool_size=[2, 2], strides=[2, 2]);
  %4 = reshape(%3, newshape=[1, 144]);
  nn.softmax(add(nn.dense(%4, %fw, units=10), %fb))
}
)";

TEST(EndToEndTest, ConvNetOnEveryFloatBackend) {
  std::vector<std::string> weights = {"w1", "b1", "w2", "fw", "fb"};
  for (std::string backend : {"bnns", "dnnl", "tensorrt", "nnapi"}) {
    ExpectPartitionedMatches({backend, std::string(kConvNet), weights});
  }
}

TEST(EndToEndTest, AclNhwcNetwork) {
  ExpectPartitionedMatches({"arm_compute_lib", R"(
def @main(%x: Tensor[(1, 10, 10, 4), float32], %w: Tensor[(3, 3, 4, 8), float32],
          %b: Tensor[(8), float32], %fw: Tensor[(6, 200), float32]) {
  %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [1, 1], [1, 1], [0, 0]]);
  %1 = nn.conv2d(%0, %w, channels=8, kernel_size=[3, 3], data_layout="NHWC",
                 kernel_layout="HWIO");
  %2 = nn.relu(nn.bias_add(%1, %b, axis=3));
  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2], layout="NHWC");
  %4 = reshape(%3, newshape=[1, 200]);
  nn.dense(%4, %fw, units=6)
}
)",
                            {"w", "b", "fw"}});
}

TEST(EndToEndTest, DnnlDenseGeluAndSum) {
  ExpectPartitionedMatches({"dnnl", R"(
def @main(%x: Tensor[(4, 64), float32], %w: Tensor[(32, 64), float32], %b: Tensor[(32), float32],
          %y: Tensor[(4, 32), float32]) {
  %0 = add(nn.dense(%x, %w, units=32), %b);
  %1 = multiply(multiply(%0, add(erf(divide(%0, 1.41421f)), 1f)), 0.5f);
  add(%1, %y)
}
)",
                            {"w", "b"}});
}

}  // namespace
}  // namespace carve
