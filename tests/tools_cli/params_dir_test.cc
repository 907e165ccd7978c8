// `--params DIR` reads DIR/NAME.npy for %NAME. A file whose extension
// differs only in case (`w.NPY`, as some tools and case-insensitive file
// systems write) is an error in every command: skipped, it would leave %w
// random and the run would answer for other weights without a word.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/npy.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;

constexpr char kModule[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) {\n"
    "  add(%x, %w)\n"
    "}\n";

class ParamsDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("carve_params_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "params");
    module_ = (dir_ / "m.relay").string();
    std::ofstream(module_) << kModule;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes params/`file` holding [value, value].
  void WriteParam(const std::string& file, float value) {
    NDArray w = NDArray::Empty(DataType::Float(32), {2});
    w.data<float>()[0] = w.data<float>()[1] = value;
    absl::StatusOr<std::string> npy = SerializeNpy(w);
    ASSERT_TRUE(npy.ok());
    std::ofstream((dir_ / "params" / file).string(), std::ios::binary) << *npy;
  }

  int Run(std::vector<std::string> args, std::string& out, std::string& err) {
    std::ostringstream o, e;
    Env env = RealEnv();
    env.prefault_heap = nullptr;
    env.out = &o;
    env.err = &e;
    int code = RunCarve(args, env);
    out = o.str();
    err = e.str();
    return code;
  }

  std::string Params() const { return (dir_ / "params").string(); }

  std::filesystem::path dir_;
  std::string module_;
};

TEST_F(ParamsDirTest, LowerCaseNpyIsRead) {
  WriteParam("w.npy", 100.0f);
  std::string out, err;
  ASSERT_EQ(Run({"run", module_, "--params", Params(), "--input-dist", "ones"}, out, err), 0)
      << err;
  EXPECT_THAT(out, HasSubstr("first=[101, 101]"));
}

TEST_F(ParamsDirTest, UpperCaseNpyIsAnErrorInEveryCommand) {
  WriteParam("w.NPY", 100.0f);
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"run", module_},
           {"run", module_, "--compare", "dnnl"},
           {"opt", module_, "-p", "FoldConstant"},
           {"partition", module_, "--backend", "dnnl"},
           {"codegen", module_, "--backend", "dnnl"}}) {
    args.push_back("--params");
    args.push_back(Params());
    std::string out, err;
    EXPECT_EQ(Run(args, out, err), 1) << args[0] << ": " << out;
    EXPECT_THAT(err, HasSubstr("w.NPY': parameter files are read as NAME.npy (lower case); "
                               "rename it 'w.npy'"))
        << args[0];
  }
}

}  // namespace
}  // namespace carve::cli
