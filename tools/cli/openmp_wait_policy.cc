#include "tools/cli/openmp_wait_policy.h"

namespace carve::cli {

bool MayRunOpenMpThreads(const std::vector<std::string>& args) {
  if (args.empty()) return false;
  if (args[0] == "repl") return true;
  if (args[0] != "run") return false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--threads" && i + 1 < args.size()) return args[i + 1] != "1";
    if (args[i].starts_with("--threads=")) return args[i] != "--threads=1";
  }
  return false;
}

}  // namespace carve::cli
