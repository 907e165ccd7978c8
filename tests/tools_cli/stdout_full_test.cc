// Standard output that cannot be written (redirected to a full disk) is an
// error, exit 1 with the reason: it exited 0 with the output cut short.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
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
  int code = -1;
  std::string err;
};

// `carve ARGS` in a forked child whose standard output is `out_path`: the
// check is on the process's real std::cout, which only a child can point
// at /dev/full.
Outcome RunWithStdout(const std::vector<std::string>& args, const char* out_path) {
  Outcome r;
  int err_pipe[2];
  if (pipe(err_pipe) != 0) return r;
  std::fflush(stdout);  // the child must not inherit gtest's pending output
  pid_t pid = fork();
  if (pid < 0) return r;
  if (pid == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    dup2(open(out_path, O_WRONLY), STDOUT_FILENO);
    close(err_pipe[0]);
    Env env = RealEnv();
    _exit(RunCarve(args, env));
  }
  close(err_pipe[1]);
  char buf[4096];
  for (ssize_t n; (n = read(err_pipe[0], buf, sizeof buf)) > 0;) r.err.append(buf, size_t(n));
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string SmallModule() {
  std::string path = (std::filesystem::path(testing::TempDir()) / "stdout_full.relay").string();
  std::ofstream(path) << "#[version = \"0.0.5\"]\n"
                         "def @main(%x: Tensor[(4), float32]) {\n  nn.relu(%x)\n}\n";
  return path;
}

TEST(StdoutFull, AFailedWriteToStandardOutputIsAnError) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  const std::string file = SmallModule();
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"fmt", file}, {"opt", file, "-p", "InferType"}, {"help"}}) {
    Outcome r = RunWithStdout(args, "/dev/full");
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_THAT(r.err, HasSubstr("carve: error: error writing standard output: No space left on "
                                 "device"))
        << args[0];
  }
  Outcome ok = RunWithStdout({"fmt", file}, "/dev/null");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.err, "");
}

// `carve run --out DIR` on a full disk: DIR/out0.npy is a link to
// /dev/full. The error named the file only.
TEST(StdoutFull, RunOutFilesNameTheReason) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "stdout_full_run_out";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink("/dev/full", dir / "out0.npy");
  Outcome r = RunWithStdout({"run", SmallModule(), "--out", dir.string()}, "/dev/null");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("out0.npy': No space left on device"));
}

}  // namespace
}  // namespace carve::cli
