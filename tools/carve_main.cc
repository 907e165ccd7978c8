// The carve command-line tool.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "support/build_info.h"
#include "support/malloc_policy.h"
#include "support/printable.h"
#include "tools/cli/cli.h"
#include "tools/cli/openmp_wait_policy.h"

int main(int argc, char** argv) {
  // A binary built with -march=native and copied to an older CPU: say so
  // rather than die of SIGILL somewhere later.
  if (std::vector<std::string_view> missing = carve::MissingCpuFeatures(); !missing.empty()) {
    std::cerr << fmt::format(
        "carve: error: this binary was compiled for {} ({}) and this CPU lacks {}; rebuild "
        "carve on this machine or configure it with -DCARVE_NATIVE=OFF\n",
        carve::GetBuildInfo().target_arch, fmt::join(carve::GetBuildInfo().cpu_features, " "),
        fmt::join(missing, " "));
    return 1;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && carve::cli::MayRunOpenMpThreads(args)) {
    // See tools/cli/openmp_wait_policy.h. execv returns only on failure
    // (no /proc): then run as is, with libgomp's default policy.
    setenv("OMP_WAIT_POLICY", "passive", /*overwrite=*/1);
    execv("/proc/self/exe", argv);
  }
  carve::KeepFreedMemoryForReuse();  // see support/malloc_policy.h
  if (!args.empty() && args[0] == "--version") {
    if (args.size() > 1) {  // it was "unknown command '--version'"
      std::cerr << fmt::format("carve: --version takes no arguments, got '{}'\n",
                               carve::EscapeNonPrintable(args[1]));
      return 2;
    }
    std::cout << carve::BuildInfoText();
    return 0;
  }
  // Last line of defence only: bad input is reported as an absl::Status
  // with a source span; an exception reaching here is a carve bug, and must
  // end as an error exit, not an abort.
  try {
    carve::cli::Env env = carve::cli::RealEnv();
    return carve::cli::RunCarve(args, env);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("carve: internal error: {}\n",
                             carve::EscapeNonPrintable(e.what(), /*keep_line_breaks=*/true));
    return 1;
  }
}
