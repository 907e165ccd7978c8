// The fused tail of a composite, applied in one pass over the anchor's
// output: out = act(out + bias[c] + sum). This is what makes a composite
// cheaper than its ops one by one: no intermediate tensor per op, one read
// and one write of the output.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "backends/kernels/fusion.h"
#include "ir/ndarray.h"

namespace Eigen {
class ThreadPoolDevice;
}

namespace carve {

struct Epilogue {
  // Per-channel bias (one value per channel of `channel_axis`, or one value
  // for all); undefined when absent.
  NDArray bias;
  int64_t channel_axis = 1;
  // An addend of the output's shape; undefined when absent.
  NDArray sum;
  Activation activation = Activation::kNone;
  double lo = 0, hi = 0;                  // clip
  // The constants of the GELU and mish forms (fusion.h): gelu_erf is
  // x * (erf(x / div) + add) * mul; gelu_tanh is
  // x * (tanh(c2 * (x + c1 * x^pow)) + add) * mul; mish uses `add`.
  double div = 1.4142135623730951, add = 1, mul = 0.5;
  double pow = 3, c1 = 0.044715, c2 = 0.7978845608028654;
};

// True when `e` can be applied by ApplyEpilogue to an output of `shape` and
// `dtype` (float32 or float64; bias of C or 1 elements of the same dtype; a
// sum of the same shape and dtype).
bool CanApplyEpilogue(const Epilogue& e, const std::vector<int64_t>& shape, DataType dtype);

// Applies `e` to `out` in place (see CanApplyEpilogue; other cases are an
// InvalidArgument). With a device the pass runs on its threads.
absl::Status ApplyEpilogue(const Epilogue& e, NDArray& out, const Eigen::ThreadPoolDevice* device);

// Reads the scalar constants of a GELU / mish activation (spec.scalars) into
// `e`; InvalidArgument when one is not a single number.
absl::Status ReadActivationScalars(const ActivationSpec& spec, std::span<const NDArray> inputs,
                                   Epilogue& e);

}  // namespace carve
