// Where the ONNX import tests' small models and tensors live
// (tests/frontend_onnx/data, made by its make_models.py), and the float
// tensors the tests feed and read: one definition for every test file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ir/ndarray.h"

namespace carve::testing_util {

// tests/CMakeLists.txt defines CARVE_SOURCE_DIR for every test, so the data
// is found wherever the build directory is.
inline std::filesystem::path OnnxTestData(const std::string& name) {
  return std::filesystem::path(CARVE_SOURCE_DIR) / "tests/frontend_onnx/data" / name;
}

// 0, 1, 2, ... in a float32 tensor of `shape`.
inline NDArray Iota(const std::vector<int64_t>& shape) {
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) a.data<float>()[i] = float(i);
  return a;
}

// The elements of a float32 tensor.
inline std::vector<float> Values(const NDArray& a) {
  return std::vector<float>(a.data<float>(), a.data<float>() + a.num_elements());
}

}  // namespace carve::testing_util
