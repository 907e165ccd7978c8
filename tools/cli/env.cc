#include "tools/cli/env.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fmt/format.h"

namespace carve::cli {

Env RealEnv() {
  Env env;
  env.in = &std::cin;
  env.out = &std::cout;
  env.err = &std::cerr;
  env.read_file = [](const std::string& path) -> absl::StatusOr<std::string> {
    if (path == "-") {
      std::ostringstream ss;
      ss << std::cin.rdbuf();
      return ss.str();
    }
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      return absl::NotFoundError(
          fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad()) return absl::DataLossError(fmt::format("error reading '{}'", path));
    return ss.str();
  };
  env.write_file = [](const std::string& path, const std::string& text) -> absl::Status {
    if (path == "-") {
      std::cout << text;
      return absl::OkStatus();
    }
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) {
      return absl::PermissionDeniedError(
          fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
    f << text;
    f.close();
    if (!f) return absl::DataLossError(fmt::format("error writing '{}'", path));
    return absl::OkStatus();
  };
  return env;
}

absl::StatusOr<std::string> ReadInput(const Env& env, const std::string& path) {
  return env.read_file(path);
}

}  // namespace carve::cli
