// The JSON-graph runtime: op nodes on the reference kernels, input checks,
// constants, and the interpreter dispatching Compiler functions to it.
#include "backends/runtime/json_runtime.h"

#include "backends/runtime/backend_runtime.h"
#include "backends/specs.h"
#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

// relu(x + c) with c a constant.
JsonGraph AddRelu() {
  JsonGraph g;
  g.symbol = "g";
  g.nodes.push_back({"input", "x", {}, 1, {{2, 3}}, {DataType::Float(32)}, {}});
  g.nodes.push_back({"const", "g_const_0", {}, 1, {{3}}, {DataType::Float(32)}, {}});
  g.nodes.push_back({"kernel", "add", {{0, 0, 0}, {1, 0, 0}}, 1, {{2, 3}},
                     {DataType::Float(32)}, {}});
  g.nodes.push_back({"kernel", "nn.relu", {{2, 0, 0}}, 1, {{2, 3}}, {DataType::Float(32)}, {}});
  g.heads = {{3, 0, 0}};
  return g;
}

TEST(JsonRuntimeTest, RunsOpNodesOnTheReferenceKernels) {
  NDArray c = NDArray::Empty(DataType::Float(32), {3});
  for (int i = 0; i < 3; ++i) c.data<float>()[i] = float(i) - 1;  // -1, 0, 1
  BackendKernels kernels("test");
  absl::StatusOr<std::unique_ptr<JsonRuntime>> rt =
      JsonRuntime::Create(AddRelu(), {{"g_const_0", c}}, kernels);
  ASSERT_TRUE(rt.ok()) << rt.status();
  NDArray x = NDArray::Empty(DataType::Float(32), {2, 3});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = float(i) * 0.5f - 1;
  std::vector<NDArray> inputs{x};
  int observed = 0;
  NodeObserver observer = [&](uint32_t nid, const JsonNode& node, std::span<const NDArray> in,
                              std::span<const NDArray> out) { ++observed; };
  absl::StatusOr<std::vector<NDArray>> out = (*rt)->Run(inputs, &observer);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  for (int i = 0; i < 6; ++i) {
    float expected = std::max(0.0f, x.data<float>()[i] + c.data<float>()[i % 3]);
    EXPECT_FLOAT_EQ((*out)[0].data<float>()[i], expected) << i;
  }
  EXPECT_EQ(observed, 2);
}

TEST(JsonRuntimeTest, ChecksInputsConstantsAndKernels) {
  BackendKernels kernels("test");
  NDArray c = NDArray::Empty(DataType::Float(32), {3});
  auto missing = JsonRuntime::Create(AddRelu(), {}, kernels);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no tensor for constant 'g_const_0'"));
  auto wrong = JsonRuntime::Create(AddRelu(), {{"g_const_0", NDArray::Empty(DataType::Float(32), {4})}},
                                   kernels);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("expects Tensor[(3,), float32]"));
  auto rt = JsonRuntime::Create(AddRelu(), {{"g_const_0", c}}, kernels);
  ASSERT_TRUE(rt.ok());
  std::vector<NDArray> bad{NDArray::Empty(DataType::Int(32), {2, 3})};
  auto out = (*rt)->Run(bad);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("input 'x' expects Tensor[(2, 3), float32], got Tensor[(2, 3), int32]"));
  EXPECT_FALSE((*rt)->Run({}).ok());
  // A composite without a kernel, and no reference fallback for ops.
  JsonGraph g = AddRelu();
  g.nodes[3].name = "test.mystery";
  g.nodes[3].attrs["PartitionedFromPattern"] = {"nn.relu_"};
  auto unknown = JsonRuntime::Create(g, {{"g_const_0", c}}, kernels);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("test: node 3 ('test.mystery')"));
  JsonRuntimeOptions strict;
  strict.reference_fallback = false;
  EXPECT_EQ(JsonRuntime::Create(AddRelu(), {{"g_const_0", c}}, kernels, strict).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(BackendRuntimeTest, InterpreterDispatchesCompilerFunctionsToTheRuntime) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(2, 4), float32]) -> (Tensor[(2, 4), float32], Tensor[(2, 4), float32]) {
  %0 = @tvmgen_default_bnns_main_0(%x);
  (%0.0, negative(%0.1))
}

