// End-to-end runs of TVM-printed corpus programs (parser + InferType +
// evaluator): the seed demo's recursive while loop, global recursion,
// scalars / let / if / closures with metadata constants, and the demo after
// PartitionGraph, whose Compiler and Composite functions run on the
// reference kernels, on registered handlers, and under an observer.
#define EIGEN_USE_THREADS
#include <cmath>
#include <random>

#include "gmock/gmock.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "passes/infer/infer_type.h"
#include "tests/interpreter_core/test_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<Module> LoadTyped(const std::string& name) {
  auto mod = ParseModuleFile(std::string(CARVE_SHARED_DIR) + "/corpus/" + name);
  if (!mod.ok()) return mod.status();
  CARVE_RETURN_IF_ERROR(InferType(*mod));
  return mod;
}

NDArray Random(std::vector<int64_t> shape, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) a.data<float>()[i] = dist(rng);
  return a;
}

struct DemoInputs {
  NDArray data = Random({1, 32, 56, 56}, 1, 1.0f);
  NDArray weight = Random({32, 32, 3, 3}, 2, 0.05f);
  NDArray bias = Random({32}, 3, 0.1f);
  std::vector<Value> values() const { return {data, weight, bias}; }
};

// The demo computes relu(bias_add(conv2d(d))) three times (iterations 0
// and 1 in the loop, then the else branch) and reshapes to NHWC-ordered
// (1, 56, 56, 32): the same kernels, called directly.
NDArray DemoReference(const DemoInputs& in) {
  NDArray d = in.data;
  for (int i = 0; i < 3; ++i) {
    auto conv = RunOp1("nn.conv2d", {d, in.weight}, {{"padding", Ints({1, 1, 1, 1})}});
    if (!conv.ok()) {
      ADD_FAILURE() << conv.status();
      return d;
    }
    auto biased = RunOp1("nn.bias_add", {*conv, in.bias});
    auto relu = biased.ok() ? RunOp1("nn.relu", {*biased}) : biased;
    if (!relu.ok()) {
      ADD_FAILURE() << relu.status();
      return d;
    }
    d = *relu;
  }
  return d.Reshape(std::vector<int64_t>{1, 56, 56, 32});
}

TEST(CorpusRun, SeedDemoWhileLoop) {
  auto mod = LoadTyped("demo_0_input.relay");
  CARVE_ASSERT_OK(mod);
  DemoInputs in;
  Interpreter interp(*mod);
  auto out = interp.Run("main", in.values());
  CARVE_ASSERT_OK(out);
  EXPECT_TRUE(out->tensor().BitwiseEqual(DemoReference(in)));
  // main tail-calls the loop, which tail-calls itself twice: one frame throughout.
  EXPECT_EQ(interp.stats().tail_calls, 3);
  EXPECT_EQ(interp.stats().max_frame_depth, 1);
}

// The demo on inputs chosen so that every value is exact in float32 and can
// be worked out by hand: data = 1, weight = 1/8, bias = 1/2. Every channel
// of a layer then holds the same plane, and a conv output pixel is
// 32 channels * 1/8 * (sum of the 3x3 window of the previous plane, zero
// outside) = 4 * window sum. Interior: 4*9*1 + 0.5 = 36.5, then
// 36*36.5 + 0.5 = 1314.5, then 36*1314.5 + 0.5 = 47322.5. Layer 1 has
// corner 4*4 + 0.5 = 16.5 and edge 4*6 + 0.5 = 24.5, so layer 2's corner is
// 4*(16.5 + 2*24.5 + 36.5) + 0.5 = 408.5 and the final corner 11024.5.
// The result is reshaped, not transposed, so the flat order stays NCHW.
TEST(CorpusRun, SeedDemoWhileLoopHandComputed) {
  auto mod = LoadTyped("demo_0_input.relay");
  CARVE_ASSERT_OK(mod);
  auto filled = [](std::vector<int64_t> shape, float v) {
    NDArray a = NDArray::Empty(DataType::Float(32), shape);
    for (int64_t i = 0; i < a.num_elements(); ++i) a.data<float>()[i] = v;
    return a;
  };
  Interpreter interp(*mod);
  auto out =
      interp.Run("main", std::vector<Value>{filled({1, 32, 56, 56}, 1.0f),
                                            filled({32, 32, 3, 3}, 0.125f), filled({32}, 0.5f)});
  CARVE_ASSERT_OK(out);
  const NDArray& t = out->tensor();
  ASSERT_THAT(t.shape(), ElementsAre(1, 56, 56, 32));
  const float* v = t.data<float>();
  const int64_t plane = 56 * 56;
  for (int64_t c = 0; c < 32; ++c) {
    const float* p = v + c * plane;
    EXPECT_EQ(p[0], 11024.5f) << "corner, channel " << c;
    EXPECT_EQ(p[55], 11024.5f);
    EXPECT_EQ(p[plane - 1], 11024.5f);
    EXPECT_EQ(p[1], 18636.5f) << "edge next to the corner";
    EXPECT_EQ(p[56 + 1], 31506.5f);
    EXPECT_EQ(p[2 * 56 + 2], 43930.5f);
    EXPECT_EQ(p[27 * 56 + 27], 47322.5f) << "interior";
    EXPECT_EQ(p[3 * 56 + 52], 47322.5f);
  }
  // Three iterations: two recursive calls, then the else branch.
  EXPECT_EQ(interp.stats().tail_calls, 3);
  // Live at a conv: the bound data, weight and bias plus the new output;
  // never the three iterations' activations at once.
  const int64_t plane_bytes = 32 * 56 * 56 * 4, weight_bytes = 32 * 32 * 9 * 4;
  EXPECT_GE(interp.stats().peak_live_bytes, 2 * plane_bytes + weight_bytes);
  EXPECT_LE(interp.stats().peak_live_bytes, 3 * plane_bytes + weight_bytes + 128);
}

