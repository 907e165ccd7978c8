// QLinearConv and QLinearMatMul with constant scales
// (tests/frontend_onnx/data/qlinear*.onnx; make_models.py computes the
// outputs by ONNX's definition in int64 / float64): the import requantizes
// there, where ONNX's node tests, whose scales are graph inputs, take the
// dequantize + quantize path.
#include <cstdlib>

#include "frontend/onnx/import.h"
#include "frontend/onnx/model_reader.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "tests/common/file_util.h"
#include "tests/frontend_onnx/onnx_test_data.h"

namespace carve {
namespace {

using testing_util::OnnxTestData;
using testing_util::ReadFile;

// The largest difference between the model's output and the reference.
int64_t MaxDiff(const std::string& name) {
  onnx_import::ImportOptions options;
  options.freeze = true;
  auto imported = onnx_import::ImportOnnx(ReadFile(OnnxTestData(name + ".onnx")), options);
  EXPECT_TRUE(imported.ok()) << imported.status();
  if (!imported.ok()) return -1;
  auto x = onnx_import::ParseTensorFile(ReadFile(OnnxTestData(name + ".x.pb")));
  auto want = onnx_import::ParseTensorFile(ReadFile(OnnxTestData(name + ".y.pb")));
  EXPECT_TRUE(x.ok() && want.ok());
  Interpreter interp(imported->module);
  std::vector<Value> args = {Value(*x)};
  auto out = interp.Run("main", args);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return -1;
  std::vector<NDArray> got = FlattenTensors(*out);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].shape(), want->shape());
  EXPECT_EQ(got[0].dtype(), want->dtype());
  if (got.size() != 1 || got[0].shape() != want->shape()) return -1;
  int64_t worst = 0;
  for (int64_t k = 0; k < want->num_elements(); ++k) {
    int64_t g = int64_t(got[0].GetAsDouble(k)), w = int64_t(want->GetAsDouble(k));
    EXPECT_EQ(g, w) << "element " << k;
    worst = std::max<int64_t>(worst, std::llabs(g - w));
  }
  return worst;
}

// Per-channel weight scale and zero point, a bias, padding 1 (padded with
// the input zero point).
TEST(OnnxQuantized, QLinearConvPerChannel) { EXPECT_EQ(MaxDiff("qlinearconv_per_channel"), 0); }

// A 3-D A and a 2-D B: qnn.dense on A flattened to 2-D.
TEST(OnnxQuantized, QLinearMatMul3dBy2d) { EXPECT_EQ(MaxDiff("qlinearmatmul_3d_2d"), 0); }

}  // namespace
}  // namespace carve
