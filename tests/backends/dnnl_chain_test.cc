// multiply(x, clip(add(x, k), lo, hi)) in the dnnl runtime: one kernel (the
// multiply's) computes the chain, the add and the clip are skipped, and the
// result is the reference's bit for bit, NaN and infinities included. With
// another reader of the clip, the three run as before.
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/serializer.h"
#include "backends/runtime/json_runtime.h"
#include "backends_test_util.h"
#include "dnnl_graph_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"

namespace carve {
namespace {

using Graph = testing::DnnlGraph;

Graph Build(const Module& mod) { return testing::BuildDnnlGraph(mod); }

std::vector<NDArray> Reference(const Module& mod, const std::vector<NDArray>& inputs) {
  return testing::ReferenceOutputs(mod, inputs);
}

// The names of the kernel nodes that ran.
std::multiset<std::string> Ran(JsonRuntime& rt, const std::vector<NDArray>& inputs,
                               std::vector<NDArray>* out) {
  std::multiset<std::string> names;
  NodeObserver observer = [&](uint32_t, const JsonNode& node, std::span<const NDArray>,
                              std::span<const NDArray>) { names.insert(node.name); };
  *out = rt.Run(inputs, &observer).value();
  return names;
}

NDArray WithSpecials(NDArray t) {
  float* p = t.data<float>();
  p[0] = std::numeric_limits<float>::quiet_NaN();
  p[1] = std::numeric_limits<float>::infinity();
  p[2] = -std::numeric_limits<float>::infinity();
  p[3] = -3.f, p[4] = 3.f, p[5] = -0.f, p[6] = 1e30f, p[7] = -1e-40f;
  return t;
}

bool SameBits(const NDArray& a, const NDArray& b) {
  if (a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    float x = a.data<float>()[i], y = b.data<float>()[i];
    if (std::isnan(x) ? !std::isnan(y) : std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

TEST(DnnlChain, HardSwishIsOneKernel) {
  // Both operand orders of the add and of the multiply.
  for (const char* body : {"%0 = add(%x, 3f); %1 = clip(%0, a_min=0f, a_max=6f); multiply(%x, %1)",
                           "%0 = add(3f, %x); %1 = clip(%0, a_min=0f, a_max=6f); multiply(%1, %x)"}) {
    SCOPED_TRACE(body);
    Module mod = testing::ParseTyped(std::string(R"(
def @part(%x: Tensor[(1, 40, 3, 7), float32], Compiler="dnnl", global_symbol="part")
          -> Tensor[(1, 40, 3, 7), float32] {
  )") + body + R"(
}
def @main(%x: Tensor[(1, 40, 3, 7), float32]) { @part(%x) }
)");
    Graph g = Build(mod);
    std::vector<NDArray> inputs{WithSpecials(testing::RandomF32({1, 40, 3, 7}, 3, -8, 8))};
    std::vector<NDArray> got;
    EXPECT_EQ(Ran(*g.runtime, inputs, &got), std::multiset<std::string>{"multiply"});
    EXPECT_TRUE(SameBits(got[0], Reference(mod, inputs)[0]));
  }
}

TEST(DnnlChain, ClipWithAnotherReaderRunsApart) {
  Module mod = testing::ParseTyped(R"(
def @part(%x: Tensor[(2, 16), float32], Compiler="dnnl", global_symbol="part")
          -> (Tensor[(2, 16), float32], Tensor[(2, 16), float32]) {
  %0 = add(%x, 3f);
  %1 = clip(%0, a_min=0f, a_max=6f);
  (multiply(%x, %1), %1)
}
def @main(%x: Tensor[(2, 16), float32]) { @part(%x) }
)");
  Graph g = Build(mod);
  std::vector<NDArray> inputs{WithSpecials(testing::RandomF32({2, 16}, 4, -8, 8))};
  std::vector<NDArray> got;
  EXPECT_EQ(Ran(*g.runtime, inputs, &got),
            (std::multiset<std::string>{"add", "clip", "multiply"}));
  std::vector<NDArray> expected = Reference(mod, inputs);
  ASSERT_EQ(got.size(), 2u);
  // Element 0 is NaN: oneDNN's clip makes it 0 where the reference keeps it.
  for (int64_t i = 1; i < 32; ++i) EXPECT_EQ(got[1].data<float>()[i], expected[1].data<float>()[i]);
  EXPECT_TRUE(SameBits(got[0], expected[0]));
}

// The chain on a convolution's result reads the convolution's channel
// blocks (a native entry) and writes the plain result in one pass: the same
// bits as the chain on the plain result (the convolution's result also
// returned, so it stays plain), with channels in padded blocks and more
// pixels than one chunk of the kernel's buffer.
TEST(DnnlChain, HardSwishOnConvolutionBlocks) {
  for (int channels : {12, 40}) {
    SCOPED_TRACE(channels);
    auto text = [&](bool also_conv) {
      return fmt::format(R"(
def @part(%x: Tensor[(2, 8, 11, 13), float32], %w: Tensor[({0}, 8, 1, 1), float32],
          Compiler="dnnl", global_symbol="part") {{
  %0 = nn.conv2d(%x, %w, padding=[0, 0, 0, 0], channels={0}, kernel_size=[1, 1]);
  %1 = add(%0, 3f);
  %2 = clip(%1, a_min=0f, a_max=6f);
  %3 = multiply(%0, %2);
  {1}
}}
def @main(%x: Tensor[(2, 8, 11, 13), float32], %w: Tensor[({0}, 8, 1, 1), float32]) {{
  @part(%x, %w)
}}
)",
                         channels, also_conv ? "(%3, %0)" : "%3");
    };
    Module native = testing::ParseTyped(text(false)), plain = testing::ParseTyped(text(true));
    Graph a = Build(native), b = Build(plain);
    EXPECT_EQ(a.runtime->num_native_entries(), 1u);
    EXPECT_EQ(b.runtime->num_native_entries(), 0u);
    std::vector<NDArray> inputs{WithSpecials(testing::RandomF32({2, 8, 11, 13}, 5, -4, 4)),
                                testing::RandomF32({channels, 8, 1, 1}, 6, -1, 1)};
    for (int call = 0; call < 2; ++call) {  // the second call reuses every buffer
      std::vector<NDArray> got = a.runtime->Run(inputs).value();
      std::vector<NDArray> want = b.runtime->Run(inputs).value();
      ASSERT_EQ(got.size(), 1u);
      ASSERT_EQ(want.size(), 2u);
      EXPECT_TRUE(SameBits(got[0], want[0]));
    }
  }
}

}  // namespace
}  // namespace carve
