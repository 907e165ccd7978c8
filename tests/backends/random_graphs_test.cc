// Seeded random conv nets per backend: partitioned for the backend, run on
// its runtime (the JSON codegen's graphs on oneDNN or carve's fused
// kernels), they agree with the plain module on the reference kernels.
// The generator mixes the chains each backend fuses (conv2d [+ bias]
// [+ activation], dense [+ bias]) with pools and elementwise ops, in the
// layout the backend wants (NHWC for arm_compute_lib, NCHW otherwise).
#include <random>

#include "backends/partition.h"
#include "backends/specs.h"
#include "backends_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

struct Graph {
  std::string text;
  std::vector<std::string> weights;  // @main parameters bound as constants
};

class Generator {
 public:
  Generator(uint32_t seed, bool nhwc) : gen_(seed), nhwc_(nhwc) {}

  Graph Make() {
    int64_t c = Pick({3, 4, 8}), h = Pick({8, 12, 16});
    std::string x = Shape(c, h);
    int blocks = Pick({2, 3, 4});
    for (int i = 0; i < blocks; ++i) {
      int kind = Pick({0, 0, 1, 2});
      if (kind == 0) {
        c = Conv(c, h);
      } else if (kind == 1 && h >= 4) {
        Line(fmt::format("{}(%{}, pool_size=[2, 2], strides=[2, 2]{})",
                         Pick({0, 1}) ? "nn.max_pool2d" : "nn.avg_pool2d", last_, Layout("layout")));
        h /= 2;
      } else {
        Line(fmt::format("add(%{0}, {1}(%{0}))", last_, Pick({0, 1}) ? "sigmoid" : "nn.relu"));
      }
    }
    Line(fmt::format("nn.global_avg_pool2d(%{}{})", last_, Layout("layout")));
    Line(fmt::format("reshape(%{}, newshape=[1, {}])", last_, c));
    int64_t units = Pick({4, 10});
    std::string fw = Param(fmt::format("Tensor[({}, {}), float32]", units, c));
    Line(fmt::format("nn.dense(%{}, %{}, units={})", last_, fw, units));
    if (Pick({0, 1})) {
      std::string fb = Param(fmt::format("Tensor[({}), float32]", units));
      Line(fmt::format("nn.bias_add(%{}, %{})", last_, fb));
    }
    std::string text = fmt::format("def @main(%x: {}{}) {{\n{}  %{}\n}}\n", x, params_, body_, last_);
    return {text, weights_};
  }

 private:
  int64_t Pick(std::initializer_list<int64_t> values) {
    std::uniform_int_distribution<size_t> d(0, values.size() - 1);
    return values.begin()[d(gen_)];
  }
  std::string Shape(int64_t c, int64_t h) const {
    return nhwc_ ? fmt::format("Tensor[(1, {1}, {1}, {0}), float32]", c, h)
                 : fmt::format("Tensor[(1, {0}, {1}, {1}), float32]", c, h);
  }
  std::string Layout(std::string_view key) const {
    return nhwc_ ? fmt::format(", {}=\"NHWC\"", key) : "";
  }
  std::string Param(const std::string& type) {
    std::string name = fmt::format("p{}", weights_.size());
    params_ += fmt::format(", %{}: {}", name, type);
    weights_.push_back(name);
    return name;
  }
  void Line(const std::string& expr) {
    std::string name = fmt::format("{}", next_++);  // graph bindings are numbered
    body_ += fmt::format("  %{} = {};\n", name, expr);
    last_ = name;
  }
  // conv2d 3x3 pad 1 (or 1x1) [+ bias_add] [+ activation]; returns the new C.
  int64_t Conv(int64_t c, int64_t h) {
    int64_t o = Pick({4, 8, 16}), k = Pick({1, 3});
    std::string w = Param(nhwc_ ? fmt::format("Tensor[({0}, {0}, {1}, {2}), float32]", k, c, o)
                                : fmt::format("Tensor[({2}, {1}, {0}, {0}), float32]", k, c, o));
    std::string pad = k == 3 ? "padding=[1, 1, 1, 1], " : "";
    std::string layouts = nhwc_ ? ", data_layout=\"NHWC\", kernel_layout=\"HWIO\"" : "";
    Line(fmt::format("nn.conv2d(%{}, %{}, {}channels={}, kernel_size=[{}, {}]{})", last_, w, pad, o,
                     k, k, layouts));
    if (Pick({0, 1})) {
      std::string b = Param(fmt::format("Tensor[({}), float32]", o));
      Line(fmt::format("nn.bias_add(%{}, %{}, axis={})", last_, b, nhwc_ ? 3 : 1));
    }
    if (int act = Pick({0, 1, 2, 3}); act > 0) {
      Line(fmt::format("{}(%{})", act == 1 ? "nn.relu" : act == 2 ? "sigmoid" : "tanh", last_));
    }
    return o;
  }

  std::mt19937 gen_;
  bool nhwc_;
  std::string params_, body_, last_ = "x";
  std::vector<std::string> weights_;
  int next_ = 0;
};

void ExpectBackendMatches(const std::string& backend, const Graph& g) {
  Module mod = testing::ParseTyped(g.text);
  ASSERT_NE(mod.Lookup("main"), nullptr) << g.text;
  std::vector<NDArray> inputs = testing::RandomInputs(mod, 11);
  const Function* main = mod.Lookup("main");
  BackendPartitionOptions options;
  std::vector<NDArray> remaining;
  for (size_t i = 0; i < main->params().size(); ++i) {
    std::string name(main->params()[i]->name());
    bool weight = std::find(g.weights.begin(), g.weights.end(), name) != g.weights.end();
    if (weight) {
      options.params[name] = inputs[i];
    } else {
      remaining.push_back(inputs[i]);
    }
  }
  absl::StatusOr<Module> part = PartitionForBackend(mod, backend, options);
  ASSERT_TRUE(part.ok()) << RenderStatus(part.status()) << "\n" << g.text;
  size_t offloaded = 0;
  for (const auto& [gv, fn] : part->Functions()) offloaded += fn->HasAttr("Compiler");
  EXPECT_GT(offloaded, 0u) << backend << "\n" << testing::Show(*part);
  std::vector<NDArray> expected = testing::RunMain(mod, inputs, nullptr);
  std::vector<NDArray> got = testing::RunMain(*part, remaining, &ExternalRegistry::Global());
  ASSERT_EQ(got.size(), expected.size()) << backend << "\n" << g.text;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(testing::CloseRatio(got[i], expected[i], 1e-4, 1e-5), 1.0)
        << backend << "\n" << testing::Show(*part);
  }
}

TEST(RandomGraphsTest, EveryBackendAgreesWithTheReferenceKernels) {
  for (std::string_view name : BuiltinBackendNames()) {
    std::string backend(name);
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      Graph g = Generator(seed * 7919u + backend.size(), backend == "arm_compute_lib").Make();
      SCOPED_TRACE(fmt::format("{} seed {}", backend, seed));
      ExpectBackendMatches(backend, g);
    }
  }
}

}  // namespace
}  // namespace carve
