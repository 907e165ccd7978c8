// `--params DIR` reads DIR/NAME.npy for %NAME. A file whose extension
// differs only in case (`w.NPY`, as some tools and case-insensitive file
// systems write) is an error in every command: skipped, it would leave %w
// random and the run would answer for other weights without a word.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/npy.h"
#include "tests/tools_cli/cli_test_dir.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;

constexpr char kModule[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) {\n"
    "  add(%x, %w)\n"
    "}\n";

class ParamsDirTest : public CliTestDir {
 protected:
  ParamsDirTest() : CliTestDir("carve_params_") {}

  void SetUp() override {
    CliTestDir::SetUp();
    std::filesystem::create_directories(dir_ / "params");
    module_ = Write("m.relay", kModule);
  }

  // Writes params/`file` holding [value, value].
  void WriteParam(const std::string& file, float value) {
    NDArray w = NDArray::Empty(DataType::Float(32), {2});
    w.data<float>()[0] = w.data<float>()[1] = value;
    absl::StatusOr<std::string> npy = SerializeNpy(w);
    ASSERT_TRUE(npy.ok());
    Write("params/" + file, *npy);
  }

  std::string Params() const { return (dir_ / "params").string(); }

  std::string module_;
};

TEST_F(ParamsDirTest, LowerCaseNpyIsRead) {
  WriteParam("w.npy", 100.0f);
  CliResult r = Run({"run", module_, "--params", Params(), "--input-dist", "ones"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("first=[101, 101]"));
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
    CliResult r = Run(args);
    EXPECT_EQ(r.code, 1) << args[0] << ": " << r.out;
    EXPECT_THAT(r.err, HasSubstr("w.NPY': parameter files are read as NAME.npy (lower case); "
                                 "rename it 'w.npy'"))
        << args[0];
  }
}

}  // namespace
}  // namespace carve::cli
