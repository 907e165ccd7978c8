// `carve reduce FILE --until 'carve ARGS...' [--exit N | --stderr-contains
// TEXT] [-o OUT]`: shrinks a .relay file while running the --until command on
// it keeps failing the same way (tools/cli/reduce.h; docs/reduce.md). The
// command runs in process, in a forked child per candidate, so a crash or a
// hang of the candidate is an outcome, not the end of the reduction. Ctrl-C
// stops it: the smallest file found so far (which satisfies the condition)
// is written, and the exit status is 130.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "fmt/format.h"
#include "support/cancellation.h"
#include "tools/cli/cli.h"
#include "tools/cli/reduce.h"
#include "tools/cli/number_text.h"

namespace carve::cli {
namespace {

// Splits a command line into words: blanks separate, '...' and "..." quote.
absl::StatusOr<std::vector<std::string>> SplitWords(const std::string& s) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) return absl::InvalidArgumentError(fmt::format("unclosed {} in --until", quote));
  if (in_word) words.push_back(word);
  return words;
}

struct Outcome {
  int status = 0;  // the exit status, 128 + N for signal N, 124 for a time-out
  std::string out, err;
  bool interrupted = false;  // Ctrl-C came while it ran: the status means nothing
};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Caps the child's address space: shrinking a shape literal can turn an
// allocation that failed at once into one that succeeds and pages for
// minutes. (Not under ASan, whose shadow memory needs the address space.)
void LimitMemory(int64_t megabytes) {
  if (kAddressSanitizer || megabytes <= 0) return;
  rlim_t bytes = rlim_t(megabytes) << 20;
  rlimit r{bytes, bytes};
  setrlimit(RLIMIT_AS, &r);
}

// The forked child's side of RunChild: runs `carve args` with its standard
// output and error on the pipes' write ends and exits with carve's status.
[[noreturn]] void RunInChild(const std::vector<std::string>& args, int out_fds[2], int err_fds[2],
                             int64_t memory_mb) {
  // The parent's SIGINT handler only sets a flag: a child that ignored a
  // Ctrl-C would run on. With the default action the child ends (or, for
  // a cancellable command, installs its own handler and stops).
  signal(SIGINT, SIG_DFL);
  close(out_fds[0]);
  close(err_fds[0]);
  int devnull = open("/dev/null", O_RDONLY);
  dup2(devnull, 0);
  dup2(out_fds[1], 1);
  dup2(err_fds[1], 2);
  LimitMemory(memory_mb);
  Env env = RealEnv();
  env.prefault_heap = nullptr;
  int rc = RunCarve(args, env);
  std::cout.flush();
  std::cerr.flush();
  _exit(rc);
}

