// Standard input and output paths given to options (issue 14): `-` works for
// every option that names a file to read (`--patterns -`, `--input NAME=-`)
// and is read once; `carve import` refuses output paths that clash before it
// writes anything.
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

struct Result {
  int code;
  std::string out, err;
};

constexpr char kModule[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2, 3), float32]) {\n"
    "  nn.relu(%x)\n"
    "}\n";

// A backend that offloads nothing but nn.relu, under a name no built-in has.
constexpr char kSpec[] = "backend stdin_relu {\n  op nn.relu;\n}\n";

class StdinOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("carve_stdin_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    module_ = Write("m.relay", kModule);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Runs carve with `stdin_text` as standard input; counts its reads.
  Result Run(std::vector<std::string> args, const std::string& stdin_text = "") {
    std::ostringstream out, err;
    Env env = RealEnv();
    env.prefault_heap = nullptr;
    env.out = &out;
    env.err = &err;
    auto real_read = env.read_file;
    env.read_file = [&, real_read](const std::string& path) -> absl::StatusOr<std::string> {
      if (path != "-") return real_read(path);
      ++stdin_reads_;
      return stdin_text;
    };
    int code = RunCarve(args, env);
    return {code, out.str(), err.str()};
  }

  std::filesystem::path dir_;
  std::string module_;
  int stdin_reads_ = 0;
};

TEST_F(StdinOptionsTest, PatternsFromStandardInput) {
  // It read a file named '-': "cannot read '-': No such file or directory".
  Result r = Run({"partition", module_, "--backend", "stdin_relu", "--patterns", "-"}, kSpec);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Compiler=\"stdin_relu\""));
  // A syntax error is reported against <stdin>, with its line.
  Result bad = Run({"partition", module_, "--backend", "x", "--patterns", "-"}, "backend x {\n  op;\n}\n");
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("<stdin>:2:"));
}

TEST_F(StdinOptionsTest, RewriteRulesFromStandardInput) {
  // Read for the backends and again by Rewrite for its rules: the same text.
  Result r = Run({"opt", module_, "-p", "Rewrite", "--patterns", "-"},
                 "rule relu_to_sigmoid = nn.relu(?x) => sigmoid(?x);\n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("sigmoid(%x)"));
}

TEST_F(StdinOptionsTest, InputFromStandardInput) {
  NDArray x = NDArray::Empty(DataType::Float(32), {2, 3});
  for (int64_t i = 0; i < 6; ++i) x.data<float>()[i] = -1.0f + float(i);
  absl::StatusOr<std::string> npy = SerializeNpy(x);
  ASSERT_TRUE(npy.ok());
  Result r = Run({"run", module_, "--input", "x=-"}, *npy);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("first=[0, 0, 1, 2, 3, 4]"));
  Result bad = Run({"run", module_, "--input", "x=-"}, "not an npy file");
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("<stdin>: "));
}

TEST_F(StdinOptionsTest, StandardInputIsNamedOnce) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"partition", "-", "--backend", "dnnl", "--patterns", "-"},
           {"opt", module_, "-p", "InferType", "--patterns", "-", "--patterns", "-"},
           {"run", "-", "--input", "x=-"},
           {"opt", "--replay", "-", "--patterns", "-"}}) {
    stdin_reads_ = 0;
    Result r = Run(args, kModule);
    EXPECT_EQ(r.code, 2) << args[0] << " " << r.err;
    EXPECT_THAT(r.err, HasSubstr("'-' (standard input) can be given only once"));
    EXPECT_EQ(stdin_reads_, 0);
  }
}

TEST_F(StdinOptionsTest, ReplNeedsStandardInputForItsCommands) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"repl", "-"}, {"repl", module_, "--patterns", "-"}}) {
    Result r = Run(args, kModule);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("'-' (standard input) needs --script S"));
  }
  std::string script = Write("s.txt", "quit\n");
  Result r = Run({"repl", module_, "--patterns", "-", "--script", script}, kSpec);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("1 backend stdin_relu"));
}

// --- carve import's output paths: checked before anything is written ---

TEST_F(StdinOptionsTest, ImportOutputClashes) {
  // Not read: the paths are checked first.
  std::string model = Write("model.onnx", "not onnx");
  std::string d = (dir_ / "D").string();
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--params-out", d, "-o", d}, "are the same path"},
           {{"--params-out", d, "-o", d + "/"}, "are the same path"},
           {{"--params-out", d, "-o", d + "/../D"}, "are the same path"},
           {{"--params-out", "-"}, "--params-out needs a folder"},
           {{"--params-out", ""}, "option '--params-out' has an empty value"},
           {{"--params-out", model}, "is the model file itself"},
           {{"-o", (dir_ / "." / "model.onnx").string()}, "is the model file itself"},
           {{"-o", dir_.string()}, "is a folder"}}) {
    std::vector<std::string> args = {"import", model};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << c.message << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_FALSE(std::filesystem::exists(d)) << c.message;
  }
  std::ifstream in(model);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "not onnx");
}

}  // namespace
}  // namespace carve::cli
