// carve-fuzz-smoke: a deterministic fuzz smoke test of the carve CLI.
//
//   carve-fuzz-smoke CARVE SOURCE_DIR [--shared DIR] [--runs N] [--seed S]
//                    [--timeout SECONDS] [--keep DIR] [--verbose]
//
// Takes the Relay and pattern files under SOURCE_DIR/tests and
// SOURCE_DIR/backends (and DIR/corpus when --shared is given), mutates them
// with a fixed-seed generator (byte flips, truncations, duplicated and
// deleted spans, spliced tokens) and runs `carve check`, `carve fmt` and
// `carve match` on each mutant in a child process. Every run must exit 0 or 1:
// a signal, any other exit code, a time-out or a sanitizer report on standard
// error is a failure. Failing inputs are kept (in --keep DIR, or in the
// temporary directory, which is then not removed) with the command line that
// reproduces them. Same seed, same runs. Exit status: 0 when every run passed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

// splitmix64: the same sequence on every platform (std distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }

 private:
  uint64_t state_;
};

struct Options {
  std::string carve;
  fs::path source_dir;
  fs::path shared_dir;
  int runs = 300;
  uint64_t seed = 20261121;
  int timeout_s = 60;
  fs::path keep_dir;
  bool verbose = false;
};

struct Seed {
  fs::path path;
  std::string text;
  bool is_pattern_file;  // .pat
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

constexpr size_t kMaxSeedBytes = 24 * 1024;     // keeps a run short
constexpr size_t kMaxMutantBytes = 64 * 1024;

void CollectSeeds(const fs::path& dir, std::vector<Seed>& seeds) {
  if (!fs::is_directory(dir)) return;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string ext = entry.path().extension().string();
    if (ext != ".relay" && ext != ".pat") continue;
    if (entry.file_size() > kMaxSeedBytes) continue;
    paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());  // directory order is not deterministic
  for (const fs::path& p : paths) {
    // A golden file holds cases separated by `// -----` lines; each case is a
    // whole module (or pattern file) and makes a better seed than the file.
    std::string text = ReadFile(p), piece, line;
    std::istringstream in(text);
    auto flush = [&] {
      if (piece.find_first_not_of(" \t\n") != std::string::npos) {
        seeds.push_back({p, piece, p.extension() == ".pat"});
      }
      piece.clear();
    };
    while (std::getline(in, line)) {
      if (line.rfind("// -----", 0) == 0) {
        flush();
      } else {
        piece += line + "\n";
      }
    }
    flush();
  }
}

// Tokens that stress the lexer and the parsers' number and nesting handling.
const std::vector<std::string>& Splices() {
  static const std::vector<std::string> tokens = {
      "(", ")", "[", "]", "{", "}", ",", ";", "%", "@", "meta[", "#[metadata]", "/*", "*/",
      "//", "\"", "\\", "0", "-1", "2147483647", "-2147483648", "9223372036854775807",
      "-9223372036854775808", "18446744073709551616", "99999999999999999999999", "1e309",
      "-0.0", "nan", "inf", "0x7fffffff", "Tensor[(", "Tensor[(2147483647, 2147483647), float32]",
      "Tensor[(-1), int8]", "(0, 0)", "axis=-2147483648", "axes=[2147483647]",
      "units=-9223372036854775807", "dtype=\"int64\"", "fn (", "let %x = ", "if (", ".0",
      ".2147483647", "_", "?x", "|", "=>", "where ", "rank(?x) == ", "const", "\xff", "\xc3",
      std::string(1, '\0'), "\n", "\t"};
  return tokens;
}

// One random edit of `s`.
void MutateOnce(std::string& s, Rng& rng) {
  size_t n = s.size();
  switch (rng.Below(7)) {
    case 0: {  // flip bits of 1..4 bytes
      if (n == 0) return;
      size_t k = 1 + rng.Below(4);
      for (size_t i = 0; i < k; ++i) s[rng.Below(n)] ^= static_cast<char>(1u << rng.Below(8));
      return;
    }
    case 1: {  // overwrite a byte with a random one
      if (n == 0) return;
      s[rng.Below(n)] = static_cast<char>(rng.Below(256));
      return;
    }
    case 2:  // truncate
      s.resize(rng.Below(n + 1));
      return;
    case 3: {  // duplicate a span somewhere
      if (n == 0) return;
      size_t from = rng.Below(n);
      size_t len = 1 + rng.Below(std::min<size_t>(n - from, 256));
      std::string span = s.substr(from, len);
      s.insert(rng.Below(n + 1), span);
      return;
    }
    case 4: {  // delete a span
      if (n == 0) return;
      size_t from = rng.Below(n);
      s.erase(from, 1 + rng.Below(std::min<size_t>(n - from, 64)));
      return;
    }
    case 5: {  // splice a token
      const auto& tokens = Splices();
      s.insert(rng.Below(n + 1), tokens[rng.Below(tokens.size())]);
      return;
    }
    default: {  // replace a number-like run of digits with a token
      if (n == 0) return;
      size_t at = rng.Below(n);
      while (at < n && !std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
      size_t end = at;
      while (end < n && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
      const auto& tokens = Splices();
      s.replace(at, end - at, tokens[rng.Below(tokens.size())]);
      return;
    }
  }
}

std::string Mutate(const std::string& seed, Rng& rng) {
  std::string s = seed;
  size_t edits = 1 + rng.Below(2);
  for (size_t i = 0; i < edits; ++i) MutateOnce(s, rng);
  if (s.size() > kMaxMutantBytes) s.resize(kMaxMutantBytes);
  return s;
}

// The first name a pattern file defines (`pattern X`, `rule X`, `composite X`).
std::string FirstPatternName(const std::string& text) {
  for (const char* kw : {"composite ", "pattern ", "rule "}) {
    size_t at = text.find(kw);
    if (at == std::string::npos) continue;
    at += std::strlen(kw);
    size_t end = at;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                                 text[end] == '_' || text[end] == '.')) {
      ++end;
    }
    if (end > at) return text.substr(at, end - at);
  }
  return "p";
}

