// nn.correlation (FlowNet's correlation layer) with topi's semantics
// (python/tvm/topi/nn/correlation.py at v0.16.0), NCHW only: both inputs
// are zero-padded; output channel q = (dy + r) * (2r + 1) + (dx + r), r =
// max_displacement / stride2, at (i, j) compares the kernel_size^2 patch of
// data1 at (i * stride1 + max_displacement, j * stride1 + max_displacement)
// with data2's patch displaced by (dy, dx) * stride2, summing x * y
// (is_multiply) or |x - y| over channels and the patch (order c, ky, kx),
// then divides by kernel_size^2 * channels.
#include <cmath>
#include <string>
#include <vector>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// The attributes of one correlation and the extents they give.
struct CorrelationGeometry {
  int64_t k = 1, max_disp = 1, stride1 = 1, stride2 = 1;
  int64_t pad_top = 0, pad_left = 0;
  bool multiply = true;
  int64_t batch = 0, channels = 0, h = 0, w = 0;
  int64_t radius = 0, size = 1, oh = 0, ow = 0;
};

// The kernel size, strides, displacement and padding, checked as topi
// would take them.
absl::Status ReadCorrelationAttrs(const KernelContext& ctx, CorrelationGeometry& g) {
  g.k = AttrInt(ctx, "kernel_size", 1);
  g.max_disp = AttrInt(ctx, "max_displacement", 1);
  g.stride1 = AttrInt(ctx, "stride1", 1);
  g.stride2 = AttrInt(ctx, "stride2", 1);
  if (g.k <= 0 || g.k % 2 == 0 || g.stride1 <= 0 || g.stride2 <= 0 || g.max_disp < 0) {
    return KernelError(ctx, "kernel_size must be a positive odd number and the strides positive, "
                       "got kernel_size {}, stride1 {}, stride2 {}, max_displacement {}",
                       g.k, g.stride1, g.stride2, g.max_disp);
  }
  // topi's padding: 2 values (h, w) on both sides, or 4 (before_h,
  // before_w, after_h, after_w).
  const std::vector<int64_t> padding =
      AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0, 0});
  if (padding.size() != 2 && padding.size() != 4) {
    return KernelError(ctx, "padding must have 2 or 4 values, got {}", padding.size());
  }
  g.pad_top = padding[0];
  g.pad_left = padding[1];
  g.multiply = AttrBool(ctx, "is_multiply", true);
  return absl::OkStatus();
}

// Output (i, j) of channel q of batch n, before the normalisation: the
// patches compared over channels and the patch (order c, ky, kx).
template <typename C>
C CorrelatePatches(const CorrelationGeometry& g, const C* a, const C* b, int64_t n, int64_t q,
                   int64_t i, int64_t j) {
  // A padded-coordinate read: 0 in the padding.
  auto at = [&](const C* plane, int64_t y, int64_t x) {
    y -= g.pad_top;
    x -= g.pad_left;
    return y >= 0 && y < g.h && x >= 0 && x < g.w ? plane[y * g.w + x] : C(0);
  };
  const int64_t dy = (q / g.size - g.radius) * g.stride2, dx = (q % g.size - g.radius) * g.stride2;
  const int64_t y1 = i * g.stride1 + g.max_disp, x1 = j * g.stride1 + g.max_disp;
  C acc = 0;
  for (int64_t c = 0; c < g.channels; ++c) {
    const C* p1 = a + (n * g.channels + c) * g.h * g.w;
    const C* p2 = b + (n * g.channels + c) * g.h * g.w;
    for (int64_t ry = 0; ry < g.k; ++ry) {
      for (int64_t rx = 0; rx < g.k; ++rx) {
        const C u = at(p1, y1 + ry, x1 + rx), v = at(p2, y1 + dy + ry, x1 + dx + rx);
        acc += g.multiply ? u * v : C(std::abs(u - v));
      }
    }
  }
  return acc;
}

absl::StatusOr<std::vector<NDArray>> Correlation(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data1 = ctx.inputs[0];
  const NDArray& data2 = ctx.inputs[1];
  if (AttrString(ctx, "layout", "NCHW") != "NCHW") {
    return absl::UnimplementedError(
        fmt::format("{}: only layout NCHW has a compute in TVM", OpName(ctx)));
  }
  if (data1.rank() != 4 || data1.shape() != data2.shape()) {
    return KernelError(ctx, "expected two 4-d inputs of one shape, got {} and {}",
                       ShapeString(data1.shape()), ShapeString(data2.shape()));
  }
  CorrelationGeometry g;
  CARVE_RETURN_IF_ERROR(ReadCorrelationAttrs(ctx, g));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  g.batch = data1.shape()[0];
  g.channels = data1.shape()[1];
  g.h = data1.shape()[2];
  g.w = data1.shape()[3];
  g.radius = g.max_disp / g.stride2;
  g.size = 2 * g.radius + 1;
  g.oh = out.shape()[2];
  g.ow = out.shape()[3];
  const int64_t size = g.size, oh = g.oh, ow = g.ow;
  if (out.shape()[1] != size * size) {
    return KernelError(ctx, "the output type has {} channels, expected {}", out.shape()[1],
                       size * size);
  }
  return DispatchFloat(ctx, out.dtype(), [&]<typename T>() -> absl::StatusOr<std::vector<NDArray>> {
    using C = ComputeT<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> a, Buffer<C>::Of(ctx, data1));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> b, Buffer<C>::Of(ctx, data2));
    const C norm = C(g.k * g.k * g.channels);
    std::vector<C> result(size_t(out.num_elements()));
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t q = 0; q < size * size; ++q) {
        for (int64_t i = 0; i < oh; ++i) {
          for (int64_t j = 0; j < ow; ++j) {
            result[((n * size * size + q) * oh + i) * ow + j] =
                CorrelatePatches(g, a.data(), b.data(), n, q, i, j) / norm;
          }
        }
      }
    }
    CARVE_RETURN_IF_ERROR(Store(ctx, result.data(), out));
    return std::vector<NDArray>{std::move(out)};
  });
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.correlation", carve::nn_kernels::Correlation);
