// Where the ONNX import tests' small models and tensors live
// (tests/frontend_onnx/data, made by its make_models.py): one definition for
// every test file that reads them.
#pragma once

#include <filesystem>
#include <string>

namespace carve::testing_util {

// tests/CMakeLists.txt defines CARVE_SOURCE_DIR for every test, so the data
// is found wherever the build directory is.
inline std::filesystem::path OnnxTestData(const std::string& name) {
  return std::filesystem::path(CARVE_SOURCE_DIR) / "tests/frontend_onnx/data" / name;
}

}  // namespace carve::testing_util
