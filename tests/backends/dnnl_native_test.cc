// oneDNN activations passed between the convolutions of one dnnl graph in
// the layout the primitives chose (NativeTensor), converted only where a
// reader needs Relay's layout: the results equal the plain path's, and an
// observer (`--compare`) still sees every node's tensors in Relay's layout.
#include <map>
#include <string>

#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/serializer.h"
#include "backends/runtime/json_runtime.h"
#include "fmt/format.h"
#include "backends_test_util.h"
#include "dnnl_graph_util.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"

namespace carve {
namespace {

// conv -> relu(conv) and conv (two readers of %1), summed: the first
// conv's output feeds two convolutions, the second's goes to a relu.
constexpr const char* kChain = R"(
def @part(%x: Tensor[(1, 16, 14, 14), float32], %w0: Tensor[(32, 16, 3, 3), float32],
          %w1: Tensor[(32, 32, 1, 1), float32], %w2: Tensor[(32, 32, 3, 3), float32],
          Compiler="dnnl", global_symbol="part") -> Tensor[(1, 32, 14, 14), float32] {
  %0 = nn.conv2d(%x, %w0, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %w1, padding=[0, 0, 0, 0], channels=32, kernel_size=[1, 1]);
  %3 = nn.conv2d(%1, %w2, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3]);
  %4 = nn.conv2d(%3, %w1, padding=[0, 0, 0, 0], channels=32, kernel_size=[1, 1]);
  add(%2, %4)
}
def @main(%x: Tensor[(1, 16, 14, 14), float32], %w0: Tensor[(32, 16, 3, 3), float32],
          %w1: Tensor[(32, 32, 1, 1), float32], %w2: Tensor[(32, 32, 3, 3), float32]) {
  @part(%x, %w0, %w1, %w2)
}
)";

using Graph = testing::DnnlGraph;

Graph Build(const Module& mod) { return testing::BuildDnnlGraph(mod); }

std::vector<NDArray> Reference(const Module& mod, const std::vector<NDArray>& inputs) {
  return testing::ReferenceOutputs(mod, inputs);
}

TEST(DnnlNative, ConvToConvEntriesStayNative) {
  Module mod = testing::ParseTyped(kChain);
  Graph g = Build(mod);
  // Relu runs apart (a oneDNN eltwise taking Relay's layout), so the
  // convolutions %3 -> %4 are the one conv-to-conv edge.
  EXPECT_EQ(g.runtime->num_native_entries(), 1u);
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 5);
  std::vector<NDArray> expected = Reference(mod, inputs);
  // Sums of up to 288 products reaching 1e2: an absolute tolerance of 1e-3
  // (the plain path's error is 1.5e-4 here).
  for (int call = 0; call < 2; ++call) {  // the second call reuses every buffer
    std::vector<NDArray> got = g.runtime->Run(inputs).value();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_LE(testing::CloseRatio(got[0], expected[0], 1e-4, 1e-3), 1.0);
  }
}

TEST(DnnlNative, ObserverSeesRelayLayouts) {
  Module mod = testing::ParseTyped(kChain);
  Graph g = Build(mod);
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 6);
  std::map<uint32_t, NDArray> outputs;
  NodeObserver observer = [&](uint32_t nid, const JsonNode& node, std::span<const NDArray> in,
                              std::span<const NDArray> out) {
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape(), node.shapes[0]);
    for (const NDArray& t : in) EXPECT_TRUE(t.defined());
    outputs[nid] = out[0];
  };
  std::vector<NDArray> got = g.runtime->Run(inputs, &observer).value();
  std::vector<NDArray> plain = g.runtime->Run(inputs).value();
  EXPECT_EQ(outputs.size(), 6u);  // every kernel node observed
  EXPECT_LE(testing::CloseRatio(got[0], plain[0], 0, 0), 1.0);  // same path, same bits
  // The native entry's conversion equals what the plain path computes: the
  // output of conv %4 read back is the reference's.
  Module conv_only = testing::ParseTyped(R"(
def @main(%x: Tensor[(1, 16, 14, 14), float32], %w0: Tensor[(32, 16, 3, 3), float32],
          %w1: Tensor[(32, 32, 1, 1), float32], %w2: Tensor[(32, 32, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w0, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  nn.conv2d(%1, %w2, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3])
}
)");
  std::vector<NDArray> conv3 = Reference(conv_only, inputs);
  bool found = false;
  for (const auto& [nid, t] : outputs) {
    if (t.shape() == conv3[0].shape() && testing::CloseRatio(t, conv3[0], 1e-4, 1e-3) <= 1.0) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "no observed output equals conv %3's";
}

// An NCHW convolution's result read as NHWC data by the next one: the same
// bytes with other logical dims, so the native tensor goes through Relay's
// layout (a direct reorder between the two would be rejected by oneDNN).
TEST(DnnlNative, ResultReadWithAnotherLayout) {
  Module mod = testing::ParseTyped(R"(
def @part(%x: Tensor[(1, 7, 7, 6), float32], %w0: Tensor[(2, 7, 3, 3), float32],
          %w1: Tensor[(1, 3, 4, 1), float32], Compiler="dnnl", global_symbol="part")
          -> Tensor[(1, 2, 1, 1), float32] {
  %0 = nn.conv2d(%x, %w0, strides=[2, 1], padding=[0, 0, 0, 0], channels=2, kernel_size=[3, 3]);
  nn.conv2d(%0, %w1, strides=[2, 2], padding=[1, 0, 0, 0], dilation=[2, 1], channels=1,
            kernel_size=[1, 3], data_layout="NHWC", kernel_layout="HWIO")
}
def @main(%x: Tensor[(1, 7, 7, 6), float32], %w0: Tensor[(2, 7, 3, 3), float32],
          %w1: Tensor[(1, 3, 4, 1), float32]) {
  @part(%x, %w0, %w1)
}
)");
  Graph g = Build(mod);
  EXPECT_EQ(g.runtime->num_native_entries(), 1u);
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 7);
  std::vector<NDArray> expected = Reference(mod, inputs);
  absl::StatusOr<std::vector<NDArray>> got = g.runtime->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_LE(testing::CloseRatio((*got)[0], expected[0], 1e-4, 1e-4), 1.0);
}

