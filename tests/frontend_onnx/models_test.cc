// The real models of ../shared/models end to end: `carve import`, run on the
// interpreter against the reference outputs, fmnist_cnn's accuracy on the
// 1000 bundled images, and each model partitioned for the five backends and
// checked with `carve run --compare`. Skips when ../shared/models is absent.
// Takes 3-15 s (the compare runs dominate).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "tests/common/file_util.h"
#include "tools/cli/cli.h"

namespace carve {
namespace {

using testing_util::ReadFile;

namespace fs = std::filesystem;

fs::path ModelsDir() { return fs::path(CARVE_SHARED_DIR) / "models"; }

NDArray ReadF32(const fs::path& p, std::vector<int64_t> shape) {
  std::string bytes = ReadFile(p);
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  EXPECT_EQ(bytes.size(), a.nbytes()) << p;
  std::memcpy(a.raw_data(), bytes.data(), std::min(bytes.size(), a.nbytes()));
  return a;
}

absl::StatusOr<onnx_import::ImportResult> Import(
    const std::string& name, std::map<std::string, std::vector<int64_t>> shapes = {}) {
  onnx_import::ImportOptions options;
  options.base_dir = ModelsDir().string();
  options.shapes = std::move(shapes);
  return onnx_import::ImportOnnx(ReadFile(ModelsDir() / (name + ".onnx")), options);
}

// @main(input, params...) on the reference kernels.
NDArray RunMain(const onnx_import::ImportResult& r, const NDArray& input) {
  std::vector<Value> args = {input};
  for (const auto& p : r.params) args.push_back(p.value);
  Interpreter interp(r.module);
  auto out = interp.Run("main", args);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->tensor() : NDArray();
}

// The largest |got - want| relative to the largest |want| (the outputs'
// scale), and the elementwise check |got - want| <= 1e-4 * |want| + 1e-4 *
// 1e-2 * max|want| (relative, with a floor for values near zero).
void ExpectClose(const NDArray& got, const NDArray& want) {
  ASSERT_EQ(got.num_elements(), want.num_elements());
  double scale = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) scale = std::max(scale, std::fabs(want.GetAsDouble(i)));
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    double a = got.GetAsDouble(i), b = want.GetAsDouble(i);
    ASSERT_LE(std::fabs(a - b), 1e-4 * std::fabs(b) + 1e-6 * scale) << "element " << i;
  }
}

class Models : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(ModelsDir() / "squeezenet1_1.onnx")) GTEST_SKIP() << "no ../shared/models";
  }
};

TEST_F(Models, SqueezeNetMatchesReference) {
  auto r = Import("squeezenet1_1");
  ASSERT_TRUE(r.ok()) << r.status();
  NDArray out = RunMain(*r, ReadF32(ModelsDir() / "squeezenet1_1.input.f32", {1, 3, 224, 224}));
  ExpectClose(out, ReadF32(ModelsDir() / "squeezenet1_1.output.f32", {1, 1000}));
}

TEST_F(Models, TinyTransformerMatchesReference) {
  auto r = Import("tiny_transformer");
  ASSERT_TRUE(r.ok()) << r.status();
  NDArray out = RunMain(*r, ReadF32(ModelsDir() / "tiny_transformer.input.f32", {1, 32, 64}));
  ExpectClose(out, ReadF32(ModelsDir() / "tiny_transformer.output.f32", {1, 10}));
}

TEST_F(Models, FashionMnistReachesReferenceAccuracy) {
  auto r = Import("fmnist_cnn", {{"input", {1000, 1, 28, 28}}});
  ASSERT_TRUE(r.ok()) << r.status();
  std::string images = ReadFile(ModelsDir() / "t10k_first1000_u8.bin");
  std::string labels = ReadFile(ModelsDir() / "t10k_first1000_labels_u8.bin");
  ASSERT_EQ(images.size(), 1000u * 28 * 28);
  NDArray input = NDArray::Empty(DataType::Float(32), {1000, 1, 28, 28});
  for (size_t i = 0; i < images.size(); ++i) input.data<float>()[i] = uint8_t(images[i]) / 255.0f;
  NDArray probs = RunMain(*r, input);
  ExpectClose(probs, ReadF32(ModelsDir() / "t10k_first1000_probs_f32.bin", {1000, 10}));
  int correct = 0;
  for (int n = 0; n < 1000; ++n) {
    int best = 0;
    for (int k = 1; k < 10; ++k) {
      if (probs.data<float>()[n * 10 + k] > probs.data<float>()[n * 10 + best]) best = k;
    }
    correct += best == uint8_t(labels[n]);
  }
  EXPECT_EQ(correct, 911);  // 91.1%, the reference probabilities' accuracy
}

