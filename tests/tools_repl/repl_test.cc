// carve repl: the diff, completion, `save --repro` replayed by `carve opt
// --replay` and `carve repl FILE`, and line editing through a real
// pseudo-terminal (Tab completes a pass name).
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cancellation.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"
#include "tools/repl/commands.h"
#include "tools/repl/completion.h"
#include "tools/repl/diff.h"
#include "tools/repl/session.h"

namespace carve::repl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kDemo = std::string(CARVE_SOURCE_DIR) + "/examples/byoc_demo.relay";

struct Outcome {
  int code;
  std::string out, err;
};

Outcome Carve(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  cli::Env env = cli::RealEnv();
  env.in = &in;
  env.out = &out;
  env.err = &err;
  int code = cli::RunCarve(args, env);
  return {code, out.str(), err.str()};
}

std::string Temp(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) / name).string();
}

TEST(ReplDiffTest, MinimalHunksWithContext) {
  DiffSide a{{"a", "b", "c", "d", "e", "f", "g"}, 10};
  DiffSide b{{"a", "b", "X", "d", "e", "f", "g", "h"}, 20};
  EXPECT_EQ(UnifiedDiff(a, b, 1, "def @f"),
            "@@ -12,3 +22,3 @@ def @f\n b\n-c\n+X\n d\n"
            "@@ -17 +27,2 @@ def @f\n g\n+h\n");
  EXPECT_EQ(UnifiedDiff(a, a, 3, ""), "");
}

TEST(ReplDiffTest, TooManyEditsIsOneReplacement) {
  DiffSide a{{"1", "2", "3"}, 0};
  DiffSide b{{"4", "5", "6"}, 0};
  EXPECT_EQ(UnifiedDiff(a, b, 0, "", /*max_edits=*/2), "@@ -1,3 +1,3 @@\n-1\n-2\n-3\n+4\n+5\n+6\n");
}

TEST(ReplCompletionTest, CommandsPassesBackendsNodes) {
  std::ostringstream out;
  cli::Env env = cli::RealEnv();
  env.out = &out;
  Session s(env, {});
  Completion c = Complete(s, "pa");
  ASSERT_EQ(c.candidates.size(), 3u);  // partition, pass, patterns
  EXPECT_EQ(CommonPrefix(c.candidates), "pa");
  c = Complete(s, "pass InferType,MergeCompo");
  ASSERT_EQ(c.candidates.size(), 1u);
  EXPECT_EQ(c.start, 15u);
  EXPECT_EQ(c.candidates[0].text, "MergeComposite");
  EXPECT_THAT(c.candidates[0].display, HasSubstr("MergeComposite(pattern_table"));
  c = Complete(s, "pass MergeComposite(dn");
  ASSERT_FALSE(c.candidates.empty());
  EXPECT_EQ(c.candidates[0].text, "dnnl");
  ASSERT_TRUE(s.Load(kDemo, "load").ok());
  c = Complete(s, "print %1");
  EXPECT_EQ(c.candidates.front().text, "%1");
  c = Complete(s, "print @ma");
  ASSERT_EQ(c.candidates.size(), 1u);
  EXPECT_EQ(c.candidates[0].text, "@main");
  c = Complete(s, "match nn.conv");
  EXPECT_EQ(c.candidates.front().text, "nn.conv1d");
}

// A session on the demo module, its output (and errors) collected in `out`.
class ReplCancelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.out = &out;
    env_.err = &out;
    ASSERT_TRUE(RunCommandLine(s, "load " + kDemo).ok());
  }
  std::ostringstream out;
  cli::Env env_ = cli::RealEnv();
  Session s{env_, {}};
};