// The quoted PATTERN arguments of the `carve match '...'` and `carve why '...'`
// RUN lines in the seeds: standalone DSL patterns, sorted and unique.
std::vector<std::string> QuotedPatterns(const std::vector<Seed>& seeds) {
  std::vector<std::string> out;
  for (const Seed& seed : seeds) {
    for (const char* cmd : {"carve match '", "carve why '"}) {
      for (size_t at = seed.text.find(cmd); at != std::string::npos;
           at = seed.text.find(cmd, at + 1)) {
        size_t begin = at + std::strlen(cmd);
        size_t end = seed.text.find('\'', begin);
        if (end != std::string::npos) out.push_back(seed.text.substr(begin, end - begin));
      }
    }
  }
  out.push_back("nn.relu(nn.bias_add(nn.conv2d(?x, ?w), ?b)) where rank(?x) == 4");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct RunResult {
  bool signaled = false;
  int code = 0;  // exit code, or the signal number
  bool timed_out = false;
  bool sanitizer_report = false;
  std::string err;
};

bool HasSanitizerReport(const std::string& err) {
  return err.find("ERROR: AddressSanitizer") != std::string::npos ||
         err.find("ERROR: LeakSanitizer") != std::string::npos ||
         err.find("SUMMARY: UndefinedBehaviorSanitizer") != std::string::npos ||
         err.find(": runtime error: ") != std::string::npos;
}

// Runs argv with standard input from /dev/null, standard output discarded and
// standard error captured in `err_path`.
RunResult Run(const std::vector<std::string>& argv, const fs::path& err_path, int timeout_s) {
  RunResult r;
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(2);
  }
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    int out = open("/dev/null", O_WRONLY);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  for (int sleep_ms = 1;; sleep_ms = std::min(sleep_ms * 2, 20)) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  }
  if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.code = WTERMSIG(status);
  } else {
    r.code = WEXITSTATUS(status);
  }
  r.err = ReadFile(err_path);
  r.sanitizer_report = HasSanitizerReport(r.err);
  return r;
}

