// `carve test PATH... [--update] [--check-prefix P]`: the golden-file runner.
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "fmt/format.h"
#include "tools/cli/cli.h"
#include "tools/cli/filecheck.h"
#include "tools/cli/golden.h"

namespace carve::cli {
namespace {

int RunTest(const ParsedArgs& args, Env& env) {
  if (args.positional().empty()) {
    return UsageError(env, "test", "expected at least one PATH");
  }
  GoldenOptions options;
  options.update = args.Has("--update");
  options.shared_dir = args.GetOr("--shared", "");
  if (std::error_code ec; !options.shared_dir.empty() &&
                          !std::filesystem::is_directory(options.shared_dir, ec)) {
    return UsageError(env, "test",
                      fmt::format("--shared: '{}' is not a directory", options.shared_dir));
  }
  for (const std::string& list : args.GetAll("--check-prefix")) {
    for (size_t b = 0; b <= list.size();) {
      size_t e = list.find(',', b);
      if (e == std::string::npos) e = list.size();
      options.check_prefixes.push_back(list.substr(b, e - b));
      b = e + 1;
    }
  }
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
    return UsageError(env, "test", "--check-prefix: " + message);
  }
  int files = 0, cases = 0, failed_cases = 0, failed_files = 0;
  for (const std::string& path : args.positional()) {
    // It read as a missing file named '-' ("cannot read '-'").
    if (path == "-") {
      return UsageError(env, "test",
                        "'-' (standard input) cannot be a golden file: its RUN lines name files "
                        "by %s, %S and %t; give the file's PATH");
    }
  }
  for (const std::string& path : args.positional()) {
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
      ++files;
      cases += r.cases;
      failed_cases += r.failed;
      if (r.failed) {
        ++failed_files;
        *env.err << r.report;
      }
      if (r.updated) *env.out << fmt::format("updated {}.expected\n", file);
      if (r.interrupted) {
        // Ctrl-C: what ran is reported; the rest did not run.
        *env.err << fmt::format(
            "carve test: interrupted in {}: {} passed, {} failed so far\n", file,
            cases - std::min(cases, failed_cases), failed_cases);
        return kExitInterrupted;
      }
    }
  }
  *env.out << fmt::format("golden: {} passed, {} failed ({} files)\n",
                          cases - std::min(cases, failed_cases), failed_cases, files);
  return failed_cases == 0 ? kExitOk : kExitUserError;
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
