// `carve fmt big.relay | head -1`: when the reader of standard output goes
// away, carve ends by SIGPIPE (shell status 141) without a word, as git and
// coreutils do (docs/cli.md, "Exit statuses"). An error message there would
// be noise on every `| head`; a script under `set -o pipefail` sees 141.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

TEST(Sigpipe, AClosedPipeEndsCarveBySigpipeWithoutAMessage) {
  std::string path = (std::filesystem::path(testing::TempDir()) / "sigpipe.relay").string();
  {
    std::ofstream f(path);
    f << "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n";
    f << "  %0 = nn.relu(%x);\n";
    for (int i = 1; i < 20000; ++i) f << "  %" << i << " = nn.relu(%" << i - 1 << ");\n";
    f << "  %19999\n}\n";
  }
  int out_pipe[2], err_pipe[2];
  ASSERT_EQ(pipe(out_pipe), 0);
  ASSERT_EQ(pipe(err_pipe), 0);
  close(out_pipe[0]);  // the reader is gone before carve writes
  std::fflush(stdout);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGPIPE, SIG_DFL);  // as a shell starts it
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(err_pipe[0]);
    Env env = RealEnv();
    _exit(RunCarve({"fmt", path}, env));
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = read(err_pipe[0], buf, sizeof buf)) > 0;) err.append(buf, size_t(n));
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited " << WEXITSTATUS(status) << ": " << err;
  EXPECT_EQ(WTERMSIG(status), SIGPIPE);
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace carve::cli