TEST(CorpusRun, GlobalsAndRecursion) {
  auto mod = LoadTyped("globals_recursion.relay");
  CARVE_ASSERT_OK(mod);
  Interpreter interp(*mod);
  std::vector<Value> args = {Tensor<int32_t>({}, {10}), Tensor<float>({4}, {1, 2, -3, 0.5})};
  auto out = interp.Run("main", args);
  CARVE_ASSERT_OK(out);
  ASSERT_TRUE(out->is_tuple());
  EXPECT_THAT(Values<int32_t>(out->fields()[0].tensor()), ElementsAre(55));
  EXPECT_THAT(Values<float>(out->fields()[1].tensor()), ElementsAre(1, 16, 81, 0.0625));
}

TEST(CorpusRun, ScalarsLetIfClosuresAndMetadata) {
  auto mod = LoadTyped("scalars_let_if_fn.relay");
  CARVE_ASSERT_OK(mod);
  Interpreter interp(*mod);
  std::vector<NDArray> args = {Tensor<float>({}, {3}), Tensor<int32_t>({}, {5})};
  auto flat = interp.RunFlat("main", args);
  CARVE_ASSERT_OK(flat);
  // (%sq(3), -7, (9, -7, 9000000000 wrapped to int32, 0.5, 0.001, False,
  //  int8 -3, uint8 200, -inf, ())).
  ASSERT_EQ(flat->size(), 11u);
  std::vector<double> got;
  for (const NDArray& t : *flat) got.push_back(t.GetAsDouble(0));
  EXPECT_THAT(got, ElementsAre(9, -7, 9, -7, 410065408, 0.5, static_cast<float>(0.001), 0, -3, 200,
                               -INFINITY));
  // n >= 42 takes the else branch: x + 2.5.
  std::vector<NDArray> args2 = {Tensor<float>({}, {3}), Tensor<int32_t>({}, {50})};
  auto flat2 = interp.RunFlat("main", args2);
  CARVE_ASSERT_OK(flat2);
  EXPECT_EQ((*flat2)[0].GetAsDouble(0), 5.5);
}

