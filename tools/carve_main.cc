// The carve command-line tool.
#include <malloc.h>

#include <limits>
#include <string>
#include <vector>

#include "tools/cli/cli.h"

// carve is a batch tool whose passes build and drop whole-graph tables
// (memo maps, node arrays) one after another. glibc serves every block above
// its mmap threshold (at most 32 MB) with a fresh mapping and unmaps it on
// free, so on a 1M-op graph each pass faulted its tables in again,
// zero-filled: 1.7 M minor faults and 7 s of system time for `carve opt`
// on the BYOC pipeline (bench: docs/performance.md). Keeping large blocks on
// the heap and never trimming it lets the next pass reuse the memory
// (0.56 M faults, 2 s). Peak RSS grows by about 15%; the process is short-lived.
static void KeepFreedMemoryForReuse() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

int main(int argc, char** argv) {
  KeepFreedMemoryForReuse();
  std::vector<std::string> args(argv + 1, argv + argc);
  carve::cli::Env env = carve::cli::RealEnv();
  return carve::cli::RunCarve(args, env);
}