// Appends what the child writes on `fds` (standard output, then error) to
// o.out and o.err until both close, the deadline passes (returns true) or a
// Ctrl-C comes (sets o.interrupted). Closes the descriptors it finished.
bool CollectChildOutput(pollfd (&fds)[2], double timeout_seconds, Outcome& o) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(int64_t(timeout_seconds * 1000));
  std::string* sinks[2] = {&o.out, &o.err};
  for (int open_fds = 2; open_fds > 0;) {
    // A Ctrl-C reaches the child too when it comes from the terminal, but
    // not when only this process is signalled.
    if (CancellationRequested()) {
      o.interrupted = true;
      return false;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return true;
    if (poll(fds, 2, int(left)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, size_t(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  return false;
}

// Waits for the child and returns its exit status as Outcome::status spells
// it.
int ReapChild(pid_t pid, bool timed_out) {
  int status = 0;
  // SIGINT's handler is installed without SA_RESTART: a Ctrl-C here must
  // not leave the child unreaped.
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return timed_out              ? 124
         : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                               : WEXITSTATUS(status);
}

// Runs `carve args` (without the leading "carve") in a forked child.
Outcome RunChild(const std::vector<std::string>& args, double timeout_seconds,
                 int64_t memory_mb) {
  int out_fds[2], err_fds[2];
  if (pipe(out_fds) != 0) return {125, "", "pipe failed"};
  if (pipe(err_fds) != 0) return {125, "", "pipe failed"};
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) RunInChild(args, out_fds, err_fds, memory_mb);
  close(out_fds[1]);
  close(err_fds[1]);
  Outcome o;
  pollfd fds[2] = {{out_fds[0], POLLIN, 0}, {err_fds[0], POLLIN, 0}};
  bool timed_out = CollectChildOutput(fds, timeout_seconds, o);
  if (timed_out || o.interrupted) kill(pid, SIGKILL);
  for (pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = ReapChild(pid, timed_out);
  o.interrupted |= CancellationRequested();
  o.status = status;
  return o;
}

struct Condition {
  std::vector<std::string> words;  // without "carve"; {} and %s = the file
  std::optional<int> exit;
  std::optional<std::string> stderr_contains, stdout_contains;
  double timeout = 10;
  int64_t memory_mb = 1024;

  Outcome Run(const std::string& file) const {
    std::vector<std::string> args;
    for (std::string w : words) {
      for (const char* hole : {"{}", "%s"}) {
        for (size_t p; (p = w.find(hole)) != std::string::npos;) w.replace(p, 2, file);
      }
      args.push_back(w);
    }
    return RunChild(args, timeout, memory_mb);
  }
  bool Holds(const Outcome& o) const {
    if (o.interrupted) return false;
    if (exit && o.status != *exit) return false;
    if (stderr_contains && o.err.find(*stderr_contains) == std::string::npos) return false;
    if (stdout_contains && o.out.find(*stdout_contains) == std::string::npos) return false;
    return true;
  }
};

int64_t CountLines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

absl::StatusOr<Condition> ParseCondition(const ParsedArgs& args) {
  Condition c;
  std::optional<std::string> until = args.Get("--until");
  if (!until) return absl::InvalidArgumentError("--until 'carve ARGS...' is required");
  absl::StatusOr<std::vector<std::string>> words = SplitWords(*until);
  if (!words.ok()) return words.status();
  if (words->empty() || (*words)[0] != "carve") {
    return absl::InvalidArgumentError("the --until command must start with `carve`");
  }
  c.words.assign(words->begin() + 1, words->end());
  bool hole = false;
  for (const std::string& w : c.words) {
    hole |= w.find("{}") != std::string::npos || w.find("%s") != std::string::npos;
  }
  if (!hole) {
    return absl::InvalidArgumentError("the --until command must name the candidate file as {} or %s");
  }
  if (auto e = args.Get("--exit")) {
    std::optional<int64_t> v = ParseIntegerText(*e);
    if (!v || *v < 0 || *v > 255) {
      return absl::InvalidArgumentError(fmt::format("--exit expects 0..255, got '{}'", *e));
    }
    c.exit = int(*v);
  }
  c.stderr_contains = args.Get("--stderr-contains");
  c.stdout_contains = args.Get("--stdout-contains");
  if (auto t = args.Get("--timeout")) {
    std::optional<double> v = ParseFiniteText(*t);
    if (!v || *v <= 0) {
      return absl::InvalidArgumentError(fmt::format("--timeout expects seconds > 0, got '{}'", *t));
    }
    c.timeout = *v;
  }
  if (auto m = args.Get("--memory-limit")) {
    std::optional<int64_t> v = ParseIntegerText(*m);
    if (!v || *v <= 0) {
      return absl::InvalidArgumentError(
          fmt::format("--memory-limit expects megabytes > 0, got '{}'", *m));
    }
    c.memory_mb = *v;
  }
  return c;
}

// The folder the candidates are written to, removed when the reduction
// ends however it ends.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/carve-reduce-XXXXXX";
    if (mkdtemp(tmpl) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Checks the condition on the input itself (`first`) and, without --exit or
// an output test, fixes it to "fails as the original does". Returns the
// exit status to stop with when there is nothing to reduce.
std::optional<int> SettleCondition(Condition& cond, const Outcome& first, const std::string& path,
                                   const std::string& shown, Env& env) {
  if (first.interrupted) {
    *env.err << fmt::format("carve reduce: interrupted while running the --until command on {}\n",
                            path);
    return kExitInterrupted;
  }
  if (!cond.exit && !cond.stderr_contains && !cond.stdout_contains) {
    // Without --exit or --stderr-contains: "fails as the original does".
    if (first.status == 0) {
      *env.err << fmt::format("carve reduce: the --until command succeeds on {}; give --exit or "
                              "--stderr-contains, or a failing input\n", path);
      return kExitUserError;
    }
    // A usage error (a misspelt option in --until) does not depend on the
    // file: every candidate would "fail the same way" down to one node, a
    // reduction of nothing. `--exit 2` still asks for it explicitly.
    if (first.status == kExitUsage) {
      *env.err << fmt::format(
          "carve reduce: the --until command is a usage error (exit 2) on {}, whatever the file; "
          "fix the command, or give --exit 2:\n{}",
          shown, first.err);
      return kExitUsage;
    }
    cond.exit = first.status;
  }
  if (!cond.Holds(first)) {
    *env.err << fmt::format("carve reduce: the condition does not hold on {} (exit {})\n{}", path,
                            first.status, first.err);
    return kExitUserError;
  }
  return std::nullopt;
}

// The parameters that must stay: `--input NAME=F.npy` in the command names
// one.
std::vector<std::string> PinnedParams(const std::vector<std::string>& words) {
  std::vector<std::string> pinned;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] != "--input") continue;
    std::string spec = words[i + 1];
    std::string name = spec.substr(0, spec.find('='));
    pinned.push_back(name.starts_with("%") ? name.substr(1) : name);
  }
  return pinned;
}

// Writes the reduced module to --output (or standard output) and the
// summary line to standard error.
int WriteReduced(const ParsedArgs& args, Env& env, const std::string& original,
                 std::string reduced, const ReduceStats& stats, double seconds) {
  if (!reduced.empty() && reduced.back() != '\n') reduced += '\n';
  std::string out_path = args.GetOr("--output", "-");
  // Interrupted: what was found so far is still a smaller file that shows
  // the behaviour, so it is written (the flag is cleared for the write,
  // which otherwise refuses to replace OUT).
  bool interrupted = stats.interrupted;
  ClearCancellation();
  if (out_path == "-") {
    *env.out << reduced;
  } else if (absl::Status written = env.write_file(out_path, reduced); !written.ok()) {
    return ReportError(env, written);
  }
  *env.err << fmt::format(
      "carve reduce: {}{} bytes, {} lines -> {} bytes, {} lines ({} candidates run, {} kept, {} "
      "invalid skipped, {:.1f} s)\n",
      interrupted ? "interrupted; the smallest so far: " : "", original.size(),
      CountLines(original), reduced.size(), CountLines(reduced), stats.candidates,
      stats.accepted, stats.invalid, seconds);
  return interrupted ? kExitInterrupted : kExitOk;
}

int RunReduce(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 1) {
    return UsageError(env, "reduce", "expected one FILE");
  }
  absl::StatusOr<Condition> cond = ParseCondition(args);
  if (!cond.ok()) {
    return UsageError(env, "reduce", std::string(cond.status().message()));
  }
  const std::string& path = args.positional()[0];
  absl::StatusOr<std::string> text = ReadInput(env, path);
  if (!text.ok()) return ReportError(env, text.status());
  // Every candidate is kept valid (docs/reduce.md), so from an invalid file
  // no candidate could be kept: the "reduced" file was the input itself,
  // reported as a successful reduction.
  const std::string shown = path == "-" ? "<stdin>" : path;
  if (absl::Status valid = CheckValidRelay(shown, *text); !valid.ok()) {
    *env.err << fmt::format(
        "carve reduce: {} is not a valid module; reduce shrinks a module that parses and "
        "type-checks (every candidate stays valid):\n",
        shown);
    return ReportError(env, valid);
  }
  ScratchDir scratch;
  if (!scratch.ok()) return ReportError(env, absl::InternalError("mkdtemp failed"));
  std::string candidate_path =
      scratch.path() + "/" + std::filesystem::path(path).filename().string();
  auto run = [&](const std::string& t) {
    std::ofstream(candidate_path, std::ios::trunc) << t;
    return cond->Run(candidate_path);
  };
  if (std::optional<int> stop = SettleCondition(*cond, run(*text), path, shown, env)) {
    return *stop;
  }
  auto start = std::chrono::steady_clock::now();
  ReduceStats stats;
  std::string reduced =
      ReduceRelay(*text, [&](const std::string& t) { return cond->Holds(run(t)); }, &stats,
                  PinnedParams(cond->words));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return WriteReduced(args, env, *text, std::move(reduced), stats, seconds);
}

}  // namespace

void AddReduceCommands(std::vector<Command>& commands) {
  commands.push_back(Command{
      "reduce",
      "carve reduce FILE --until 'carve ARGS... {}' [--exit N] [--stderr-contains TEXT] "
      "[--stdout-contains TEXT] [-o OUT]",
      "shrink a .relay file while a carve command keeps failing on it",
      {{"--until", true, false, "",
        "the carve command to run; {} or %s stands for the candidate file"},
       {"--exit", true, false, "",
        "the exit status to keep (128+N for signal N, 124 for a time-out; default: the "
        "original's)"},
       {"--stderr-contains", true, false, "", "text standard error must keep containing"},
       {"--stdout-contains", true, false, "",
        "text standard output must keep containing (e.g. FAIL of run --compare)"},
       {"--timeout", true, false, "", "seconds per run of the command (10)"},
       {"--memory-limit", true, false, "", "address space of each run in MB (1024)"},
       {"--output", true, false, "-o", "write the reduced file to OUT instead of standard output"}},
      RunReduce});
  commands.back().cancellable = true;
}

}  // namespace carve::cli
