// `carve test PATH... [--update]`: the golden-file runner.
#include "fmt/format.h"
#include "tools/cli/cli.h"
#include "tools/cli/golden.h"

namespace carve::cli {
namespace {

int RunTest(const ParsedArgs& args, Env& env) {
  if (args.positional().empty()) {
    *env.err << "carve test: expected at least one PATH\n";
    return kExitUsage;
  }
  GoldenOptions options;
  options.update = args.Has("--update");
  options.shared_dir = args.GetOr("--shared", "");
  int files = 0, cases = 0, failed_cases = 0, failed_files = 0;
  for (const std::string& path : args.positional()) {
    std::vector<std::string> found = FindGoldenFiles(path);
    if (found.empty()) {
      *env.err << fmt::format("carve test: no golden files under '{}'\n", path);
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
      "carve test PATH... [--update]",
      "run golden-file tests (see docs/golden-tests.md)",
      {{"--update", false, false, "", "rewrite the .expected files with the actual outputs"},
       {"--shared", true, false, "", "directory substituted for %shared (default: auto)"}},
      RunTest});
}

}  // namespace carve::cli