// Ctrl-C sets the cancellation flag: the pass manager stops before the next
// pass and the evaluator before its next step; the history keeps its steps.
TEST_F(ReplCancelTest, PassesAndRunsStopAndTheHistoryStays) {
  ASSERT_TRUE(RunCommandLine(s, "pass MergeComposite(byoc_target)").ok());
  RequestCancellation();
  absl::Status pass = RunCommandLine(s, "pass AnnotateTarget(byoc_target)");
  absl::Status run = RunCommandLine(s, "run --seed 1");
  absl::Status compare = RunCommandLine(s, "compare dnnl");
  ClearCancellation();  // as the REPL loop does before each command
  EXPECT_TRUE(absl::IsCancelled(pass)) << pass;
  EXPECT_TRUE(absl::IsCancelled(run)) << run;
  EXPECT_TRUE(absl::IsCancelled(compare)) << compare;
  EXPECT_EQ(s.history().size(), 2u);
  EXPECT_EQ(s.history().current(), 1u);
  EXPECT_TRUE(RunCommandLine(s, "run --seed 1").ok());
}

// Rules that never converge: every round swaps the operands of each add, so
// `pass` with these limits runs until Ctrl-C.
std::string SwapAddPass() {
  // Named after the process: two runs of this binary may share TempDir.
  std::string pat = Temp(fmt::format("swap_add_{}.pat", getpid()));
  std::ofstream(pat) << "rule swap_add = add(?a, ?b) => add(?b, ?a);\n";
  return fmt::format("pass Rewrite({},max_rounds=1000000000,max_rewrites=1000000000000000)", pat);
}

// Ctrl-C (here: the flag set from another thread) during one long pass stops
// it within a fraction of a second; its result is discarded, no step is made.
TEST_F(ReplCancelTest, ALongPassStopsAndMakesNoStep) {
  out.str("");
  ASSERT_TRUE(RunCommandLine(s, "print").ok());
  std::string printed = out.str();
  using Clock = std::chrono::steady_clock;
  Clock::time_point requested;
  ClearCancellation();
  std::thread canceller([&requested] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    requested = Clock::now();
    RequestCancellation();
  });
  absl::Status pass = RunCommandLine(s, SwapAddPass());
  Clock::time_point stopped = Clock::now();
  canceller.join();
  ClearCancellation();
  ASSERT_TRUE(absl::IsCancelled(pass)) << pass;
  EXPECT_THAT(pass.message(), HasSubstr("interrupted: Rewrite("));
  EXPECT_THAT(pass.message(), HasSubstr("at step 1"));
  EXPECT_LT(std::chrono::duration<double>(stopped - requested).count(), 2.0);
  EXPECT_EQ(s.history().size(), 1u);
  out.str("");
  ASSERT_TRUE(RunCommandLine(s, "print").ok());
  EXPECT_EQ(out.str(), printed);
}

TEST(ReplReproTest, OptReplayAndReplReplayGiveTheSameModule) {
  std::string repro = Temp("demo.repro.relay");
  std::string script =
      "pass MergeComposite(byoc_target)\n"
      "partition byoc_target\n"
      "undo\n"
      "save --repro " +
      repro +
      "\n"
      "print\n";
  Outcome session = Carve({"repl", kDemo, "--no-timing"}, script);
  ASSERT_EQ(session.code, 0) << session.err;
  std::string saved = session.out.substr(session.out.find("#[version"));
  // `print` ends the output.
  // The header: the commands, and a goto into the partition command's steps.
  std::ifstream f(repro);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("// replay: pass MergeComposite(byoc_target)\n"
                              "// replay: partition byoc_target\n// replay: goto 5\n"));
  Outcome opt = Carve({"opt", "--replay", repro});
  ASSERT_EQ(opt.code, 0) << opt.err;
  EXPECT_EQ(opt.out, saved);
  Outcome replayed = Carve({"repl", repro, "--no-timing"}, "print\n");
  ASSERT_EQ(replayed.code, 0) << replayed.err;
  EXPECT_THAT(replayed.out, HasSubstr(saved));
  EXPECT_THAT(replayed.out, HasSubstr("replaying 3 commands of"));
}

