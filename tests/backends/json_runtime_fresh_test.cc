// JsonRuntime::fresh_outputs: the dnnl runtime's results are storage each
// call allocates (the plan may divide them in place, interpreter/plan.cc),
// unless a head is an input, a head twice, or the output of a kernel that
// does not promise fresh storage (the reference fallback's reshape is a view).
#include <string>

#include "backends/runtime/json_runtime.h"
#include "backends_test_util.h"
#include "dnnl_graph_util.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

bool Fresh(const std::string& part) {
  Module mod = testing::ParseTyped(part + R"(
def @main(%x: Tensor[(1, 16, 4, 4), float32]) { @part(%x) }
)");
  return testing::BuildDnnlGraph(mod).runtime->fresh_outputs();
}

TEST(JsonRuntimeFresh, DnnlKernelsMakeFreshOutputs) {
  EXPECT_TRUE(Fresh(R"(
def @part(%x: Tensor[(1, 16, 4, 4), float32], Compiler="dnnl", global_symbol="part")
          -> Tensor[(1, 16, 4, 4), float32] {
  %0 = add(%x, 3f); %1 = clip(%0, a_min=0f, a_max=6f); multiply(%x, %1)
})"));
  EXPECT_TRUE(Fresh(R"(
def @part(%x: Tensor[(1, 16, 4, 4), float32], Compiler="dnnl", global_symbol="part")
          -> (Tensor[(1, 16, 4, 4), float32], Tensor[(1, 16, 4, 4), float32]) {
  %0 = nn.relu(%x); (%0, sigmoid(%0))
})"));
}

TEST(JsonRuntimeFresh, InputsRepeatsAndViewsAreNot) {
  EXPECT_FALSE(Fresh(R"(
def @part(%x: Tensor[(1, 16, 4, 4), float32], Compiler="dnnl", global_symbol="part")
          -> (Tensor[(1, 16, 4, 4), float32], Tensor[(1, 16, 4, 4), float32]) {
  (nn.relu(%x), %x)
})"));
  EXPECT_FALSE(Fresh(R"(
def @part(%x: Tensor[(1, 16, 4, 4), float32], Compiler="dnnl", global_symbol="part")
          -> (Tensor[(1, 16, 4, 4), float32], Tensor[(1, 16, 4, 4), float32]) {
  %0 = nn.relu(%x); (%0, %0)
})"));
  EXPECT_FALSE(Fresh(R"(
def @part(%x: Tensor[(1, 16, 4, 4), float32], Compiler="dnnl", global_symbol="part")
          -> Tensor[(16, 16), float32] {
  reshape(nn.relu(%x), newshape=[16, 16])
})"));
}

}  // namespace
}  // namespace carve