def @tvmgen_default_bnns_main_0(%bnns_0_i0: Tensor[(2, 4), float32], Compiler="bnns",
    Primitive=1, Inline=1, global_symbol="tvmgen_default_bnns_main_0") {
  %1 = sigmoid(%bnns_0_i0);
  (%1, tanh(%1))
}
)");
  std::vector<NDArray> inputs = testing::RandomInputs(mod);
  std::vector<NDArray> expected = testing::RunMain(mod, inputs, nullptr);
  ExternalRegistry registry;
  std::vector<std::string> seen;
  BackendRuntimeOptions options;
  options.observer = [&](const OffloadedNodeEvent& e) {
    seen.push_back(e.serialized->graph.nodes[e.nid].name);
  };
  registry.RegisterRuntime("bnns", MakeBackendRuntime(BackendRuntimeRegistry::Global().Find("bnns"),
                                                      options));
  std::vector<NDArray> got = testing::RunMain(mod, inputs, &registry);
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_LE(testing::CloseRatio(got[i], expected[i], 1e-6, 1e-7), 1);
  EXPECT_EQ(seen, (std::vector<std::string>{"sigmoid", "tanh"}));
  // The runtime is built once per function: a second run reuses it.
  seen.clear();
  testing::RunMain(mod, inputs, &registry);
  EXPECT_EQ(seen.size(), 2u);
}

// PrepareBackendRuntimes builds the runtimes of the static Compiler
// functions before the first call (what `carve run` does while preparing),
// and the calls then reuse them; a function with `?` dims is built at its
// call, for its argument shapes.
TEST(BackendRuntimeTest, PrepareBuildsStaticRuntimesBeforeTheFirstCall) {
  Module mod = testing::ParseTyped(R"(
def @main(%x: Tensor[(2, 4), float32]) -> (Tensor[(2, 4), float32], Tensor[(2, 4), float32]) {
  (@prep_static(%x), @prep_dynamic(%x))
}

def @prep_static(%a: Tensor[(2, 4), float32], Compiler="prep_test", global_symbol="prep_static") {
  sigmoid(%a)
}

def @prep_dynamic(%b: Tensor[(?, 4), float32], Compiler="prep_test", global_symbol="prep_dynamic") {
  sigmoid(%b)
}
)");
  static int builds = 0;
  auto kernels = std::make_shared<BackendKernels>("prep_test");
  kernels->Add("sigmoid", [](const NodeBuildContext& ctx) {
    ++builds;
    return MakeReferenceKernel(ctx);
  });
  RegisterBackendRuntime(kernels);
  builds = 0;
  EXPECT_EQ(PrepareBackendRuntimes(mod, nullptr), 1);
  EXPECT_EQ(builds, 1);
  std::vector<NDArray> inputs = testing::RandomInputs(mod);
  std::vector<NDArray> expected = testing::RunMain(mod, inputs, nullptr);
  std::vector<NDArray> got = testing::RunMain(mod, inputs, &ExternalRegistry::Global());
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(got[i].BitwiseEqual(expected[i]));
  EXPECT_EQ(builds, 2);  // the dynamic one, at its call; the static one reused
  EXPECT_EQ(PrepareBackendRuntimes(mod, nullptr), 1);
  EXPECT_EQ(builds, 2);
  ExternalRegistry::Global().UnregisterRuntime("prep_test");
}

TEST(BackendRuntimeTest, EveryBuiltinBackendRegistersARuntime) {
  ASSERT_GE(BuiltinBackendNames().size(), 5u);
  for (std::string_view b : BuiltinBackendNames()) {
    EXPECT_NE(BackendRuntimeRegistry::Global().Find(b), nullptr) << b;
    EXPECT_TRUE(ExternalRegistry::Global().FindRuntime(b)) << b;
  }
}

}  // namespace
}  // namespace carve
