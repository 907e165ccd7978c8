// Ctrl-C in `carve opt` / `partition` / `run`: the command stops with one
// error line and exit 130, and an output file is either complete or absent
// (written through a temporary renamed into place).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cancellation.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;

std::string Temp(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) / name).string();
}

std::string ReadAll(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  return text;
}

// No file is left behind but the complete one: nothing named OUT.carve-tmp-*.
bool TemporariesLeft(const std::string& out) {
  std::string prefix = std::filesystem::path(out).filename().string() + ".carve-tmp-";
  for (const auto& entry : std::filesystem::directory_iterator(testing::TempDir())) {
    if (entry.path().filename().string().starts_with(prefix)) return true;
  }
  return false;
}

// Runs `carve ARGS` in a forked child (standard output to /dev/null),
// sends it SIGINT after `delay` seconds and waits up to 60 s for it to end.
struct Interrupted {
  bool stopped = false;  // false: still running after 60 s (then killed)
  int status = 0;        // waitpid's status
  std::string err;       // its standard error
};

Interrupted RunAndInterrupt(const std::vector<std::string>& args, unsigned delay) {
  Interrupted r;
  int err_pipe[2];
  if (pipe(err_pipe) != 0) return r;
  pid_t pid = fork();
  if (pid < 0) return r;
  if (pid == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    close(err_pipe[0]);
    Env env = RealEnv();
    _exit(RunCarve(args, env));
  }
  close(err_pipe[1]);
  sleep(delay);
  kill(pid, SIGINT);
  for (int i = 0; i < 600 && waitpid(pid, &r.status, WNOHANG) != pid; ++i) usleep(100 * 1000);
  r.stopped = waitpid(pid, &r.status, WNOHANG) != 0;
  if (!r.stopped) {
    kill(pid, SIGKILL);
    waitpid(pid, &r.status, 0);
  }
  r.err = ReadAll(err_pipe[0]);
  close(err_pipe[0]);
  return r;
}

TEST(InterruptTest, OptStopsALongPassWithExit130AndNoOutputFile) {
  std::string pat = Temp("interrupt_swap.pat");
  std::ofstream(pat) << "rule swap_add = add(?a, ?b) => add(?b, ?a);\n";
  std::string out = Temp("interrupt_out.relay");
  std::filesystem::remove(out);
  // The rewrite never ends. A SIGINT that came before the handler was
  // installed would end the child by the signal (reported below), so it is
  // sent after two seconds, when the child is well into the rewrite.
  Interrupted r = RunAndInterrupt(
      {"opt", std::string(CARVE_SOURCE_DIR) + "/examples/byoc_demo.relay", "-p",
       "InferType,Rewrite(" + pat +
           ",max_rounds=1000000000,max_rewrites=1000000000000000),FoldConstant",
       "-o", out},
      2);
  ASSERT_TRUE(r.stopped) << "carve opt did not stop on SIGINT";
  const std::string& err = r.err;
  ASSERT_TRUE(WIFEXITED(r.status)) << "ended by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), kExitInterrupted) << err;
  EXPECT_THAT(err, HasSubstr("error: interrupted: Rewrite("));
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(TemporariesLeft(out));
}

// `carve viz -p` runs a pipeline as `carve opt` does and stops the same way:
// exit 130, one error line, no picture written.
TEST(InterruptTest, VizStopsItsPipelineWithExit130AndNoOutputFile) {
  std::string pat = Temp("interrupt_viz_swap.pat");
  std::ofstream(pat) << "rule swap_add = add(?a, ?b) => add(?b, ?a);\n";
  std::string out = Temp("interrupt_viz.dot");
  std::filesystem::remove(out);
  Interrupted r = RunAndInterrupt(
      {"viz", std::string(CARVE_SOURCE_DIR) + "/examples/byoc_demo.relay", "-p",
       "InferType,Rewrite(" + pat + ",max_rounds=1000000000,max_rewrites=1000000000000000)",
       "-o", out},
      2);
  ASSERT_TRUE(r.stopped) << "carve viz did not stop on SIGINT";
  ASSERT_TRUE(WIFEXITED(r.status)) << "ended by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), kExitInterrupted) << r.err;
  EXPECT_THAT(r.err, HasSubstr("error: interrupted: Rewrite("));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(TemporariesLeft(out));
}

