// carve-random --keep (testing/differential.h KeepFailingProgram): a kept
// failure carries its `?`-shaped inputs and a command that names the kept
// files, since the harness's work directory is reused and then deleted.
#include <filesystem>
#include <fstream>
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/differential.h"
#include "tests/common/file_util.h"

namespace carve::testing {
namespace {

namespace fs = std::filesystem;
using testing_util::ReadFile;

TEST(KeepFailingProgram, KeepsTheProgramAndItsInputsAndRewritesTheCommand) {
  const fs::path root = fs::path(::testing::TempDir()) / "keep_failing_program";
  fs::remove_all(root);
  const fs::path work = root / "work", keep = root / "kept";
  fs::create_directories(work);
  std::ofstream(work / "program.relay") << "overwritten by the next program";
  std::ofstream(work / "in_x5.npy") << "npy bytes";
  std::ofstream(work / "partitioned_dnnl.relay") << "not an input";
  const std::string command = fmt::format(
      "carve run {0}/program.relay --compare dnnl --input x5={0}/in_x5.npy", work.string());

  std::string kept = KeepFailingProgram(keep.string(), 42, work.string(), "program text", command);

  EXPECT_EQ(kept, fmt::format("carve run {0}/42.relay --compare dnnl --input x5={0}/42.in_x5.npy",
                              keep.string()));
  EXPECT_EQ(ReadFile(keep / "42.relay"), "program text");
  EXPECT_EQ(ReadFile(keep / "42.in_x5.npy"), "npy bytes");
  EXPECT_FALSE(fs::exists(keep / "42.partitioned_dnnl.relay"));
  // A second failure of the same program keeps the same files again.
  EXPECT_EQ(KeepFailingProgram(keep.string(), 42, work.string(), "program text", command), kept);
  fs::remove_all(root);
}

}  // namespace
}  // namespace carve::testing
