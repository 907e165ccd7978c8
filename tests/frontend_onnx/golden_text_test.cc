// The imported Relay text of the small shared models (ch_ppocr's 250
// Constant nodes make its text 0.9 MB of metadata: not a reviewable golden), compared with the reviewed
// files in tests/frontend_onnx/golden/ (weights are parameters, so the text
// is the graph alone). CARVE_UPDATE_GOLDEN=1 rewrites them; review the diff.
// Skips when ../shared/models is absent.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/onnx/import.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "tests/common/file_util.h"

namespace carve {
namespace {

using testing_util::ReadFile;

namespace fs = std::filesystem;

void CheckGolden(const std::string& model, std::map<std::string, std::vector<int64_t>> shapes) {
  fs::path onnx = fs::path(CARVE_SHARED_DIR) / "models" / (model + ".onnx");
  if (!fs::exists(onnx)) GTEST_SKIP() << "no ../shared/models";
  onnx_import::ImportOptions options;
  options.shapes = std::move(shapes);
  auto r = onnx_import::ImportOnnx(ReadFile(onnx), options);
  ASSERT_TRUE(r.ok()) << r.status();
  std::string text = PrintModule(r->module);
  fs::path golden = fs::path(CARVE_SOURCE_DIR) / "tests/frontend_onnx/golden" / (model + ".relay");
  if (std::getenv("CARVE_UPDATE_GOLDEN")) std::ofstream(golden) << text;
  EXPECT_EQ(text, ReadFile(golden)) << "differs from " << golden;
}

TEST(ImportGolden, FashionMnist) { CheckGolden("fmnist_cnn", {}); }
TEST(ImportGolden, SqueezeNet) { CheckGolden("squeezenet1_1", {}); }
TEST(ImportGolden, TinyTransformer) { CheckGolden("tiny_transformer", {}); }

}  // namespace
}  // namespace carve
