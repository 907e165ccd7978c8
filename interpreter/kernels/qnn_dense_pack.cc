// qnn.contrib_dense_pack with the compute TVM v0.16 has for it, the only
// one (topi/hexagon/qnn/nn.py qnn_dense_pack_vrmpy; TVM's canonicalization
// of the op is a LOG(FATAL) and the other targets have no strategy): uint8
// data (M, K), an (u)int8 weight in layout NC32n4c, (N / 32, K / 4, 32, 4),
// scalar zero points. Each operand less its zero point is cast back to its
// own dtype (so it wraps modulo 256, as the Hexagon compute does), then
// out[m, n] = sum over k of data[m, k] * weight[n / 32, k / 4, n % 32,
// k % 4] in int32.
#include <cstdint>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// x - zp cast back to x's 8-bit dtype, as an int32.
int32_t ShiftWrapped(int64_t x, int64_t zp, bool is_signed) {
  const uint8_t bits = uint8_t(uint64_t(x - zp));
  return is_signed ? int32_t(int8_t(bits)) : int32_t(bits);
}

absl::StatusOr<std::vector<NDArray>> QnnDensePack(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 6));
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  const DataType wt = weight.dtype();
  if (AttrString(ctx, "weight_layout", "NC") != "NC32n4c" || data.dtype() != DataType::UInt(8) ||
      !(wt == DataType::Int(8) || wt == DataType::UInt(8))) {
    return KernelError(ctx,
                       "TVM computes it only for uint8 data and an (u)int8 weight in layout "
                       "NC32n4c (Hexagon's vrmpy form)");
  }
  if (data.rank() != 2 || weight.rank() != 4 || weight.shape()[2] != 32 ||
      weight.shape()[3] != 4 || weight.shape()[1] * 4 < data.shape()[1]) {
    return KernelError(ctx, "expected data (M, K) and a weight (N / 32, K / 4, 32, 4)");
  }
  if (ctx.inputs[2].num_elements() != 1 || ctx.inputs[3].num_elements() != 1) {
    return KernelError(ctx, "TVM's compute takes scalar zero points");
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.dtype() != DataType::Int(32)) {
    return KernelError(ctx, "TVM's compute produces int32 without requantization parameters");
  }
  const int64_t izp = int64_t(ctx.inputs[2].GetAsDouble(0));
  const int64_t kzp = int64_t(ctx.inputs[3].GetAsDouble(0));
  const int64_t m_size = data.shape()[0], k_size = data.shape()[1];
  const int64_t n_size = out.shape()[1], k_blocks = weight.shape()[1];
  const bool w_signed = wt == DataType::Int(8);
  const uint8_t* d = data.data<uint8_t>();
  const uint8_t* w = static_cast<const uint8_t*>(weight.raw_data());
  int32_t* y = out.data<int32_t>();
  for (int64_t m = 0; m < m_size; ++m) {
    for (int64_t n = 0; n < n_size; ++n) {
      uint32_t acc = 0;  // int32 sums wrap
      for (int64_t k = 0; k < k_size; ++k) {
        const int64_t wi = ((n / 32 * k_blocks + k / 4) * 32 + n % 32) * 4 + k % 4;
        const int64_t wv = w_signed ? int64_t(int8_t(w[wi])) : int64_t(w[wi]);
        acc += uint32_t(ShiftWrapped(d[m * k_size + k], izp, false) *
                        ShiftWrapped(wv, kzp, w_signed));
      }
      y[m * n_size + n] = int32_t(acc);
    }
  }
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("qnn.contrib_dense_pack", carve::nn_kernels::QnnDensePack);
