// JsonRuntime's per-call arguments (node_args_): constants stay in their
// kernels' argument slots across calls, an entry's last read is moved into
// its reader (not when the same node reads it again), and results of one
// call are not touched by the next.
#include <string>
#include <vector>

#include "backends/runtime/json_runtime.h"
#include "backends_test_util.h"
#include "dnnl_graph_util.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

// multiply(%x, %x): one entry read twice by one node, at its last read;
// 3f and 2f: constant nodes; %2: read by a kernel and returned.
constexpr const char* kArgs = R"(
def @part(%x: Tensor[(1, 16, 4, 4), float32], Compiler="dnnl", global_symbol="part")
          -> (Tensor[(1, 16, 4, 4), float32], Tensor[(1, 16, 4, 4), float32]) {
  %0 = multiply(%x, %x);
  %1 = add(%0, 3f);
  %2 = nn.relu(%1);
  (%2, multiply(%2, 2f))
}
def @main(%x: Tensor[(1, 16, 4, 4), float32]) { @part(%x) }
)";

TEST(JsonRuntimeArgs, ConstantsAndMovedArgumentsAcrossCalls) {
  Module mod = testing::ParseTyped(kArgs);
  testing::DnnlGraph g = testing::BuildDnnlGraph(mod);
  std::vector<std::vector<NDArray>> inputs, expected, got;
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    inputs.push_back(testing::RandomInputs(mod, seed));
    expected.push_back(testing::ReferenceOutputs(mod, inputs.back()));
  }
  int observed = 0;
  NodeObserver observer = [&](uint32_t, const JsonNode&, std::span<const NDArray> in,
                              std::span<const NDArray>) {
    for (const NDArray& t : in) EXPECT_TRUE(t.defined());
    ++observed;
  };
  for (int call = 0; call < 6; ++call) {
    const size_t k = size_t(call % 3);
    absl::StatusOr<std::vector<NDArray>> out =
        g.runtime->Run(inputs[k], call % 2 == 1 ? &observer : nullptr);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_LE(testing::CloseRatio((*out)[i], expected[k][i], 1e-6, 1e-6), 1.0)
          << "call " << call << " output " << i;
    }
    got.push_back(*out);
  }
  EXPECT_EQ(observed, 3 * 4);  // four kernel nodes, three observed calls
  // Earlier results are still theirs (the runtime kept no buffer it reused).
  for (size_t call = 0; call < got.size(); ++call) {
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_LE(testing::CloseRatio(got[call][i], expected[call % 3][i], 1e-6, 1e-6), 1.0);
    }
  }
  // The caller's inputs are left as they were.
  EXPECT_TRUE(inputs[0][0].BitwiseEqual(testing::RandomInputs(mod, 1)[0]));
}

}  // namespace
}  // namespace carve
