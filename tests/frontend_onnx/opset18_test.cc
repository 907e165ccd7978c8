// Opset 18 models (tests/frontend_onnx/data/opset18_*.onnx, written by
// make_models.py): the inputs and attributes opset 18 gave ops carve already
// converted (Split's num_outputs, Pad's axes, a Reduce's axes input), and
// Mish, imported and run against values computed here by ONNX's definition.
#include <cmath>

#include "frontend/onnx/import.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "tests/common/file_util.h"
#include "tests/frontend_onnx/onnx_test_data.h"

namespace carve {
namespace {

using testing_util::Iota;
using testing_util::OnnxTestData;
using testing_util::ReadFile;
using testing_util::Values;

std::string ReadModel(const std::string& name) { return ReadFile(OnnxTestData(name)); }

// @main(x) of the imported model, its outputs flattened.
std::vector<NDArray> RunModel(const std::string& model, const NDArray& x) {
  onnx_import::ImportOptions options;
  options.freeze = true;
  auto r = onnx_import::ImportOnnx(ReadModel(model), options);
  EXPECT_TRUE(r.ok()) << model << ": " << r.status();
  if (!r.ok()) return {};
  Interpreter interp(r->module);
  std::vector<Value> args = {Value(x)};
  auto out = interp.Run("main", args);
  EXPECT_TRUE(out.ok()) << model << ": " << out.status();
  if (!out.ok()) return {};
  return FlattenTensors(*out);
}

// num_outputs=3 of an extent 7: parts of ceil(7/3) = 3, the last one 1.
TEST(OnnxOpset18, SplitNumOutputsUneven) {
  std::vector<NDArray> parts = RunModel("opset18_split.onnx", Iota({2, 7}));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parts[1].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parts[2].shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(Values(parts[2]), (std::vector<float>{6, 13}));
}

// Pads [1, 2] on axes [-1]: one zero before and two after each row.
TEST(OnnxOpset18, PadAxesInput) {
  std::vector<NDArray> out = RunModel("opset18_pad_axes.onnx", Iota({2, 3}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(Values(out[0]), (std::vector<float>{0, 0, 1, 2, 0, 0, 0, 3, 4, 5, 0, 0}));
}

// ReduceMean over axes [0, 2] given as an input, keepdims=0.
TEST(OnnxOpset18, ReduceAxesInput) {
  std::vector<NDArray> out = RunModel("opset18_reduce_axes.onnx", Iota({2, 3, 4}));
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{3}));
  // Row j holds 4j..4j+3 and 12+4j..12+4j+3: mean 4j + 7.5.
  EXPECT_EQ(Values(out[0]), (std::vector<float>{7.5f, 11.5f, 15.5f}));
}

TEST(OnnxOpset18, Mish) {
  NDArray x = NDArray::Empty(DataType::Float(32), {4});
  const float in[] = {-2.0f, -0.5f, 0.0f, 3.0f};
  std::copy(in, in + 4, x.data<float>());
  std::vector<NDArray> out = RunModel("opset18_mish.onnx", x);
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 4; ++i) {
    double want = in[i] * std::tanh(std::log1p(std::exp(double(in[i]))));
    EXPECT_NEAR(out[0].data<float>()[i], want, 1e-6) << i;
  }
}

// Opsets past 18 are refused by name (their ops may have changed).
TEST(OnnxOpset18, Opset19IsRefused) {
  auto r = onnx_import::ImportOnnx(ReadModel("opset19.onnx"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "the model uses ONNX opset 19; carve imports opsets 7 to 18");
}

}  // namespace
}  // namespace carve
