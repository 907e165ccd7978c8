// Inputs of `carve run`: from .npy files, a params directory, or a seeded
// generator for the parameters given neither.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/ndarray.h"

namespace carve::cli {

struct RunInputOptions {
  std::vector<std::string> inputs;  // "NAME=path.npy"
  std::string params_dir;           // DIR/NAME.npy binds %NAME
  uint64_t seed = 0;
};

// One tensor per parameter of `main`, in order. Generated values are
// uniform in [-1, 1) for floats, [0, 10) for integers, fair coins for bool,
// from a generator seeded with `seed` and advanced per parameter, so the
// same seed gives the same inputs on every machine. A float parameter that
// @main passes as the variance of an nn.batch_norm (an argument the op
// registry names `moving_var`) is
// drawn from [0.5, 1.5) instead: a variance is positive, and a negative one
// would turn the whole output into NaN.
absl::StatusOr<std::vector<NDArray>> PrepareRunInputs(const Function& main,
                                                      const RunInputOptions& options);

}  // namespace carve::cli