std::string Quote(const std::string& a) {
  std::string out = "'";
  for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool ParseOptions(int argc, char** argv, Options& o) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : ""; };
    if (a == "--shared") o.shared_dir = value();
    else if (a == "--runs") o.runs = std::atoi(value().c_str());
    else if (a == "--seed") o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--timeout") o.timeout_s = std::atoi(value().c_str());
    else if (a == "--keep") o.keep_dir = value();
    else if (a == "--verbose") o.verbose = true;
    else positional.push_back(a);
  }
  if (positional.size() != 2 || o.runs <= 0 || o.timeout_s <= 0) return false;
  o.carve = fs::absolute(positional[0]).string();
  o.source_dir = positional[1];
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, o)) {
    std::cerr << "usage: carve-fuzz-smoke CARVE SOURCE_DIR [--shared DIR] [--runs N] [--seed S]"
                 " [--timeout SECONDS] [--keep DIR] [--verbose]\n";
    return 2;
  }
  std::vector<Seed> relay_seeds, pattern_seeds;
  {
    std::vector<Seed> all;
    CollectSeeds(o.source_dir / "tests", all);
    CollectSeeds(o.source_dir / "backends", all);
    if (!o.shared_dir.empty()) CollectSeeds(o.shared_dir / "corpus", all);
    for (Seed& s : all) (s.is_pattern_file ? pattern_seeds : relay_seeds).push_back(std::move(s));
  }
  const std::vector<std::string> patterns = QuotedPatterns(relay_seeds);
  if (relay_seeds.empty() || pattern_seeds.empty()) {
    std::cerr << "carve-fuzz-smoke: no .relay or .pat files under " << o.source_dir << "\n";
    return 2;
  }

  char tmpl[] = "/tmp/carve-fuzz-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("mkdtemp");
    return 2;
  }
  fs::path work = tmpl;
  fs::path keep = o.keep_dir.empty() ? work : o.keep_dir;
  fs::create_directories(keep);

  Rng rng(o.seed);
  int failures = 0, exit0 = 0, exit1 = 0;
  for (int i = 0; i < o.runs; ++i) {
    // Runs cycle through check, fmt, match on a relay mutant, match with a
    // mutated pattern file, match with mutated pattern text (the last two on
    // an unmutated module).
    int kind = i % 5;
    const std::vector<Seed>& pool = kind == 3 ? pattern_seeds : relay_seeds;
    const Seed& seed = pool[rng.Below(pool.size())];
    std::string mutant = Mutate(seed.text, rng);
    fs::path input = work / (seed.is_pattern_file ? "mutant.pat" : "mutant.relay");
    WriteFile(input, mutant);
    // Pattern runs match against an unmutated module.
    const fs::path match_module = work / "module.relay";
    if (kind >= 3) WriteFile(match_module, relay_seeds[rng.Below(relay_seeds.size())].text);
    std::vector<std::string> cmd = {o.carve};
    switch (kind) {
      case 0:
        cmd.insert(cmd.end(), {"check", input.string()});
        break;
      case 1:
        cmd.insert(cmd.end(), {"fmt", "--types", input.string()});
        break;
      case 2:
        cmd.insert(cmd.end(), {"match", patterns[rng.Below(patterns.size())], input.string(),
                               "--captures"});
        break;
      case 3: {
        std::string ref = "@";  // (appends: GCC 12 warns falsely on "@" + string)
        ref += input.string();
        ref += ':';
        ref += FirstPatternName(seed.text);
        cmd.insert(cmd.end(), {"match", ref, match_module.string()});
        break;
      }
      default: {
        std::string text = Mutate(patterns[rng.Below(patterns.size())], rng);
        if (text.starts_with('-')) text[0] = ' ';  // not an option (that is exit 2)
        cmd.insert(cmd.end(), {"match", text, match_module.string(), "--captures"});
        break;
      }
    }
    auto start = std::chrono::steady_clock::now();
    RunResult r = Run(cmd, work / "stderr.txt", o.timeout_s);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bool ok = !r.signaled && !r.timed_out && !r.sanitizer_report && (r.code == 0 || r.code == 1);
    if (o.verbose) {
      std::cerr << "run " << i << ": " << cmd[1] << " " << seed.path.filename().string()
                << " -> " << (r.signaled ? "signal " : "exit ") << r.code << " (" << secs
                << " s) " << r.err.substr(0, r.err.find('\n')) << "\n";
    }
    if (ok) {
      (r.code == 0 ? exit0 : exit1)++;
      continue;
    }
    ++failures;
    std::string tag = "failure-" + std::to_string(i);
    fs::path saved = keep / (tag + input.extension().string());
    WriteFile(saved, mutant);
    WriteFile(keep / (tag + ".stderr"), r.err);
    fs::path saved_module = keep / (tag + "-module.relay");
    if (kind >= 3) fs::copy_file(match_module, saved_module, fs::copy_options::overwrite_existing);
    std::string line;
    for (std::string a : cmd) {
      for (const auto& [from, to] :
           {std::pair{input, saved}, std::pair{match_module, saved_module}}) {
        size_t at = a.find(from.string());
        if (at != std::string::npos) a.replace(at, from.string().size(), to.string());
      }
      if (!line.empty()) line += ' ';
      line += Quote(a);
    }
    std::string what = r.timed_out          ? "timed out"
                       : r.signaled         ? "killed by signal"
                       : r.sanitizer_report ? "sanitizer report, exit"
                                            : "exit";
    if (!r.timed_out) {
      what += ' ';
      what += std::to_string(r.code);
    }
    std::cout << "FAIL run " << i << " (seed file " << seed.path.string() << "): " << what
              << "\n  reproduce: " << line << "\n";
    std::string first = r.err.substr(0, 2000);
    std::cout << "  stderr: " << first << (r.err.size() > first.size() ? "..." : "") << "\n";
  }
  std::cout << "carve-fuzz-smoke: seed " << o.seed << ", " << o.runs << " runs over "
            << relay_seeds.size() << " relay and " << pattern_seeds.size()
            << " pattern files: " << exit0 << " exit 0, " << exit1 << " exit 1, " << failures
            << " failures\n";
  fs::remove(work / "stderr.txt");
  fs::remove(work / "mutant.relay");
  fs::remove(work / "mutant.pat");
  fs::remove(work / "module.relay");
  if (failures == 0 || !o.keep_dir.empty()) fs::remove_all(work);
  else std::cout << "failing inputs kept in " << work.string() << "\n";
  return failures == 0 ? 0 : 1;
}
