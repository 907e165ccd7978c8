// nn.contrib_conv2d_gemm_weight_transform and
// nn.contrib_conv2d_gemm_without_weight_transform: the Arm GEMM forms of an
// NHWC conv2d (topi/nn/conv2d.py conv2d_gemm_weight_transform,
// topi/arm_cpu/conv2d_gemm.py).
//
// The transform flattens an HWIO kernel into the K x N matrix (K = KH * KW
// * IC in that order, N = OC), pads N to a multiple of tile_N and K to a
// multiple of 4 * tile_K, and cuts it into tiles: (N / tn, K / tk, tk, tn)
// holding flat[k, n] at [n / tn, k / tk, k % tk, n % tn], or for 8-bit
// integer kernels (N / tn, K / tk, tn, tk) with the last two swapped.
// The convolution is conv2d (NHWC data, the kernel recovered from its
// tiles as HWIO) through the conv2d kernel: TVM's GEMM computes the same
// sums (exact for integers, reordered for floats).
#include <string>

#include "interpreter/kernels/nn_util.h"
#include "ir/attrs.h"
#include "ir/op.h"

namespace carve::nn_kernels {
namespace {

bool IsInt8(DataType dt) { return dt.is_integral() && dt.bits == 8 && !dt.is_bool(); }

// Offset in the tiled weight of flat[k, n].
int64_t TiledOffset(int64_t k, int64_t n, int64_t k_tiles, int64_t tn, int64_t tk, bool int8) {
  const int64_t block = ((n / tn) * k_tiles + k / tk) * tn * tk;
  return block + (int8 ? (n % tn) * tk + k % tk : (k % tk) * tn + n % tn);
}

absl::StatusOr<std::vector<NDArray>> GemmWeightTransform(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& w = ctx.inputs[0];
  if (w.rank() != 4) return KernelError(ctx, "expected an HWIO kernel");
  const int64_t tn = AttrInt(ctx, "tile_N", 0), tk = AttrInt(ctx, "tile_K", 0);
  if (tn < 1 || tk < 1) return KernelError(ctx, "tile_N and tile_K must be positive");
  const int64_t kh = w.shape()[0], kw = w.shape()[1], ic = w.shape()[2], oc = w.shape()[3];
  const int64_t k = kh * kw * ic;
  const int64_t kp = (k + 4 * tk - 1) / (4 * tk) * (4 * tk);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.num_elements() != kp * ((oc + tn - 1) / tn * tn)) {
    return KernelError(ctx, "the output type does not hold the padded tiles");
  }
  const bool int8 = IsInt8(w.dtype());
  const size_t bytes = w.dtype().bytes();
  const char* src = static_cast<const char*>(w.raw_data());
  char* dst = static_cast<char*>(out.raw_data());  // zero-filled: the padding
  for (int64_t x = 0; x < k; ++x) {
    for (int64_t n = 0; n < oc; ++n) {
      // HWIO row-major is already the flat (K, N) matrix.
      std::copy_n(src + (x * oc + n) * bytes, bytes,
                  dst + TiledOffset(x, n, kp / tk, tn, tk, int8) * bytes);
    }
  }
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<std::vector<NDArray>> GemmConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& tiled = ctx.inputs[1];
  if (AttrString(ctx, "data_layout", "NCHW") != "NHWC") {
    return KernelError(ctx, "TVM computes the GEMM convolution in NHWC only");
  }
  if (AttrInt(ctx, "groups", 1) != 1) return KernelError(ctx, "TVM's GEMM convolution has one group");
  const std::optional<std::vector<int64_t>> ksize = AttrInts(ctx, "kernel_size");
  const int64_t oc = AttrInt(ctx, "channels", -1);
  if (!ksize || ksize->size() != 2 || oc < 1) {
    return KernelError(ctx, "needs kernel_size and channels (the weight is transformed)");
  }
  if (data.rank() != 4 || tiled.rank() != 4) return KernelError(ctx, "expected 4-d data and weight");
  const int64_t kh = (*ksize)[0], kw = (*ksize)[1], ic = data.shape()[3];
  const bool int8 = IsInt8(tiled.dtype());
  const int64_t tn = tiled.shape()[int8 ? 2 : 3], tk = tiled.shape()[int8 ? 3 : 2];
  const int64_t k = kh * kw * ic;
  if (tiled.shape()[0] * tn < oc || tiled.shape()[1] * tk < k) {
    return KernelError(ctx, "the tiled weight holds fewer than {} x {} values", k, oc);
  }
  NDArray hwio = NDArray::Empty(tiled.dtype(), std::vector<int64_t>{kh, kw, ic, oc});
  const size_t bytes = tiled.dtype().bytes();
  const char* src = static_cast<const char*>(tiled.raw_data());
  char* dst = static_cast<char*>(hwio.raw_data());
  for (int64_t x = 0; x < k; ++x) {
    for (int64_t n = 0; n < oc; ++n) {
      std::copy_n(src + TiledOffset(x, n, tiled.shape()[1], tn, tk, int8) * bytes, bytes,
                  dst + (x * oc + n) * bytes);
    }
  }
  const OpInfo* conv = FindOp("nn.conv2d");
  KernelFn fn = FindKernel("nn.conv2d");
  if (conv == nullptr || fn == nullptr) return KernelError(ctx, "needs the nn.conv2d kernel");
  const Attrs* attrs = WithField(ctx.attrs != nullptr ? ctx.attrs : DefaultAttrs(ctx.op->attrs),
                                 "kernel_layout", AttrValue::Str("HWIO"));
  const NDArray inputs[] = {data, hwio};
  KernelContext inner = ctx;
  inner.op = conv;
  inner.inputs = inputs;
  inner.attrs = attrs;
  return fn(inner);
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.contrib_conv2d_gemm_weight_transform",
                      carve::nn_kernels::GemmWeightTransform);
CARVE_REGISTER_KERNEL("nn.contrib_conv2d_gemm_without_weight_transform",
                      carve::nn_kernels::GemmConv2D);