// An ONNX model with a symbolic batch dimension: `load` takes `--shape` as
// `carve import` does, so the importer's advice ("give the inputs' shapes: --shape ...") can
// be followed at the prompt, and the step runs.
TEST(ReplLoadTest, ShapeFixesTheInputsOfAnOnnxModel) {
  const std::string model = std::string(CARVE_SHARED_DIR) + "/models/fmnist_cnn.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no ../shared/models";
  Outcome r = Carve({"repl", "--no-timing"},
                    fmt::format("load {0}\nrun\nload {0} --shape input=2,1,28,28\nrun\n"
                                "load {0} --shape input=2,1 --shape input=3\n"
                                "load {1} --shape input=1\nload {0} --shap input=1\nsteps\n",
                                model, kDemo));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("<stdin>:2: error: cannot generate a value for %input of type "
                               "Tensor[(?, 1, 28, 28), float32]"));
  EXPECT_THAT(r.out, HasSubstr("out0: Tensor[(2, 10), float32]"));
  EXPECT_THAT(r.err, HasSubstr("<stdin>:5: error: --shape input=3: a shape for 'input' is "
                               "given twice"));
  EXPECT_THAT(r.err, HasSubstr("<stdin>:6: error: --shape applies only to an .onnx model"));
  EXPECT_THAT(r.err, HasSubstr("<stdin>:7: error: unknown option '--shap' (expected: load FILE "
                               "[--shape NAME=D1,D2,...]...)"));
  // The failed loads left the shaped model as step 0, its command recorded.
  EXPECT_THAT(r.out, HasSubstr(fmt::format("load {} --shape input=2,1,28,28\n", model)));
}

// `load M.onnx` types the model afresh, without the importer's own types
// (onnx_import::ForgetImportedTypes, as `carve import` before printing), so
// `save` writes what loading `carve import`'s text of M and saving writes,
// #[metadata] included (its shape objects follow the types); and reading
// that file back and saving it gives the same bytes.
TEST(ReplLoadTest, AnOnnxModelSavesAsItsImportedText) {
  const std::string model = std::string(CARVE_SHARED_DIR) + "/models/fmnist_cnn.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no ../shared/models";
  const std::string imported = Temp("repl_onnx_imported.relay");
  const std::string from_onnx = Temp("repl_onnx_from_onnx.relay");
  const std::string from_text = Temp("repl_onnx_from_text.relay");
  const std::string again = Temp("repl_onnx_again.relay");
  ASSERT_EQ(Carve({"import", model, "--shape", "input=1,1,28,28", "-o", imported}).code, 0);
  Outcome r = Carve({"repl", "--no-timing"},
                    fmt::format("load {} --shape input=1,1,28,28\nsave {}\nload {}\nsave {}\n"
                                "load {}\nsave {}\n",
                                model, from_onnx, imported, from_text, from_onnx, again));
  ASSERT_EQ(r.code, 0) << r.err;
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string a = read(from_onnx);
  EXPECT_THAT(a, HasSubstr("#[metadata]"));
  EXPECT_EQ(a, read(from_text));
  EXPECT_EQ(a, read(again));
}

// The command line's FILE and --params are checked as `carve run` checks
// them, and their errors are the command's, not line-less script errors.
TEST(ReplLoadTest, CommandLineFileAndParamsErrorsAreTheCommands) {
  Outcome missing = Carve({"repl", "--no-timing", Temp("no_such_file.relay")}, "steps\n");
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("carve repl: error: cannot read '"));
  EXPECT_THAT(missing.err, Not(HasSubstr("<stdin>: error")));
  const std::string dir = Temp("repl_params_unknown");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/wieght.npy") << "not read: the name is checked first";
  Outcome r = Carve({"repl", kDemo, "--no-timing", "--params", dir}, "steps\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("carve repl: error: --params '" + dir +
                               "/wieght.npy' names no parameter of @main"));
  EXPECT_THAT(r.err, HasSubstr("did you mean 'weight'"));
}

