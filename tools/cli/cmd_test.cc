// `carve test PATH... [--update] [--check-prefix P]`: the golden-file runner.
#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <optional>

#include "fmt/format.h"
#include "tools/cli/cli.h"
#include "tools/cli/filecheck.h"
#include "tools/cli/golden.h"

namespace carve::cli {
namespace {

// "a,b" in each --check-prefix option -> {"a", "b"}.
std::vector<std::string> CheckPrefixes(const ParsedArgs& args) {
  std::vector<std::string> prefixes;
  for (const std::string& list : args.GetAll("--check-prefix")) {
    for (size_t b = 0; b <= list.size();) {
      size_t e = list.find(',', b);
      if (e == std::string::npos) e = list.size();
      prefixes.push_back(list.substr(b, e - b));
      b = e + 1;
    }
  }
  return prefixes;
}

// The runner's options from the command line; an error is a usage error
// (its message without the command's name).
absl::StatusOr<GoldenOptions> ParseTestOptions(const ParsedArgs& args) {
  GoldenOptions options;
  options.update = args.Has("--update");
  options.shared_dir = args.GetOr("--shared", "");
  if (std::error_code ec; !options.shared_dir.empty() &&
                          !std::filesystem::is_directory(options.shared_dir, ec)) {
    return absl::InvalidArgumentError(
        fmt::format("--shared: '{}' is not a directory", options.shared_dir));
  }
  options.check_prefixes = CheckPrefixes(args);
  // Validated here, so that a bad prefix is a usage error rather than a
  // failure of every case.
  filecheck::CheckOptions check;
  check.check_prefixes = options.check_prefixes;
  check.allow_unused_prefixes = true;
  if (absl::StatusOr<filecheck::CheckFile> probe = filecheck::CheckFile::Parse("-", "", check);
      !probe.ok()) {
    std::string message(probe.status().message());
    if (message.starts_with("error: ")) message.erase(0, 7);  // FileCheck's form
    while (message.ends_with('\n')) message.pop_back();
    return absl::InvalidArgumentError("--check-prefix: " + message);
  }
  for (const std::string& path : args.positional()) {
    // It read as a missing file named '-' ("cannot read '-'").
    if (path == "-") {
      return absl::InvalidArgumentError(
          "'-' (standard input) cannot be a golden file: its RUN lines name files "
          "by %s, %S and %t; give the file's PATH");
    }
  }
  return options;
}

// Counts over the golden files run so far.
struct Tally {
  int files = 0, cases = 0, failed_cases = 0;
  int passed() const { return cases - std::min(cases, failed_cases); }
};

// Runs the golden files at `path` (a file or a folder), reporting failures
// as they come. Returns the exit status to stop with (no golden file there,
// or Ctrl-C).
std::optional<int> RunGoldenPath(const std::string& path, const GoldenOptions& options, Env& env,
                                 Tally& tally) {
  std::vector<std::string> found = FindGoldenFiles(path);
  if (found.empty()) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    *env.err << (exists ? fmt::format("carve test: no golden files under '{}'\n", path)
                        : fmt::format("carve test: cannot read '{}': {}\n", path,
                                      std::strerror(ENOENT)));
    return kExitUserError;
  }
  for (const std::string& file : found) {
    GoldenResult r = RunGoldenFile(file, options, env);
    ++tally.files;
    tally.cases += r.cases;
    tally.failed_cases += r.failed;
    if (r.failed) *env.err << r.report;
    if (r.updated) *env.out << fmt::format("updated {}.expected\n", file);
    if (r.interrupted) {
      // Ctrl-C: what ran is reported; the rest did not run.
      *env.err << fmt::format("carve test: interrupted in {}: {} passed, {} failed so far\n", file,
                              tally.passed(), tally.failed_cases);
      return kExitInterrupted;
    }
  }
  return std::nullopt;
}

int RunTest(const ParsedArgs& args, Env& env) {
  if (args.positional().empty()) {
    return UsageError(env, "test", "expected at least one PATH");
  }
  absl::StatusOr<GoldenOptions> options = ParseTestOptions(args);
  if (!options.ok()) return UsageError(env, "test", std::string(options.status().message()));
  Tally tally;
  for (const std::string& path : args.positional()) {
    if (std::optional<int> stop = RunGoldenPath(path, *options, env, tally)) return *stop;
  }
  *env.out << fmt::format("golden: {} passed, {} failed ({} files)\n", tally.passed(),
                          tally.failed_cases, tally.files);
  return tally.failed_cases == 0 ? kExitOk : kExitUserError;
}

}  // namespace

void AddTestCommands(std::vector<Command>& commands) {
  commands.push_back(Command{
      "test",
      "carve test PATH... [--update] [--check-prefix P[,Q...]]",
      "run golden-file tests (see docs/golden-tests.md)",
      {{"--update", false, false, "", "rewrite the .expected files with the actual outputs"},
       {"--shared", true, false, "", "directory substituted for %shared (default: auto)"},
       {"--check-prefix", true, true, "",
        "check prefix(es) for RUN lines without their own FileCheck (default: CHECK)"}},
      RunTest});
  commands.back().cancellable = true;
}

}  // namespace carve::cli
