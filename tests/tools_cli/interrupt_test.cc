// Ctrl-C in `carve opt` / `partition` / `run` / `fmt` / `check` / ...: the
// command stops with one error line and exit 130, and an output file is either complete or absent
// (written through a temporary renamed into place).
#include <fcntl.h>
#include <poll.h>
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

// Writes a module of `n` chained adds whose body ends in `result` to the
// temporary file `name` and returns its path.
std::string WriteAddChain(const std::string& name, int n, const std::string& result) {
  std::string path = Temp(name);
  std::ofstream f(path);
  f << "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n  %0 = add(%x, 1f);\n";
  for (int i = 1; i < n; ++i) f << "  %" << i << " = add(%" << i - 1 << ", 1f);\n";
  f << "  " << result << "\n}\n";
  return path;
}

// No file is left behind but the complete one: nothing named OUT.carve-tmp-*.
bool TemporariesLeft(const std::string& out) {
  std::string prefix = std::filesystem::path(out).filename().string() + ".carve-tmp-";
  for (const auto& entry : std::filesystem::directory_iterator(testing::TempDir())) {
    if (entry.path().filename().string().starts_with(prefix)) return true;
  }
  return false;
}

// The outcome of a `carve` run sent SIGINT.
struct Interrupted {
  bool stopped = false;  // false: still running after 60 s (then killed)
  int status = 0;        // waitpid's status
  std::string err;       // its standard error
};

// `carve ARGS` in a forked child. Its standard input is a pipe this process
// holds open and never writes when `hold_stdin`, else inherited; its
// standard output is a pipe read only once the child is interrupted (so a
// long text blocks it until then) when `block_stdout`, else /dev/null.
struct Child {
  pid_t pid = -1;
  int err_fd = -1;
  int in_fd = -1;   // the write end of its standard input, or -1
  int out_fd = -1;  // the read end of its standard output, or -1
};

Child StartCarve(const std::vector<std::string>& args, bool hold_stdin = false,
                 bool block_stdout = false) {
  Child c;
  int err_pipe[2], in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
  if (pipe(err_pipe) != 0) return c;
  if (hold_stdin && pipe(in_pipe) != 0) return c;
  if (block_stdout && pipe(out_pipe) != 0) return c;
  c.pid = fork();
  if (c.pid < 0) return c;
  if (c.pid == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    if (hold_stdin) dup2(in_pipe[0], STDIN_FILENO);
    dup2(block_stdout ? out_pipe[1] : open("/dev/null", O_WRONLY), STDOUT_FILENO);
    for (int fd : {err_pipe[0], in_pipe[1], out_pipe[0]}) {
      if (fd >= 0) close(fd);
    }
    Env env = RealEnv();
    _exit(RunCarve(args, env));
  }
  close(err_pipe[1]);
  c.err_fd = err_pipe[0];
  if (hold_stdin) close(in_pipe[0]);
  if (block_stdout) close(out_pipe[1]);
  c.in_fd = in_pipe[1];
  c.out_fd = out_pipe[0];
  return c;
}

// Sends the child SIGINT and waits up to 60 s for it to end, reading
// (and dropping) its standard output meanwhile, as a pager or a `| head`
// that goes on reading would.
Interrupted InterruptAndWait(Child& c) {
  Interrupted r;
  if (c.pid <= 0) return r;
  kill(c.pid, SIGINT);
  for (int i = 0; i < 600 && waitpid(c.pid, &r.status, WNOHANG) != c.pid; ++i) {
    pollfd out = {c.out_fd, POLLIN, 0};
    if (c.out_fd < 0 || poll(&out, 1, 100) <= 0) {
      usleep(100 * 1000);
      continue;
    }
    char buf[65536];
    if (read(c.out_fd, buf, sizeof buf) <= 0) {
      close(c.out_fd);
      c.out_fd = -1;
    }
  }
  r.stopped = waitpid(c.pid, &r.status, WNOHANG) != 0;
  if (!r.stopped) {
    kill(c.pid, SIGKILL);
    waitpid(c.pid, &r.status, 0);
  }
  r.err = ReadAll(c.err_fd);
  for (int fd : {c.err_fd, c.in_fd, c.out_fd}) {
    if (fd >= 0) close(fd);
  }
  return r;
}

// Runs `carve ARGS` (standard output to /dev/null), sends it SIGINT after
// `delay` seconds and waits up to 60 s for it to end.
Interrupted RunAndInterrupt(const std::vector<std::string>& args, unsigned delay) {
  Child c = StartCarve(args);
  sleep(delay);
  return InterruptAndWait(c);
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
  std::string in = WriteAddChain("interrupt_reduce_in.relay", 2000, "nn.relu(%1999)");
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

// The commands that parse and print (`fmt`, `check`, `equal`, `match`,
// `import`) stop as the others do: a Ctrl-C while they wait for standard
// input ends them with one error line and exit 130 (they used to die of the
// signal, and would have taken a read cut short for the whole input), and
// `-o OUT` is not written.
TEST(InterruptTest, ParseAndPrintCommandsStopWhileReadingStandardInput) {
  const std::string demo = std::string(CARVE_SOURCE_DIR) + "/examples/byoc_demo.relay";
  std::string out = Temp("interrupt_fmt_out.relay");
  std::filesystem::remove(out);
  const std::vector<std::vector<std::string>> runs = {
      {"fmt", "-"},        {"fmt", "-", "-o", out},         {"check", demo, "-"},
      {"equal", demo, "-"}, {"match", "nn.relu(?x)", "-"}, {"match", "-", demo},
      {"import", "-"}};
  // All started at once and interrupted after one second, when each is
  // blocked in its read.
  std::vector<Child> children;
  for (const auto& args : runs) children.push_back(StartCarve(args, /*hold_stdin=*/true));
  sleep(1);
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string command = "carve " + runs[i][0] + " ... (run " + std::to_string(i) + ")";
    Interrupted r = InterruptAndWait(children[i]);
    ASSERT_TRUE(r.stopped) << command << " did not stop on SIGINT";
    ASSERT_TRUE(WIFEXITED(r.status)) << command << " ended by signal " << WTERMSIG(r.status);
    EXPECT_EQ(WEXITSTATUS(r.status), kExitInterrupted) << command << ": " << r.err;
    EXPECT_EQ(r.err, "carve: error: interrupted while reading standard input\n") << command;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(TemporariesLeft(out));
}

// A Ctrl-C while `carve fmt` prints to standard output stops the printing:
// exit 130 and a line that says the output is incomplete, not exit 0 after
// a text that ends early.
TEST(InterruptTest, FmtStopsPrintingWithExit130) {
  // About 8 MB of text: far more than a pipe holds, so the child is blocked
  // writing when the signal comes.
  std::string in = WriteAddChain("interrupt_fmt_big.relay", 200000, "%199999");
  Child c = StartCarve({"fmt", in}, /*hold_stdin=*/false, /*block_stdout=*/true);
  sleep(1);
  Interrupted r = InterruptAndWait(c);
  ASSERT_TRUE(r.stopped) << "carve fmt did not stop on SIGINT";
  ASSERT_TRUE(WIFEXITED(r.status)) << "ended by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), kExitInterrupted) << r.err;
  EXPECT_EQ(r.err, "carve: error: interrupted; the output is incomplete\n");
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
