// Differential runs: a module evaluated as is on the reference kernels and
// partitioned for backends on their runtimes (backends/runtime: the JSON
// codegen's graphs on oneDNN or the fused Eigen kernels), with the largest
// absolute and relative error of every output and of every composite. Each
// composite is compared on the inputs it actually received: the backend
// kernel's output against the composite's Relay body run on the reference
// kernels. What `carve run --compare` prints and carve.compare returns.
//
// Two rules, each named in the report. An element is within tolerance by the
// elementwise rule, numpy's allclose (|a - b| <= atol + rtol * |b|, a the
// backend's value, b the reference's), or, for floats only, by the norm-wise
// rule |a - b| <= rtol * max|b| (max over the tensor's finite elements):
// reductions round in proportion to their terms, not to their result. The
// report counts the elements that needed the second rule.
//
// NaN: equal when both sides are NaN; a NaN on one side only is out of
// tolerance, whichever side. The reference keeps a NaN through relu and clip
// (as Relay's semantics do) while oneDNN's eltwise kernels and TVM's own relu
// turn it into a number, so such a mismatch can be the backend's documented
// behaviour rather than a miscompile; the report counts them apart.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/runtime/call_timing.h"
#include "ir/module.h"
#include "ir/ndarray.h"
#include "passes/fold/bind_params.h"
#include "passes/byoc/partition_report.h"
#include "passes/byoc/placement_record.h"
#include "passes/byoc/target.h"

namespace carve {

struct CompareOptions {
  // Tolerances; unset ones take the default of the compared tensor's dtype
  // (float32: rtol 1e-4, atol 1e-5; float64 1e-9 / 1e-12; float16 1e-2 /
  // 1e-3; integers and booleans: exact, except integers computed by QNN ops:
  // 0 / 1, one rounding step, as TVM's qnn tests).
  std::optional<double> rtol, atol;
  // Bound as constants before partitioning (TVM's `params`).
  ParamMap params;
  // Calls of @main to time on each side (`--repeat`, `--warmup`); the
  // comparison uses the first call's results.
  RepeatOptions timing;
};

// Magnitudes beyond this make an output "explode" (a warning): random
// inputs through a deep net with random weights reach 1e8 and more, where a
// relative error says little about the backend.
inline constexpr double kExplodedMagnitude = 1e6;

// The largest errors of one tensor, or of several merged (a composite's
// calls: the worst element is the worst over all of them).
struct ErrorStats {
  double max_abs = 0, max_rel = 0;
  // Integer and boolean tensors compare exactly in their own type (through
  // double, two int64s above 2^53 could round to one value): `integral` is
  // set, `max_abs_integer` is the largest |a - b| (max_abs holds it rounded)
  // and the worst values are also kept exactly, as text.
  bool integral = false;
  uint64_t max_abs_integer = 0;
  bool within = true;
  int64_t count = 0;  // comparisons merged in

  // The tolerance applied (the last merged; one dtype per name in practice).
  double rtol = 0, atol = 0;
  bool quantized = false;        // an integer result of QNN ops: one rounding step allowed
  bool norm_rule = false;        // the norm-wise rule applies (float dtypes)
  double scale = 0;              // max|b| of the norm-wise rule (largest over merged)
  int64_t elements = 0;          // elements compared
  int64_t out_of_tolerance = 0;  // elements within neither rule
  int64_t by_norm_rule = 0;      // elements within only the norm-wise rule
  int64_t nan_one_side = 0;      // elements NaN on exactly one side (counted out)
  int64_t nonfinite_both = 0;    // elements inf or NaN on both sides
  double max_magnitude = 0;      // largest finite |value| of either side

  // The element with the largest |a - b| (a one-sided NaN before any
  // number); none when every element is equal.
  bool has_worst = false;
  std::vector<int64_t> worst_index;  // one coordinate per dimension
  int64_t worst_call = 0;            // which merged comparison (0-based)
  double worst_got = 0, worst_ref = 0;
  std::string worst_got_text, worst_ref_text;  // integral only: the exact values

  // A float tensor's magnitude beyond kExplodedMagnitude, or inf/NaN on both
  // sides. (An integer compares exactly, whatever its size.)
  bool exploded() const {
    return (norm_rule && max_magnitude > kExplodedMagnitude) || nonfinite_both > 0;
  }
  void Merge(const ErrorStats& other);
};

// The comparison of `got` (a backend's) with `ref` (the reference's), of the
// same dtype and shape, under `rtol`/`atol` (see the rules above).
absl::StatusOr<ErrorStats> CompareTensors(const NDArray& got, const NDArray& ref, double rtol,
                                          double atol);

struct OutputComparison {
  std::string type;  // "Tensor[(1, 10), float32]"
  ErrorStats error;
};

struct CompositeComparison {
  std::string name;  // the Composite attribute; error.count = calls
  ErrorStats error;
  // Largest finite |value| of the composite's inputs (over its calls).
  double input_magnitude = 0;
};

// Inputs this many times larger than a float result make its rounding, not
// a backend bug, a likely cause of a failure: sums of large terms that
// cancel keep an error relative to the terms (dcgan with random weights: a
// deconvolution of values up to 1e4 into tanh's range).
inline constexpr double kCancellationRatio = 100;

struct CompareReport {
  std::string backends;  // "dnnl" or "dnnl,bnns"
  Module partitioned;
  // Who runs each op of `partitioned` and why the others not, with the
  // pruning rules' reasons (passes/byoc/placement_record.h).
  PlacementRecord record;
  // What the preparation passes removed before partitioning (the report's
  // section of its own).
  PreparedAway prepared;
  size_t offloaded = 0;  // functions with Compiler = one of `backends`
  // Set when the comparison ran on another form of the module than given
  // (the graph-normal form when lets left region inputs free), saying so.
  std::string note;
  std::vector<OutputComparison> outputs;        // in output order
  std::vector<CompositeComparison> composites;  // by name
  // Largest finite |value| any composite received: how large values grow
  // inside the graph, where the outputs may not show it.
  double inner_magnitude = 0;
  bool ok = true;                               // every error within tolerance
  // Calls of offloaded functions on the first call of @main, and how many
  // of them agree with the reference kernels on their own arguments.
  size_t function_calls = 0, function_calls_agreeing = 0;
  // Wall time of partitioning, and of the calls of @main as is (reference
  // kernels) and partitioned (backends), per CompareOptions::timing.
  double partition_us = 0;
  CallTiming reference_timing, backend_timing;
};

// Partitions `mod` (typed, with @main) for `backends` and runs both on
// `inputs` (one tensor per parameter of @main, by name).
// Whether the outputs failed although every composite and every offloaded
// function call agrees with the reference on its own inputs: the difference
// grew in host ops (float conditioning), not in a backend.
bool GrewInHostOps(const CompareReport& report);

absl::StatusOr<CompareReport> CompareWithBackends(const Module& mod,
                                                  const std::vector<TargetSpecPtr>& backends,
                                                  const std::map<std::string, NDArray>& inputs,
                                                  const CompareOptions& options = {});

// The report as `carve run --compare` prints it, without its last line
// ("compare: ...", "outputs:" and "composites:" sections).
std::string RenderCompareReport(const CompareReport& report);

// Whether the comparison passes: every error within tolerance and, with
// `require_offload`, something offloaded.
bool ComparePassed(const CompareReport& report, bool require_offload);

// The last line: "result: ok", "result: nothing offloaded ...",
// "result: FAIL: ...".
std::string RenderCompareResult(const CompareReport& report, bool require_offload);

}  // namespace carve
