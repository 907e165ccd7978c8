// The world a carve command runs in: its streams and file access. The CLI
// binary uses the real file system; the golden-test runner substitutes
// in-memory inputs and captures the outputs, so tests run in process.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace carve::cli {

struct Env {
  std::istream* in = nullptr;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  // Reads a whole file ("-" reads `in`).
  std::function<absl::StatusOr<std::string>(const std::string& path)> read_file;
  // Writes a whole file ("-" writes `out`).
  std::function<absl::Status(const std::string& path, const std::string& text)> write_file;
};

// An Env on the process's streams and file system.
Env RealEnv();

// Reads `path` through `env` ("-" = standard input).
absl::StatusOr<std::string> ReadInput(const Env& env, const std::string& path);

}  // namespace carve::cli
