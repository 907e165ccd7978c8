// relay.op.annotation.simulated_quantize: the calibration op of TVM's
// quantization pass, with the compute python/tvm/relay/quantize/
// _annotate.py registers: kind IDENTITY (0) passes the data through; any
// other kind divides by dom_scale, clips to [clip_min, clip_max], rounds
// half away from zero (TVM's round) and multiplies back, in the data's
// dtype (float16 rounded after each step). TVM asserts sign = true and rounding = "round"; carve reports
// other values as errors.
#include <algorithm>
#include <cmath>

#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

absl::StatusOr<std::vector<NDArray>> SimulatedQuantize(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 4));
  if (!AttrBool(ctx, "sign", true)) return KernelError(ctx, "TVM's compute takes sign = true only");
  if (AttrString(ctx, "rounding", "round") != "round") {
    return KernelError(ctx, "TVM's compute takes rounding = \"round\" only");
  }
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (AttrInt(ctx, "kind", 0) == 0) {  // QAnnotateKind.IDENTITY
    if (out.dtype() != data.dtype() || out.shape() != data.shape()) {
      return KernelError(ctx, "the output type differs from the data's");
    }
    std::copy_n(static_cast<const char*>(data.raw_data()), data.nbytes(),
                static_cast<char*>(out.raw_data()));
    return std::vector<NDArray>{std::move(out)};
  }
  for (int i = 1; i < 4; ++i) {
    if (ctx.inputs[i].num_elements() != 1) {
      return KernelError(ctx, "dom_scale, clip_min and clip_max must be scalars");
    }
  }
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, data.dtype(), [&]<typename T>() -> absl::Status {
    using C = ComputeT<T>;
    const C scale = C(ctx.inputs[1].GetAsDouble(0));
    const C lo = C(ctx.inputs[2].GetAsDouble(0)), hi = C(ctx.inputs[3].GetAsDouble(0));
    const T* x = data.data<T>();
    T* y = out.data<T>();
    for (int64_t i = 0; i < data.num_elements(); ++i) {
      // max(min(x / s, hi), lo) as TVM lowers Min / Max: select(a < b, a,
      // b) and select(a > b, a, b), so a NaN quotient becomes clip_max.
      const C scaled = C(T(C(x[i]) / scale));
      const C below = scaled < hi ? scaled : hi;
      const C clipped = below > lo ? below : lo;
      y[i] = T(C(std::round(clipped) * scale));
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve

CARVE_REGISTER_KERNEL("relay.op.annotation.simulated_quantize", carve::SimulatedQuantize);