// `--threads`: a whole model (ResNet-18 on CIFAR shapes: conv, batch_norm,
// dense, softmax, pooling) gives bit-identical outputs on one and two
// threads.
TEST(CorpusRun, ResNet18IdenticalOnOneAndTwoThreads) {
  auto mod = LoadTyped("resnet18_cifar.relay");
  CARVE_ASSERT_OK(mod);
  const Function* main = mod->Lookup("main");
  ASSERT_NE(main, nullptr);
  std::vector<Value> args;
  for (size_t i = 0; i < main->params().size(); ++i) {
    const TensorType* t = DynCast<TensorType>(main->params()[i]->checked_type());
    ASSERT_NE(t, nullptr);
    std::vector<int64_t> shape;
    for (const Dim& d : t->shape()) shape.push_back(d.value);
    NDArray a = Random(shape, uint32_t(100 + i), 0.5f);
    // Batch-norm variances must be positive (else NaN everywhere, which
    // would compare equal bit for bit and prove nothing).
    if (main->params()[i]->name().ends_with("moving_var")) {
      for (int64_t e = 0; e < a.num_elements(); ++e) {
        a.data<float>()[e] = std::fabs(a.data<float>()[e]) + 0.5f;
      }
    }
    args.push_back(a);
  }
  auto one = Interpreter(*mod).Run("main", args);
  CARVE_ASSERT_OK(one);
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  InterpreterOptions opts;
  opts.device = &device;
  auto two = Interpreter(*mod, opts).Run("main", args);
  CARVE_ASSERT_OK(two);
  ASSERT_TRUE(one->is_tensor());
  EXPECT_TRUE(one->tensor().BitwiseEqual(two->tensor()));
  EXPECT_TRUE(std::isfinite(one->tensor().GetAsDouble(0)));
}

class PartitionedDemo : public ::testing::Test {
 protected:
  void TearDown() override {
    ExternalRegistry::Global().UnregisterComposite(kComposite);
    ExternalRegistry::Global().UnregisterRuntime("byoc_target");
  }
  static constexpr const char* kComposite = "byoc_target.conv2d_relu_with_bias";
};

TEST_F(PartitionedDemo, ReferenceKernelsMatchTheUnpartitionedModule) {
  auto mod = LoadTyped("demo_4_partition_graph.relay");
  CARVE_ASSERT_OK(mod);
  DemoInputs in;
  int compiler_calls = 0, composite_calls = 0;
  InterpreterOptions opts;
  opts.observer = [&](const ExternalCallEvent& e) {
    EXPECT_FALSE(e.offloaded);
    EXPECT_EQ(e.args.size(), e.function->params().size());
    ASSERT_NE(e.result, nullptr);
    compiler_calls += !e.compiler.empty();
    composite_calls += !e.composite.empty();
  };
  Interpreter interp(*mod, opts);
  auto out = interp.Run("main", in.values());
  CARVE_ASSERT_OK(out);
  EXPECT_TRUE(out->tensor().BitwiseEqual(DemoReference(in)));
  EXPECT_EQ(compiler_calls, 5);   // main_0 and main_2 twice, main_5 once
  EXPECT_EQ(composite_calls, 3);  // the composite inside main_2 (x2) and main_5
}

TEST_F(PartitionedDemo, RegisteredHandlersAreCalled) {
  auto mod = LoadTyped("demo_4_partition_graph.relay");
  CARVE_ASSERT_OK(mod);
  DemoInputs in;
  int composite_kernel_calls = 0, runtime_calls = 0;
  // The composite "kernel" doubles the reference result, so its use shows.
  ExternalRegistry::Global().RegisterComposite(
      kComposite, [&](const ExternalCall& call) -> absl::StatusOr<Value> {
        ++composite_kernel_calls;
        auto ref = call.interpreter->CallReference(call.function, call.args);
        if (!ref.ok()) return ref.status();
        auto doubled = RunOp1("add", {ref->tensor(), ref->tensor()});
        if (!doubled.ok()) return doubled.status();
        return Value(*doubled);
      });
  // The runtime falls back to the body (composites inside still dispatch).
  ExternalRegistry::Global().RegisterRuntime(
      "byoc_target", [&](const ExternalCall& call) -> absl::StatusOr<Value> {
        ++runtime_calls;
        return call.interpreter->CallReference(call.function, call.args);
      });
  int offloaded_events = 0;
  InterpreterOptions opts;
  opts.observer = [&](const ExternalCallEvent& e) { offloaded_events += e.offloaded; };
  Interpreter interp(*mod, opts);
  auto out = interp.Run("main", in.values());
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(runtime_calls, 5);
  EXPECT_EQ(composite_kernel_calls, 3);
  EXPECT_EQ(offloaded_events, 8);
  EXPECT_FALSE(out->tensor().BitwiseEqual(DemoReference(in)));
  // Without the registry everything runs on the reference kernels again.
  InterpreterOptions plain;
  plain.external = nullptr;
  auto ref = Interpreter(*mod, plain).Run("main", in.values());
  CARVE_ASSERT_OK(ref);
  EXPECT_TRUE(ref->tensor().BitwiseEqual(DemoReference(in)));
}

}  // namespace
}  // namespace carve::testing