// Convolutions whose channels are all in whole blocks of 16 run in
// oneDNN's blocked layout (3x3 stride 1 with Winograd); one of 24 channels
// puts the whole graph in the layout oneDNN picks. Both agree with the
// reference kernels, and the conv-to-conv entry stays native either way.
TEST(DnnlNative, BlockedAndPickedLayoutsAgree) {
  for (int mid : {32, 24}) {
    Module mod = testing::ParseTyped(fmt::format(R"(
def @part(%x: Tensor[(1, 16, 12, 12), float32], %w0: Tensor[({0}, 16, 3, 3), float32],
          %w1: Tensor[(32, {0}, 3, 3), float32], Compiler="dnnl", global_symbol="part")
          -> Tensor[(1, 32, 12, 12), float32] {{
  %0 = nn.conv2d(%x, %w0, padding=[1, 1, 1, 1], channels={0}, kernel_size=[3, 3]);
  nn.conv2d(%0, %w1, padding=[1, 1, 1, 1], channels=32, kernel_size=[3, 3])
}}
def @main(%x: Tensor[(1, 16, 12, 12), float32], %w0: Tensor[({0}, 16, 3, 3), float32],
          %w1: Tensor[(32, {0}, 3, 3), float32]) {{
  @part(%x, %w0, %w1)
}}
)", mid));
    Graph g = Build(mod);
    EXPECT_EQ(g.runtime->num_native_entries(), 1u) << mid;
    std::vector<NDArray> inputs = testing::RandomInputs(mod, 13);
    std::vector<NDArray> expected = Reference(mod, inputs);
    // Sums of 144-288 products: the tolerance of ConvToConvEntriesStayNative.
    for (int call = 0; call < 2; ++call) {
      std::vector<NDArray> got = g.runtime->Run(inputs).value();
      EXPECT_LE(testing::CloseRatio(got[0], expected[0], 1e-4, 1e-3), 1.0) << mid;
    }
  }
}

// A global average of a convolution's result takes it in the convolution's
// channel blocks (oneDNN's JIT pool on them; squeezenet1_1's last region)
// and gives the bits of the plain path (the result converted to NCHW, then
// carve's sum): whole blocks of 8 and a padded last block.
TEST(DnnlNative, GlobalAverageOfAConvolutionsBlocks) {
  for (int channels : {40, 20}) {
    const std::string sig = fmt::format(
        "(%x: Tensor[(1, 16, 13, 13), float32], %w: Tensor[({0}, 16, 1, 1), float32], "
        "Compiler=\"dnnl\", global_symbol=\"part\")",
        channels);
    const std::string conv =
        fmt::format("nn.conv2d(%x, %w, padding=[0, 0, 0, 0], channels={0}, kernel_size=[1, 1])",
                    channels);
    const std::string main = fmt::format(
        "def @main(%x: Tensor[(1, 16, 13, 13), float32], %w: Tensor[({0}, 16, 1, 1), float32]) "
        "{{ @part(%x, %w) }}",
        channels);
    Module both = testing::ParseTyped(
        fmt::format("def @part{} {{ nn.global_avg_pool2d({}) }}\n{}", sig, conv, main));
    Module conv_only = testing::ParseTyped(fmt::format("def @part{} {{ {} }}\n{}", sig, conv, main));
    Module pool_only = testing::ParseTyped(fmt::format(
        "def @part(%y: Tensor[(1, {0}, 13, 13), float32], Compiler=\"dnnl\", "
        "global_symbol=\"part\") {{ nn.global_avg_pool2d(%y) }}\n"
        "def @main(%y: Tensor[(1, {0}, 13, 13), float32]) {{ @part(%y) }}",
        channels));
    Graph g = Build(both);
    EXPECT_EQ(g.runtime->num_native_entries(), 1u) << channels;
    std::vector<NDArray> inputs = testing::RandomInputs(both, 17);
    std::vector<NDArray> conv_out = Build(conv_only).runtime->Run(inputs).value();
    std::vector<NDArray> expected = Build(pool_only).runtime->Run(conv_out).value();
    for (int call = 0; call < 2; ++call) {
      std::vector<NDArray> got = g.runtime->Run(inputs).value();
      ASSERT_EQ(got.size(), 1u);
      EXPECT_TRUE(got[0].BitwiseEqual(expected[0])) << channels << " call " << call;
    }
  }
}

}  // namespace
}  // namespace carve