// `carve reduce` stops on Ctrl-C within its current candidate, writes the
// smallest file found so far (it still shows the behaviour) and exits 130.
TEST(InterruptTest, ReduceWritesTheSmallestSoFarAndExits130) {
  // A chain of 2000 adds ending in a relu; the condition keeps the relu. The
  // reducer first tries each of the nodes as the whole body (each a child
  // process printing its candidate): about 15 s of work on an idle machine
  // (400 adds took 0.6 s), so the SIGINT after one second comes in the middle.
  std::string in = Temp("interrupt_reduce_in.relay");
  {
    std::ofstream f(in);
    f << "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n  %0 = add(%x, 1f);\n";
    for (int i = 1; i < 2000; ++i) f << "  %" << i << " = add(%" << i - 1 << ", 1f);\n";
    f << "  nn.relu(%1999)\n}\n";
  }
  std::string out = Temp("interrupt_reduce_out.relay");
  std::filesystem::remove(out);
  Interrupted r = RunAndInterrupt(
      {"reduce", in, "--until", "carve fmt {}", "--stdout-contains", "nn.relu(", "-o", out}, 1);
  ASSERT_TRUE(r.stopped) << "carve reduce did not stop on SIGINT";
  const std::string& err = r.err;
  ASSERT_TRUE(WIFEXITED(r.status)) << "ended by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), kExitInterrupted) << err;
  EXPECT_THAT(err, HasSubstr("carve reduce: interrupted; the smallest so far: "));
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  std::ifstream written(out);
  std::stringstream text;
  text << written.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("nn.relu("));
  EXPECT_FALSE(TemporariesLeft(out));
}

// `carve test` stops on Ctrl-C inside a RUN line (the inner command's
// cancellation must not swallow the request), reports what ran, exits 130,
// and writes no .expected file from part of the cases.
TEST(InterruptTest, GoldenRunnerStopsWithExit130AndWritesNoExpectedFile) {
  std::string pat = Temp("interrupt_golden_swap.pat");
  std::ofstream(pat) << "rule swap_add = add(?a, ?b) => add(?b, ?a);\n";
  std::string golden = Temp("interrupt_golden.relay");
  const std::string module =
      "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n  add(%x, 1f)\n}\n";
  std::ofstream(golden) << "// RUN: carve fmt %s\n" + module +
                               "// -----\n"
                               "// RUN: carve opt %s -p InferType,Rewrite(" +
                               pat + ",max_rounds=1000000000,max_rewrites=1000000000000000)\n" +
                               module;
  std::string expected = golden + ".expected";
  std::filesystem::remove(expected);
  Interrupted r = RunAndInterrupt({"test", golden, "--update"}, 2);
  ASSERT_TRUE(r.stopped) << "carve test did not stop on SIGINT";
  const std::string& err = r.err;
  ASSERT_TRUE(WIFEXITED(r.status)) << "ended by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), kExitInterrupted) << err;
  EXPECT_THAT(err, HasSubstr("carve test: interrupted in " + golden +
                             ": 1 passed, 0 failed so far\n"));
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(std::filesystem::exists(expected));
  EXPECT_FALSE(TemporariesLeft(expected));
}

// A write that finds the cancellation flag set when it is done leaves the
// previous file as it was and no temporary.
TEST(InterruptTest, AnInterruptedWriteKeepsThePreviousFile) {
  std::string out = Temp("interrupt_keep.txt");
  std::ofstream(out) << "previous\n";
  Env env = RealEnv();
  RequestCancellation();
  absl::Status written = env.write_file(out, "new\n");
  ClearCancellation();
  EXPECT_TRUE(absl::IsCancelled(written)) << written;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "previous\n");
  EXPECT_FALSE(TemporariesLeft(out));
  // Without the flag the file is replaced.
  ASSERT_TRUE(env.write_file(out, "new\n").ok());
  std::ifstream again(out);
  std::stringstream replaced;
  replaced << again.rdbuf();
  EXPECT_EQ(replaced.str(), "new\n");
  EXPECT_FALSE(TemporariesLeft(out));
}

// Something that is not a regular file is written in place, never replaced.
TEST(InterruptTest, DevNullIsWrittenInPlace) {
  Env env = RealEnv();
  ASSERT_TRUE(env.write_file("/dev/null", "text\n").ok());
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

}  // namespace
}  // namespace carve::cli