TEST_F(Models, PaddleOcrClassifierRuns) {
  auto r = Import("ch_ppocr_mobile_v2.0_cls_infer", {{"x", {1, 3, 48, 192}}});
  ASSERT_TRUE(r.ok()) << r.status();
  NDArray input = NDArray::Empty(DataType::Float(32), {1, 3, 48, 192});
  for (int64_t i = 0; i < input.num_elements(); ++i) input.data<float>()[i] = float(i % 255) / 255.0f;
  NDArray out = RunMain(*r, input);
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_NEAR(out.data<float>()[0] + out.data<float>()[1], 1.0, 1e-5);  // a softmax
}

// `carve import` then `carve run --compare B` for every backend, through the
// CLI on real files.
int Carve(const std::vector<std::string>& args, std::string* out_text = nullptr) {
  cli::Env env = cli::RealEnv();
  std::ostringstream out, err;
  env.out = &out;
  env.err = &err;
  int rc = cli::RunCarve(args, env);
  if (out_text) *out_text = out.str();
  if (rc != 0) ADD_FAILURE() << fmt::format("carve {} -> {}\n{}{}", fmt::join(args, " "), rc, out.str(), err.str());
  return rc;
}

TEST_F(Models, PartitionAndCompareOnEveryBackend) {
  fs::path tmp = fs::temp_directory_path() / fmt::format("carve_models_{}", getpid());
  fs::create_directories(tmp);
  struct Case {
    std::string model, shape;
  };
  const Case cases[] = {{"squeezenet1_1", ""},
                        {"fmnist_cnn", "input=1,1,28,28"},
                        {"ch_ppocr_mobile_v2.0_cls_infer", "x=1,3,48,192"},
                        {"tiny_transformer", ""}};
  for (const Case& c : cases) {
    std::string relay = (tmp / (c.model + ".relay")).string();
    std::string params = (tmp / (c.model + ".params")).string();
    std::vector<std::string> import = {"import", (ModelsDir() / (c.model + ".onnx")).string(),
                                       "-o", relay, "--params-out", params};
    if (!c.shape.empty()) import.insert(import.end(), {"--shape", c.shape});
    if (Carve(import) != 0) continue;
    for (const char* backend : {"bnns", "arm_compute_lib", "nnapi", "dnnl", "tensorrt"}) {
      std::string report_file = (tmp / "report.txt").string();
      Carve({"partition", relay, "--backend", backend, "--params", params, "--report", "-o",
             report_file});
      std::string report = ReadFile(report_file);
      // "backend dnnl: 79 of 91 ops offloaded (86.8%) in 10 regions"
      EXPECT_NE(report.find(fmt::format("backend {}: ", backend)), std::string::npos)
          << c.model << " " << backend << ": " << report;
      // (Some backends offload nothing of an NCHW model, e.g. Arm Compute
      // Library, whose convolutions TVM takes in NHWC only.)
      std::cout << c.model << ": " << report.substr(0, report.find('\n')) << "\n";
      Carve({"run", relay, "--params", params, "--compare", backend});
    }
  }
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace carve

namespace carve {
namespace {

// `carve import -` reads the model from standard input (the bytes of
// env.in, as RealEnv reads the process's).
TEST(ImportCli, ReadsStandardInput) {
  std::string bytes = ReadFile(fs::path(CARVE_SOURCE_DIR) / "tests/frontend_onnx/data/two_outputs.onnx");
  ASSERT_FALSE(bytes.empty());
  cli::Env env = cli::RealEnv();
  std::istringstream in(bytes);
  std::ostringstream out, err;
  env.in = &in;
  env.out = &out;
  env.err = &err;
  auto write = [&](const std::string& path, const std::string& text) {
    if (path == "-") out << text;
    return absl::OkStatus();
  };
  env.write_file = write;
  auto real_read = env.read_file;
  env.read_file = [&](const std::string& path) -> absl::StatusOr<std::string> {
    if (path == "-") return std::string(std::istreambuf_iterator<char>(*env.in), {});
    return real_read(path);
  };
  env.write_file_chunks = nullptr;
  int rc = cli::RunCarve({"import", "-", "--freeze", "--shape", "x:0=3,2"}, env);
  EXPECT_EQ(rc, 0) << err.str();
  EXPECT_NE(out.str().find("def @main(%x_0: Tensor[(3, 2), float32])"), std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace carve
