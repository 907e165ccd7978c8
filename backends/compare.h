// Differential runs: a module evaluated as is on the reference kernels and
// partitioned for backends on their runtimes (backends/runtime: the JSON
// codegen's graphs on oneDNN or the fused Eigen kernels), with the largest
// absolute and relative error of every output and of every composite. Each
// composite is compared on the inputs it actually received: the backend
// kernel's output against the composite's Relay body run on the reference
// kernels. What `carve run --compare` prints and carve.compare returns.
//
// An error is within tolerance as numpy's allclose has it (|x - ref| <=
// atol + rtol * |ref|) or, for floats, when |x - ref| <= rtol * max|ref|:
// reductions round in proportion to their terms, not to their result.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "ir/ndarray.h"
#include "passes/bind_params.h"
#include "passes/target.h"

namespace carve {

struct CompareOptions {
  // Tolerances; unset ones take the default of the compared tensor's dtype
  // (float32: rtol 1e-4, atol 1e-5; float64 1e-9 / 1e-12; float16 1e-2 /
  // 1e-3; integers: 0 / 1).
  std::optional<double> rtol, atol;
  // Bound as constants before partitioning (TVM's `params`).
  ParamMap params;
};

// The largest errors of one tensor, or of several merged.
struct ErrorStats {
  double max_abs = 0, max_rel = 0;
  bool within = true;
  int64_t count = 0;  // comparisons merged in

  void Merge(const ErrorStats& other);
};

struct OutputComparison {
  std::string type;  // "Tensor[(1, 10), float32]"
  ErrorStats error;
};

struct CompositeComparison {
  std::string name;  // the Composite attribute; error.count = calls
  ErrorStats error;
};

struct CompareReport {
  std::string backends;  // "dnnl" or "dnnl,bnns"
  Module partitioned;
  size_t offloaded = 0;  // functions with a Compiler attribute
  // Set when the comparison ran on another form of the module than given
  // (the graph-normal form when lets left region inputs free), saying so.
  std::string note;
  std::vector<OutputComparison> outputs;        // in output order
  std::vector<CompositeComparison> composites;  // by name
  bool ok = true;  // every error within tolerance
};

// Partitions `mod` (typed, with @main) for `backends` and runs both on
// `inputs` (one tensor per parameter of @main, by name).
absl::StatusOr<CompareReport> CompareWithBackends(const Module& mod,
                                                  const std::vector<TargetSpecPtr>& backends,
                                                  const std::map<std::string, NDArray>& inputs,
                                                  const CompareOptions& options = {});

// The report as `carve run --compare` prints it, without its last line
// ("compare: ...", "outputs:" and "composites:" sections).
std::string RenderCompareReport(const CompareReport& report);

}  // namespace carve
