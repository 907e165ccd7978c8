// Helpers for the backend tests: typed modules from Relay text, seeded random
// tensors, tensor comparison, and running a module with and without the
// backend runtimes.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "interpreter/evaluator.h"
#include "ir/ndarray.h"
#include "passes/infer/infer_type.h"
#include "support/diagnostics.h"

namespace carve::testing {

// Parses and types `text` (the `#[version]` header is added when missing).
inline Module ParseTyped(std::string_view text) {
  std::string source = text.starts_with("#[version") ? std::string(text)
                                                      : "#[version = \"0.0.5\"]\n" + std::string(text);
  absl::StatusOr<Module> mod = ParseModule("test.relay", source);
  EXPECT_TRUE(mod.ok()) << RenderStatus(mod.status());
  if (!mod.ok()) return Module();
  absl::Status typed = InferType(*mod);
  EXPECT_TRUE(typed.ok()) << RenderStatus(typed);
  return *mod;
}

inline std::string Show(const Module& mod) {
  PrintOptions options;
  options.show_metadata = false;
  return PrintModule(mod, options);
}

// A float32 tensor of `shape` with values uniform in [lo, hi).
inline NDArray RandomF32(std::vector<int64_t> shape, uint32_t seed, float lo = -1, float hi = 1) {
  NDArray t = NDArray::Empty(DataType::Float(32), shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

// A tensor of float `dtype` (float16/32/64) with values uniform in [lo, hi).
inline NDArray RandomFloats(DataType dtype, std::vector<int64_t> shape, uint32_t seed,
                            float lo = -1, float hi = 1) {
  if (dtype == DataType::Float(32)) return RandomF32(std::move(shape), seed, lo, hi);
  NDArray t = NDArray::Empty(dtype, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetFromDouble(i, dist(gen));
  return t;
}

// A tensor of `dtype` with integers uniform in [lo, hi].
inline NDArray RandomInts(DataType dtype, std::vector<int64_t> shape, uint32_t seed, int lo, int hi) {
  NDArray t = NDArray::Empty(dtype, shape);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetFromDouble(i, dist(gen));
  return t;
}

// One random tensor per parameter of @main: floats in [-1, 1) (scalars, which
// are scales and activation constants, in [0.1, 1)), integers in [0, 10].
inline std::vector<NDArray> RandomInputs(const Module& mod, uint32_t seed = 1) {
  std::vector<NDArray> out;
  const Function* main = mod.Lookup("main");
  for (const Var* p : main->params()) {
    const TensorType* t = DynCast<TensorType>(p->checked_type());
    std::vector<int64_t> shape;
    for (const Dim& d : t->shape()) shape.push_back(d.value);
    if (!t->dtype().is_float()) {
      out.push_back(RandomInts(t->dtype(), shape, seed++, 0, 10));
    } else {
      out.push_back(shape.empty() ? RandomFloats(t->dtype(), shape, seed++, 0.1f, 1.0f)
                                  : RandomFloats(t->dtype(), shape, seed++));
    }
  }
  return out;
}

// Largest |a - b| / (atol + rtol |b|); <= 1 means allclose.
inline double CloseRatio(const NDArray& a, const NDArray& b, double rtol, double atol) {
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_EQ(a.dtype(), b.dtype());
  double worst = 0;
  for (int64_t i = 0; i < a.num_elements() && i < b.num_elements(); ++i) {
    double x = a.GetAsDouble(i), y = b.GetAsDouble(i);
    worst = std::max(worst, std::abs(x - y) / (atol + rtol * std::abs(y)));
  }
  return worst;
}

// Runs @main with `registry` (nullptr: reference kernels only).
inline std::vector<NDArray> RunMain(const Module& mod, std::span<const NDArray> inputs,
                                    const ExternalRegistry* registry) {
  InterpreterOptions options;
  options.external = registry;
  Interpreter interpreter(mod, options);
  absl::StatusOr<std::vector<NDArray>> out = interpreter.RunFlat("main", inputs);
  EXPECT_TRUE(out.ok()) << RenderStatus(out.status());
  return out.ok() ? *out : std::vector<NDArray>{};
}

}  // namespace carve::testing
