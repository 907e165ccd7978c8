// NumPy broadcasting for elementwise kernels: the output shape of a set of
// operand shapes, and a walk over the output in row-major order, one
// contiguous run along the innermost (collapsed) axis at a time.
//
// Adjacent axes are collapsed whenever every operand is laid out the same
// way across them, so the common cases become a single long run: same
// shapes (one run over everything), a bias over channels in NCHW (runs of
// H*W), a scalar operand (stride 0).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace carve {

// The broadcast of `a` and `b` (right-aligned; 1 stretches), or an error
// "cannot broadcast (2, 3) and (4,)".
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(std::span<const int64_t> a,
                                                     std::span<const int64_t> b);

// How each operand is read while walking a broadcast output.
class BroadcastPlan {
 public:
  static constexpr int kMaxOperands = 4;

  // Plans reading `operands` (each broadcastable to `out_shape`) while
  // writing `out_shape`. Fails when an operand does not broadcast.
  static absl::StatusOr<BroadcastPlan> Make(
      std::span<const int64_t> out_shape, std::initializer_list<std::span<const int64_t>> operands);

  int num_operands() const { return num_operands_; }
  int64_t num_elements() const { return num_elements_; }

  // Calls `run(out_offset, offsets, n, strides)` for each innermost run of
  // `n` output elements starting at `out_offset`. `offsets[k]` is operand k's
  // element offset for the first element and `strides[k]` (0 or a positive
  // stride) its step along the run.
  template <typename F>
  void ForEachRun(F&& run) const;

 private:
  int num_operands_ = 0;
  int64_t num_elements_ = 0;
  // Collapsed output dims, outermost first; the last one is the run length.
  std::vector<int64_t> dims_;
  // strides_[k][d]: element stride of operand k along collapsed dim d.
  std::vector<int64_t> strides_[kMaxOperands];
};

template <typename F>
void BroadcastPlan::ForEachRun(F&& run) const {
  if (num_elements_ == 0) return;
  const size_t rank = dims_.size();
  const int64_t inner = dims_[rank - 1];
  int64_t offsets[kMaxOperands] = {};
  int64_t inner_strides[kMaxOperands] = {};
  for (int k = 0; k < num_operands_; ++k) inner_strides[k] = strides_[k][rank - 1];
  std::vector<int64_t> index(rank, 0);
  for (int64_t out = 0; out < num_elements_; out += inner) {
    run(out, static_cast<const int64_t*>(offsets), inner,
        static_cast<const int64_t*>(inner_strides));
    // Odometer over the outer dims, updating operand offsets incrementally.
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < dims_[d]) {
        for (int k = 0; k < num_operands_; ++k) offsets[k] += strides_[k][d];
        break;
      }
      index[d] = 0;
      for (int k = 0; k < num_operands_; ++k) offsets[k] -= strides_[k][d] * (dims_[d] - 1);
    }
  }
}

}  // namespace carve
