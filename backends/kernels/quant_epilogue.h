// The output stage of a quantized composite (qnn.conv2d / qnn.dense ->
// [bias] -> [relu | clip] -> qnn.requantize) in one pass over the int32
// accumulator, as ACL's and NNAPI's quantized convolutions do it:
//
//   v    = acc + bias[c]                       (int32)
//   v    = act(v)                              (relu: max(v, 0); clip: clamp)
//   real = (v - in_zp) * in_scale[c] / out_scale
//   out  = saturate(round(real) + out_zp)      (out dtype of the node)
//
// with in_scale one value or one per output channel.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "backends/json/json_graph.h"
#include "backends/kernels/fused_kernels.h"
#include "backends/kernels/fusion.h"
#include "ir/ndarray.h"

namespace carve {

class QuantEpilogue {
 public:
  RoundingMode rounding = RoundingMode::kHalfAwayFromZero;

  // Checks the chain (relu / clip activations only) and records where the
  // bias and the requantize parameters are.
  absl::Status Prepare(const FusionSpec& spec, const JsonNode& node, int64_t channel_axis);
  // The requantized output of `acc` (int32).
  absl::StatusOr<NDArray> Apply(const NDArray& acc, std::span<const NDArray> inputs,
                                DataType out_dtype) const;

 private:
  FusionSpec spec_;
  int64_t channel_axis_ = 1;
};

}  // namespace carve