// Standard input holds the commands: `patterns -` (or `load -`) read the
// rest of the session as a file. It is an error, and the next command runs.
TEST(ReplStdinTest, DashIsRefusedWhileCommandsComeFromStandardInput) {
  Outcome r = Carve({"repl", kDemo, "--no-timing"}, "patterns -\nload -\nsteps\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("<stdin>:1: error: '-' (standard input) holds the REPL's commands"));
  EXPECT_THAT(r.err, HasSubstr("<stdin>:2: error: '-' (standard input) holds the REPL's commands"));
  EXPECT_THAT(r.out, HasSubstr("step 0: load (loaded"));
}

// Reads from `fd` until `needle` appears or 60 s pass (a loaded CI machine).
std::string ReadUntil(int fd, const std::string& needle) {
  std::string seen;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (seen.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    seen.append(buf, size_t(n));
  }
  return seen;
}

// Reads whatever `fd` prints for `ms` milliseconds (keeps the terminal's
// output drained so the child never blocks writing to it).
std::string ReadFor(int fd, int ms) {
  std::string seen;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 20) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) seen.append(buf, size_t(n));
    // EIO once the child has closed its side: keep waiting out `ms`.
    if (n <= 0) usleep(20 * 1000);
  }
  return seen;
}

// The REPL in a child on a pseudo-terminal, killed if the test fails on the
// way (a child left waiting for input would hang the test).
struct Child {
  pid_t pid = -1;
  int master = -1;
  int status = -1;
  // Waits up to 60 s for the child to exit; kills it after that.
  bool Exited() {
    for (int i = 0; i < 600; ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) return true;
      usleep(100 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return false;
  }
  ~Child() {
    if (pid > 0 && status == -1) Exited();
    if (master >= 0) close(master);
  }
};

// Starts `carve repl ARGS` on a pseudo-terminal with HOME = `home` (and
// LC_ALL = `locale` when given).
void StartRepl(Child& child, const std::string& home, const std::vector<std::string>& args,
               const char* locale = nullptr) {
  std::filesystem::create_directories(home);
  std::filesystem::remove(home + "/.carve_history");
  child.pid = forkpty(&child.master, nullptr, nullptr, nullptr);
  ASSERT_GE(child.pid, 0);
  if (child.pid == 0) {
    setenv("HOME", home.c_str(), 1);
    setenv("TERM", "xterm", 1);
    if (locale != nullptr) setenv("LC_ALL", locale, 1);
    cli::Env env = cli::RealEnv();
    std::vector<std::string> command = {"repl"};
    command.insert(command.end(), args.begin(), args.end());
    _exit(cli::RunCarve(command, env));
  }
}

// Quits the REPL with Ctrl-D; `seen` is what it printed so far (for the
// failure message). Ctrl-D at the prompt quits (sent only once the prompt is
// up: in the terminal's cooked mode between prompts it would end a line
// instead). A Ctrl-D that races libedit's switch into raw mode just after
// the prompt can land as a literal character (the line then shows "^D" and
// further Ctrl-Ds only beep), so each Ctrl-D is preceded by Ctrl-U (kill the
// line) and sent again until the REPL quits. The terminal is read all the
// while: a child closing its terminal on exit waits until its output was read.
void QuitWithCtrlD(Child& child, const std::string& seen) {
  bool exited = false;
  std::string after;
  bool writable = true;
  for (int i = 0; i < 300 && !exited; ++i) {
    // The write fails once the child has closed the terminal on its way out.
    if (writable && i < 50) writable = write(child.master, "\x15\x04", 2) == 2;
    after += ReadFor(child.master, 200);
    exited = waitpid(child.pid, &child.status, WNOHANG) == child.pid;
  }
  ASSERT_TRUE(exited || child.Exited()) << "the REPL did not quit on Ctrl-D; it printed:\n"
                                        << seen << "\n(then)\n"
                                        << after;
  EXPECT_TRUE(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0);
}

TEST(ReplTerminalTest, TabCompletesAPassNameAndHistoryIsKept) {
  std::string home = Temp("repl_home");
  Child child;
  StartRepl(child, home, {kDemo});
  int master = child.master;
  std::string seen = ReadUntil(master, "carve:0> ");
  ASSERT_THAT(seen, HasSubstr("carve:0> "));
  EXPECT_THAT(seen, HasSubstr("step 0: load"));
  ASSERT_EQ(write(master, "pass MergeCompo\t", 16), 16);
  // The name is completed and its argument list shown.
  EXPECT_THAT(ReadUntil(master, "MergeComposite(pattern_table"),
              HasSubstr("MergeComposite(pattern_table"));
  ASSERT_EQ(write(master, "(byoc_target)\r", 14), 14);
  seen = ReadUntil(master, "carve:1> ");
  EXPECT_THAT(seen, HasSubstr("step 1: MergeComposite(byoc_target) (changed"));
  ASSERT_THAT(seen, HasSubstr("carve:1> "));
  QuitWithCtrlD(child, seen);
  std::ifstream history(home + "/.carve_history");
  std::string saved((std::istreambuf_iterator<char>(history)), std::istreambuf_iterator<char>());
  EXPECT_THAT(saved, HasSubstr("MergeComposite(byoc_target)"));
}

// Non-ASCII characters typed at a UTF-8 terminal reach the command (libedit
// dropped them while the process kept the "C" locale).
TEST(ReplTerminalTest, Utf8InputReachesTheCommand) {
  Child child;
  StartRepl(child, Temp("repl_home_utf8"), {kDemo}, "C.UTF-8");
  int master = child.master;
  std::string seen = ReadUntil(master, "carve:0> ");
  ASSERT_THAT(seen, HasSubstr("carve:0> "));
  const std::string line = "load mod\xc3\xa8le.relay\r";  // "modèle"
  ASSERT_EQ(write(master, line.data(), line.size()), ssize_t(line.size()));
  seen = ReadUntil(master, "carve:0> ");
  EXPECT_THAT(seen, HasSubstr("cannot read 'mod\xc3\xa8le.relay'"));
  QuitWithCtrlD(child, seen);
}

// Ctrl-C during a pass that would run for hours stops it and returns to the
// prompt, with no step made. The pass prints nothing while it runs, and a
// Ctrl-C that lands between the line being read and the command starting is
// cleared with the command's start (each command begins uncancelled), so
// Ctrl-C is sent once a second until the REPL reports the interrupted pass:
// the report itself proves the pass was running when it stopped.
TEST(ReplTerminalTest, CtrlCStopsALongPassAndTheStepsStay) {
  Child child;
  StartRepl(child, Temp("repl_home_cancel"), {kDemo});
  int master = child.master;
  std::string seen = ReadUntil(master, "carve:0> ");
  ASSERT_THAT(seen, HasSubstr("carve:0> "));
  std::string line = SwapAddPass() + "\r";
  ASSERT_EQ(write(master, line.data(), line.size()), ssize_t(line.size()));
  seen = ReadUntil(master, "\n");  // the line was read; the pass starts
  std::string after = seen.substr(seen.find('\n') + 1);
  for (int i = 0; i < 60; ++i) {
    after += ReadFor(master, 1000);
    // Stop on the report, or on an error that is not one (the pass failed).
    if (after.find("interrupted: Rewrite(") != std::string::npos) break;
    if (after.find("error:") != std::string::npos) break;
    ASSERT_EQ(write(master, "\x03", 1), 1);
  }
  ASSERT_THAT(after, HasSubstr("interrupted: Rewrite(")) << seen;
  EXPECT_THAT(after, HasSubstr("at step 1"));
  // The prompt comes back (it may have been read with the report already).
  if (after.find("carve:0> ", after.find("interrupted: Rewrite(")) == std::string::npos) {
    after += ReadUntil(master, "carve:0> ");
  }
  ASSERT_THAT(after, HasSubstr("carve:0> "));
  ASSERT_EQ(write(master, "steps\r", 6), 6);
  seen = ReadUntil(master, "carve:0> ");
  EXPECT_THAT(seen, HasSubstr("0  load"));  // the `steps` table: step 0 only
  EXPECT_THAT(seen, Not(HasSubstr("Rewrite")));
  ASSERT_THAT(seen, HasSubstr("carve:0> "));
  QuitWithCtrlD(child, after + seen);
}

}  // namespace
}  // namespace carve::repl
