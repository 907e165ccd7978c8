// What a user tries first on a real model: `carve viz model.onnx --backend
// dnnl -o x.html` and `carve why model.onnx --backend dnnl --at %N`. Both
// import the .onnx as `carve import` does, so they name the nodes alike and
// give the same reason; commands that read Relay text only say what to run
// first instead of a screen of parse errors. About 1 s.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;

struct Outcome {
  int code;
  std::string out;  // the -o file's text
  std::string err;
};

// `carve ARGS... -o OUT` (`out` is OUT's text), or with `stdout`, `carve
// ARGS...` (`out` is what it printed).
Outcome Carve(std::vector<std::string> args, bool to_stdout = false) {
  // One file per test: CTest runs the tests of this binary in parallel.
  const std::string path =
      (std::filesystem::path(testing::TempDir()) /
       (std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + ".out"))
          .string();
  std::filesystem::remove(path);
  std::ostringstream out, err;
  Env env = RealEnv();
  env.out = &out;
  env.err = &err;
  if (!to_stdout) args.insert(args.end(), {"-o", path});
  int code = RunCarve(args, env);
  if (to_stdout) return {code, out.str(), err.str()};
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return {code, text.str(), err.str()};
}

std::string Model() {
  return (std::filesystem::path(CARVE_SHARED_DIR) / "models" / "fmnist_cnn.onnx").string();
}

TEST(VizOnnxTest, VizAndWhyReadAnOnnxModelAndAgree) {
  if (!std::filesystem::exists(Model())) GTEST_SKIP() << "no " << Model();
  Outcome term = Carve({"viz", Model(), "--backend", "dnnl", "--format", "term"});
  ASSERT_EQ(term.code, 0) << term.err;
  EXPECT_THAT(term.out, HasSubstr("%8 nn.batch_flatten [host] -- dnnl: unsupported op"));
  EXPECT_THAT(term.out, HasSubstr("%0 nn.conv2d [dnnl tvmgen_default_dnnl_main_0"));
  Outcome why = Carve({"why", Model(), "--backend", "dnnl", "--at", "%8"}, true);
  ASSERT_EQ(why.code, 0) << why.err;
  EXPECT_EQ(why.out, "%8 = nn.batch_flatten:\n  dnnl: unsupported op\n");
  Outcome html = Carve({"viz", Model(), "--backend", "dnnl", "--format", "html"});
  ASSERT_EQ(html.code, 0) << html.err;
  EXPECT_THAT(html.out, HasSubstr("\"name\":\"%8\",\"op\":\"nn.batch_flatten\""));
}

TEST(VizOnnxTest, RelayCommandsSayToImportFirst) {
  if (!std::filesystem::exists(Model())) GTEST_SKIP() << "no " << Model();
  Outcome r = Carve({"partition", Model(), "--backend", "dnnl"}, true);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("an ONNX model, and this command reads Relay text: run `carve "
                               "import " + Model() + " -o model.relay` first"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("unexpected character")));
}

// An import that needs input shapes says which --shape to give, and viz
// takes it as `carve import` does.
TEST(VizOnnxTest, ImportNeedingShapesSaysHow) {
  const std::string model =
      (std::filesystem::path(CARVE_SHARED_DIR) / "models" / "ch_ppocr_mobile_v2.0_cls_infer.onnx")
          .string();
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no " << model;
  Outcome r = Carve({"viz", model, "--backend", "tensorrt", "--format", "dot"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("--shape x=D0,3,D2,D3"));
  EXPECT_THAT(r.err, HasSubstr("(`carve viz` imports an .onnx file as `carve import` does, "
                               "taking --shape; for other import options run `carve import " +
                               model + " ... -o model.relay` and give model.relay)"));
  Outcome shaped = Carve({"viz", model, "--backend", "tensorrt", "--format", "dot", "--shape",
                          "x=1,3,48,192"});
  EXPECT_EQ(shaped.code, 0) << shaped.err;
  EXPECT_THAT(shaped.out, HasSubstr("tvmgen_default_tensorrt_main_"));
}

}  // namespace
}  // namespace carve::cli
