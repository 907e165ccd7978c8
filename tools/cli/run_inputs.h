// Inputs of `carve run`: from .npy files, a params directory, or a seeded
// generator for the parameters given neither.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/ndarray.h"

namespace carve::cli {

// The distribution of generated float inputs (`--input-dist`).
enum class InputDist {
  kUniform,  // uniform in [-1, 1): the default
  kNormal,   // standard normal, N(0, 1)
  kOnes,     // every element 1 (integers 1, bools true)
};

// "uniform" (also "uniform[-1,1)"), "normal", "ones"; nullopt otherwise.
std::optional<InputDist> ParseInputDist(const std::string& name);
// The distribution as the report names it: "uniform[-1,1)", "normal(0,1)", "ones".
std::string InputDistName(InputDist dist);

struct RunInputOptions {
  std::vector<std::string> inputs;  // "NAME=path.npy"
  std::string params_dir;           // DIR/NAME.npy binds %NAME
  uint64_t seed = 0;
  InputDist dist = InputDist::kUniform;
  // The largest input to generate, in bytes (0 = MaxTensorBytes(),
  // ir/tensor_limit.h).
  int64_t max_tensor_bytes = 0;
  // Reads an --input file (`-` = standard input: the command's Env); unset,
  // files are read from the file system.
  std::function<absl::StatusOr<std::string>(const std::string& path)> read_file;
};

// The `--input NAME=FILE.npy` values as NAME -> FILE (a leading `%` of NAME
// dropped). InvalidArgument for a value of another form and for a NAME
// given twice (one of the files would be ignored).
absl::StatusOr<std::map<std::string, std::string>> ParseInputSpecs(
    const std::vector<std::string>& specs);

// OK when `dir` is a directory whose every .npy file names a parameter of
// `main` (a misspelt file would otherwise leave its parameter random and
// the run would answer for other weights); else an error naming the file,
// the closest parameter and the known ones.
absl::Status CheckParamsDir(const std::string& dir, const Function& main);

// One tensor per parameter of `main`, in order. Generated values are, by
// default (InputDist::kUniform), uniform in [-1, 1) for floats, [0, 10) for
// integers, fair coins for bool; kNormal draws floats from N(0, 1) (integers
// and bools as kUniform); kOnes makes every element 1;
// from a generator seeded with `seed` and advanced per parameter, so the
// same seed gives the same inputs on every machine. A float parameter that
// @main passes as the variance of an nn.batch_norm (an argument the op
// registry names `moving_var`) is
// drawn from [0.5, 1.5) instead: a variance is positive, and a negative one
// would turn the whole output into NaN.
// Errors: an --input or --params file naming no parameter, a missing
// --params directory, a generated input over the tensor limit.
absl::StatusOr<std::vector<NDArray>> PrepareRunInputs(const Function& main,
                                                      const RunInputOptions& options);

}  // namespace carve::cli
