// Reading a whole file in tests: one helper instead of a copy per test file.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace carve::testing_util {

// The bytes of the file at `path` ("" when it cannot be opened: the test's
// own comparison then reports the difference).
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace carve::testing_util
