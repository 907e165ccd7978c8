// The carve command-line tool.
#include <string>
#include <vector>

#include "support/malloc_policy.h"
#include "tools/cli/cli.h"

int main(int argc, char** argv) {
  carve::KeepFreedMemoryForReuse();  // see support/malloc_policy.h
  std::vector<std::string> args(argv + 1, argv + argc);
  carve::cli::Env env = carve::cli::RealEnv();
  return carve::cli::RunCarve(args, env);
}
