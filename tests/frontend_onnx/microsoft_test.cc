// ONNX Runtime's com.microsoft ops TVM converts by op type
// (tests/frontend_onnx/data/microsoft_ops.onnx: FastGelu with a bias,
// BiasGelu, Gelu, SkipLayerNormalization with all four outputs), against
// make_models.py's float64 reference; other ops of that domain stay
// refused.
#include <cmath>
#include <filesystem>

#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "frontend/onnx/model_reader.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "tests/common/file_util.h"

namespace carve {
namespace {

namespace fs = std::filesystem;
using testing_util::ReadFile;

NDArray Tensor(const std::string& part) {
  auto t = onnx_import::ParseTensorFile(ReadFile(
      fs::path(CARVE_SOURCE_DIR) / "tests/frontend_onnx/data" / ("microsoft_ops." + part + ".pb")));
  EXPECT_TRUE(t.ok()) << part << ": " << t.status();
  return t.ok() ? *t : NDArray();
}

TEST(OnnxMicrosoft, TransformerOpsMatchReference) {
  onnx_import::ImportOptions options;
  options.freeze = true;
  auto imported = onnx_import::ImportOnnx(
      ReadFile(fs::path(CARVE_SOURCE_DIR) / "tests/frontend_onnx/data/microsoft_ops.onnx"),
      options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  Interpreter interp(imported->module);
  std::vector<Value> args = {Value(Tensor("x")), Value(Tensor("skip"))};
  auto out = interp.Run("main", args);
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<NDArray> got = FlattenTensors(*out);
  const char* names[] = {"y", "mean", "inv_std", "sum"};
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    NDArray want = Tensor(names[i]);
    ASSERT_EQ(got[i].shape(), want.shape()) << names[i];
    for (int64_t k = 0; k < want.num_elements(); ++k) {
      double a = got[i].GetAsDouble(k), b = want.GetAsDouble(k);
      EXPECT_NEAR(a, b, 1e-5 + 1e-4 * std::fabs(b)) << names[i] << " element " << k;
    }
  }
}

}  // namespace
}  // namespace carve
