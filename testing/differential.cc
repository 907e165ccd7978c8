#include "testing/differential.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_replace.h"
#include "backends/compare.h"
#include "backends/specs.h"
#include "fmt/format.h"
#include "interpreter/npy.h"
#include "ir/dtype.h"
#include "tools/cli/cli.h"

namespace carve::testing {
namespace {

namespace fs = std::filesystem;

// The first line of `text` that looks like the reason for a failure.
std::string FirstReason(const std::string& err, const std::string& out) {
  std::istringstream es(err);
  for (std::string line; std::getline(es, line);) {
    if (!line.empty()) return line;
  }
  std::istringstream os(out);
  std::string last;
  for (std::string line; std::getline(os, line);) {
    if (line.find("FAIL") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

// Random .npy inputs for the parameters with a `?` dimension (carve run
// fills the static ones itself); returns the --input arguments.
std::vector<std::string> WriteDynamicInputs(const RandomProgram& p, const std::string& dir) {
  std::vector<std::string> args;
  uint64_t state = 12345;
  for (const RandomInput& in : p.inputs) {
    if (!in.dynamic) continue;
    NDArray a = NDArray::Empty(*DataType::Parse(in.dtype), in.shape);
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      double u = double(state >> 11) * (1.0 / 9007199254740992.0);
      a.SetFromDouble(i, in.dtype == "float32" ? 2 * u - 1 : double(state >> 60));
    }
    std::string path = fmt::format("{}/in_{}.npy", dir, in.name);
    if (WriteNpyFile(path, a).ok()) {
      args.push_back("--input");
      args.push_back(fmt::format("{}={}", in.name, path));
    }
  }
  return args;
}

// Runs `carve ARGS` in this process; returns "" or the failure's symptom.
std::string RunInProcess(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out, err;
  cli::Env env = cli::RealEnv();
  env.in = &in;
  env.out = &out;
  env.err = &err;
  env.prefault_heap = nullptr;
  env.write_file_chunks = nullptr;
  // Every offloaded function agreed with the reference on its own inputs and
  // the outputs still differ: float rounding grown in host ops after them,
  // which says nothing about a backend. Read from the report itself, not
  // from the text `run --compare` prints about it.
  bool grew_in_host_ops = false;
  env.on_compare_report = [&](const CompareReport& report) {
    grew_in_host_ops = GrewInHostOps(report);
  };
  int rc = cli::RunCarve(args, env);
  if (rc == 0 || (rc == cli::kExitUserError && grew_in_host_ops)) return "";
  return fmt::format("exit {}: {}", rc, FirstReason(err.str(), out.str()));
}

std::string CommandLine(const std::vector<std::string>& args) {
  std::string s = "carve";
  for (const std::string& a : args) s += " " + a;
  return s;
}

struct Stage {
  std::string backend, stage;
  std::vector<std::string> args;
};

std::vector<Stage> Stages(const RandomProgram& p, const DiffOptions& o, const std::string& file) {
  std::vector<Stage> stages = {{"", "check", {"check", file}}};
  std::vector<std::string> inputs = WriteDynamicInputs(p, o.work_dir);
  std::vector<std::string> backends = o.backends;
  if (backends.empty()) {
    for (std::string_view b : BuiltinBackendNames()) backends.emplace_back(b);
  }
  for (const std::string& b : backends) {
    std::string out = fmt::format("{}/partitioned_{}.relay", o.work_dir, b);
    stages.push_back({b, "partition", {"partition", file, "--backend", b, "--verify-each", "-o", out}});
    stages.push_back({b, "reparse", {"check", out}});
    if (!p.runnable) continue;  // an op without a kernel: nothing to compare
    std::vector<std::string> run = {"run", file, "--compare", b};
    run.insert(run.end(), inputs.begin(), inputs.end());
    stages.push_back({b, "compare", run});
  }
  return stages;
}

// The child: runs the stages, reporting on `fd` one line per event:
// "B i" (stage i begins), "F i symptom" (it failed), "O i" (it passed).
[[noreturn]] void ChildMain(const std::vector<Stage>& stages, int fd) {
  bool check_failed = false, partition_failed = false;
  for (size_t i = 0; i < stages.size(); ++i) {
    const Stage& s = stages[i];
    if (check_failed) break;  // an invalid program: nothing more to learn
    if (s.stage == "partition") partition_failed = false;
    if (s.stage == "reparse" && partition_failed) continue;
    std::string line = fmt::format("B {}\n", i);
    (void)!write(fd, line.data(), line.size());
    std::string symptom = RunInProcess(s.args);
    for (char& c : symptom) {
      if (c == '\n') c = ' ';
    }
    line = symptom.empty() ? fmt::format("O {}\n", i) : fmt::format("F {} {}\n", i, symptom);
    (void)!write(fd, line.data(), line.size());
    if (!symptom.empty() && s.stage == "check") check_failed = true;
    if (!symptom.empty() && s.stage == "partition") partition_failed = true;
  }
  _exit(0);
}

std::string SignalName(int sig) {
  const char* name = sigabbrev_np(sig);
  return fmt::format("signal {} (SIG{})", sig, name ? name : "?");
}

}  // namespace

std::string DiffFailure::Signature() const {
  std::string s = symptom;
  // Blur what varies between instances of one bug: file names, positions,
  // numbers, variable names, types.
  if (size_t e = s.find("error: "); e != std::string::npos) s = s.substr(0, 8) + s.substr(e);
  static const std::regex kPath(R"((/[^ :/]+)+\.[a-z]+(:[0-9]+:[0-9]+)?)");
  static const std::regex kTensor(R"(Tensor\[\([^\]]*\])");
  static const std::regex kVar(R"(%[A-Za-z_0-9.]+)");
  static const std::regex kNum(R"([-+]?[0-9][0-9.e+-]*)");
  s = std::regex_replace(s, kPath, "FILE");
  s = std::regex_replace(s, kTensor, "T");
  s = std::regex_replace(s, kVar, "%V");
  s = std::regex_replace(s, kNum, "N");
  return fmt::format("{} {}: {}", stage, backend.empty() ? "-" : backend, s);
}

std::string KeepFailingProgram(const std::string& dir, uint64_t seed, const std::string& work_dir,
                               const std::string& program_text, const std::string& command) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const std::string kept = fmt::format("{}/{}", dir, seed);
  std::ofstream(kept + ".relay") << program_text;
  for (const fs::directory_entry& e : fs::directory_iterator(work_dir)) {
    std::string name = e.path().filename().string();
    if (name.starts_with("in_") && name.ends_with(".npy")) {
      fs::copy_file(e.path(), kept + "." + name, fs::copy_options::overwrite_existing);
    }
  }
  return absl::StrReplaceAll(
      command, {{work_dir + "/program.relay", kept + ".relay"}, {work_dir + "/in_", kept + ".in_"}});
}

std::vector<DiffFailure> RunDifferential(const RandomProgram& program, const DiffOptions& options) {
  std::string file = options.work_dir + "/program.relay";
  std::ofstream(file) << program.text;
  std::vector<Stage> stages = Stages(program, options, file);
  std::vector<DiffFailure> failures;
  int fds[2];
  if (pipe(fds) != 0) return {{"", "harness", "pipe failed", ""}};
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ChildMain(stages, fds[1]);
  }
  close(fds[1]);
  std::string log;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(int64_t(options.timeout_seconds * 1000));
  bool timed_out = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, int(left.count())) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    log.append(buf, size_t(n));
  }
  if (timed_out) kill(pid, SIGKILL);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  int running = -1;  // the stage that began and did not end
  std::istringstream ls(log);
  for (std::string line; std::getline(ls, line);) {
    char kind = line[0];
    size_t i = std::stoul(line.substr(2));
    if (kind == 'B') running = int(i);
    if (kind == 'O') running = -1;
    if (kind == 'F') {
      running = -1;
      size_t sp = line.find(' ', 2);
      failures.push_back({stages[i].backend, stages[i].stage, line.substr(sp + 1),
                          CommandLine(stages[i].args)});
    }
  }
  if (running >= 0) {
    const Stage& s = stages[running];
    std::string symptom = timed_out                ? std::string("timeout")
                          : WIFSIGNALED(status)    ? SignalName(WTERMSIG(status))
                                                   : fmt::format("died, status {}", status);
    failures.push_back({s.backend, s.stage, symptom, CommandLine(s.args)});
  }
  return failures;
}

absl::StatusOr<std::vector<KnownFailure>> ReadKnownFailures(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(fmt::format("cannot read {}", path));
  std::vector<KnownFailure> known;
  int lineno = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineno;
    size_t hash = line.find("  #");
    std::string pattern = line.substr(0, hash);
    while (!pattern.empty() && pattern.back() == ' ') pattern.pop_back();
    if (pattern.empty() || pattern[0] == '#') continue;
    try {
      known.push_back({pattern, std::regex(pattern), 0});
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: error: bad regex: {}", path, lineno, e.what()));
    }
  }
  return known;
}

KnownFailure* MatchKnown(std::vector<KnownFailure>& known, const DiffFailure& f) {
  std::string sig = f.Signature();
  for (KnownFailure& k : known) {
    if (std::regex_search(sig, k.regex)) return &k;
  }
  return nullptr;
}

}  // namespace carve::testing
