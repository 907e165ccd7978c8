// `carve import` prints what `carve fmt` prints for the same module: the
// imported text of each shared model (weights embedded, so the #[metadata]
// section is exercised) is byte-identical to `carve fmt` of it, and to
// `carve fmt` of that. A user who formats an imported file, or diffs it
// after a round trip, sees no change. Skips when ../shared/models is absent.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "gtest/gtest.h"
#include "tests/common/file_util.h"
#include "tools/cli/cli.h"

namespace carve {
namespace {

using testing_util::ReadFile;

namespace fs = std::filesystem;

int Carve(const std::vector<std::string>& args) {
  cli::Env env = cli::RealEnv();
  std::ostringstream out, err;
  env.out = &out;
  env.err = &err;
  int rc = cli::RunCarve(args, env);
  if (rc != 0) {
    ADD_FAILURE() << fmt::format("carve {} -> {}\n{}", fmt::join(args, " "), rc, err.str());
  }
  return rc;
}

// The first line where `a` and `b` differ, for the failure message.
std::string FirstDifference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ga = bool(std::getline(sa, la)), gb = bool(std::getline(sb, lb));
    if (!ga && !gb) return "equal";
    if (!ga || !gb || la != lb) {
      return fmt::format("line {}:\n  {}\n  {}", line, la.substr(0, 200), lb.substr(0, 200));
    }
  }
}

void CheckStable(const std::string& model, const std::vector<std::string>& extra) {
  fs::path onnx = fs::path(CARVE_SHARED_DIR) / "models" / (model + ".onnx");
  if (!fs::exists(onnx)) GTEST_SKIP() << "no ../shared/models";
  fs::path tmp = fs::path(testing::TempDir()) / fmt::format("fmt_stable_{}", model);
  fs::create_directories(tmp);
  const std::string imported = (tmp / "imported.relay").string();
  const std::string once = (tmp / "fmt1.relay").string();
  const std::string twice = (tmp / "fmt2.relay").string();
  std::vector<std::string> args = {"import", onnx.string(), "-o", imported};
  args.insert(args.end(), extra.begin(), extra.end());
  ASSERT_EQ(Carve(args), 0);
  ASSERT_EQ(Carve({"fmt", imported, "-o", once}), 0);
  ASSERT_EQ(Carve({"fmt", once, "-o", twice}), 0);
  const std::string a = ReadFile(imported), b = ReadFile(once), c = ReadFile(twice);
  EXPECT_NE(a.find("#[metadata]"), std::string::npos) << "the weights should be embedded";
  EXPECT_TRUE(a == b) << model << ": import and fmt of it differ at " << FirstDifference(a, b);
  EXPECT_TRUE(b == c) << model << ": fmt is not idempotent at " << FirstDifference(b, c);
  fs::remove_all(tmp);
}

TEST(ImportFmtStable, FashionMnist) { CheckStable("fmnist_cnn", {"--shape", "input=1,1,28,28"}); }
TEST(ImportFmtStable, SqueezeNet) { CheckStable("squeezenet1_1", {}); }
TEST(ImportFmtStable, PaddleOcrClassifier) {
  CheckStable("ch_ppocr_mobile_v2.0_cls_infer", {"--shape", "x=1,3,48,192"});
}
TEST(ImportFmtStable, TinyTransformer) { CheckStable("tiny_transformer", {}); }

}  // namespace
}  // namespace carve
