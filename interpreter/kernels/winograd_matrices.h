// TVM's Winograd transform matrices (topi/nn/winograd_util.py), shared by
// the 2-d and 3-d Winograd kernels (winograd.cc, winograd3d.cc).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve::nn_kernels {

// Row-major matrices of TVM's F(m, r): A is alpha x m, B alpha x alpha,
// G alpha x r, with alpha = m + r - 1.
struct WinogradMatrices {
  int m = 0, r = 0, alpha = 0;
  std::vector<double> a, b, g;
};

// The matrices for tile size m (2..8) and kernel size r (3..7), in double;
// an error for sizes TVM has no interpolation points for.
absl::StatusOr<WinogradMatrices> MakeWinogradMatrices(const KernelContext& ctx, int m, int r);

// A matrix rounded to T (TVM's const_matrix in the compute dtype).
template <typename T>
std::vector<T> Rounded(const std::vector<double>& m) {
  return std::vector<T>(m.begin(), m.end());
}

// Calls f.template operator()<T>() with the type a Winograd kernel computes
// in: float for float16 / float32 tensors, double for float64.
template <typename F>
absl::Status VisitWinogradFloat(const KernelContext& ctx, DataType dtype, F&& f) {
  if (dtype == DataType::Float(32) || dtype == DataType::Float(16)) {
    return f.template operator()<float>();
  }
  if (dtype == DataType::Float(64)) return f.template operator()<double>();
  return KernelError(ctx, "Winograd convolution needs float tensors, got {}", dtype.ToString());
}

}  // namespace carve::nn_kernels
