// carve-random: prints random, typed, valid Relay programs, or runs them through
// the differential test (testing/differential.h).
//
//   carve-random [--seed S] [--count N] [--out DIR]
//       prints program S (or writes programs S..S+N-1 to DIR/S.relay)
//   carve-random --diff [--seed S] [--count N] [--time-limit SECONDS]
//             [--known FILE] [--backend B]... [--keep DIR] [--quiet]
//       runs programs S..S+N-1 (until the time limit) through check,
//       partition --verify-each, re-parse and run --compare for each
//       backend; prints each new failure class with its first program and
//       a summary; exits 1 when a failure matches no class of FILE.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "testing/differential.h"
#include "testing/random_program.h"

namespace {

namespace fs = std::filesystem;
using carve::testing::DiffFailure;
using carve::testing::KnownFailure;

struct Options {
  bool diff = false, quiet = false;
  uint64_t seed = 1;
  int64_t count = 1;
  double time_limit = 0;  // 0 = none
  std::string known, keep, out;
  std::vector<std::string> backends;
};

int Usage(const std::string& message) {
  std::cerr << "carve-random: " << message
            << "\nusage: carve-random [--seed S] [--count N] [--out DIR]\n"
               "       carve-random --diff [--seed S] [--count N] [--time-limit SECONDS] "
               "[--known FILE] [--backend B]... [--keep DIR] [--quiet]\n";
  return 2;
}

bool ParseOptions(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        error = a + " needs a value";
        return "";
      }
      return argv[++i];
    };
    if (a == "--diff") o.diff = true;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--seed") o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--count") o.count = std::strtoll(value().c_str(), nullptr, 10);
    else if (a == "--time-limit") o.time_limit = std::strtod(value().c_str(), nullptr);
    else if (a == "--known") o.known = value();
    else if (a == "--keep") o.keep = value();
    else if (a == "--out") o.out = value();
    else if (a == "--backend") o.backends.push_back(value());
    else error = "unknown option " + a;
    if (!error.empty()) return false;
  }
  if (o.count < 1) error = "--count must be at least 1";
  if (!o.diff && (o.time_limit > 0 || !o.known.empty() || !o.keep.empty() ||
                  !o.backends.empty() || o.quiet)) {
    error = "--time-limit, --known, --keep, --backend and --quiet need --diff";
  }
  if (o.diff && !o.out.empty()) error = "--out does not apply to --diff (use --keep)";
  return error.empty();
}

int Generate(const Options& o) {
  for (int64_t i = 0; i < o.count; ++i) {
    uint64_t seed = o.seed + uint64_t(i);
    std::string text = carve::testing::GenerateRandomProgram(seed).text;
    if (o.out.empty()) {
      std::cout << (o.count > 1 ? fmt::format("// seed {}\n", seed) : "") << text;
      continue;
    }
    fs::create_directories(o.out);
    std::ofstream(fmt::format("{}/{}.relay", o.out, seed)) << text;
  }
  return 0;
}

struct ClassStats {
  int64_t count = 0;
  uint64_t first_seed = 0;
  DiffFailure first;
  bool known = false;
};

int Diff(const Options& o) {
  std::vector<KnownFailure> known;
  if (!o.known.empty()) {
    auto k = carve::testing::ReadKnownFailures(o.known);
    if (!k.ok()) {
      std::cerr << "carve-random: " << k.status().message() << "\n";
      return 1;
    }
    known = *std::move(k);
  }
  carve::testing::DiffOptions d;
  d.backends = o.backends;
  char tmpl[] = "/tmp/carve-random-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return Usage("cannot make a temporary directory");
  d.work_dir = tmpl;
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, ClassStats> classes;
  int64_t programs = 0, failing_programs = 0;
  for (int64_t i = 0; i < o.count; ++i) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (o.time_limit > 0 && elapsed > o.time_limit) break;
    uint64_t seed = o.seed + uint64_t(i);
    carve::testing::RandomProgram p = carve::testing::GenerateRandomProgram(seed);
    std::vector<DiffFailure> failures = carve::testing::RunDifferential(p, d);
    ++programs;
    if (!failures.empty()) ++failing_programs;
    for (const DiffFailure& f : failures) {
      const std::string command =
          o.keep.empty() ? f.command
                         : carve::testing::KeepFailingProgram(o.keep, seed, d.work_dir, p.text,
                                                              f.command);
      ClassStats& c = classes[f.Signature()];
      if (c.count++ == 0) {
        c.first_seed = seed;
        c.first = f;
        c.known = carve::testing::MatchKnown(known, f) != nullptr;
        if (!o.quiet || !c.known) {
          std::cout << fmt::format("{} class: {}\n  seed {}: {}\n  {}\n",
                                   c.known ? "known" : "NEW", f.Signature(), seed, f.symptom,
                                   command);
        }
      }
    }
  }
  fs::remove_all(d.work_dir);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int64_t unknown = 0;
  std::cout << fmt::format("\n{} programs (seeds {}..{}) in {:.1f} s; {} with failures; {} classes\n",
                           programs, o.seed, o.seed + uint64_t(programs) - 1, elapsed,
                           failing_programs, classes.size());
  for (const auto& [sig, c] : classes) {
    std::cout << fmt::format("  {:6} x {} (first seed {}){}\n", c.count, sig, c.first_seed,
                             c.known ? " [known]" : "");
    if (!c.known) unknown += c.count;
  }
  for (const KnownFailure& k : known) {
    bool hit = false;
    for (const auto& [sig, c] : classes) hit |= std::regex_search(sig, k.regex);
    if (!hit) std::cout << "  known class not seen: " << k.pattern << "\n";
  }
  if (unknown > 0) {
    std::cout << fmt::format("FAIL: {} failures in no known class\n", unknown);
    return 1;
  }
  std::cout << "OK: no failure outside the known classes\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string error;
  if (!ParseOptions(argc, argv, o, error)) return Usage(error);
  return o.diff ? Diff(o) : Generate(o);
}
