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

// The attributes of one correlation.
struct CorrelationGeometry {
  int64_t k = 1, max_disp = 1, stride1 = 1, stride2 = 1;
  int64_t pad_top = 0, pad_left = 0;
  bool multiply = true;
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
  const int64_t batch = data1.shape()[0], channels = data1.shape()[1];
  const int64_t h = data1.shape()[2], w = data1.shape()[3];
  const int64_t k = g.k, max_disp = g.max_disp, stride1 = g.stride1, stride2 = g.stride2;
  const int64_t pad_top = g.pad_top, pad_left = g.pad_left;
  const bool multiply = g.multiply;
  const int64_t radius = max_disp / stride2, size = 2 * radius + 1;
  const int64_t oh = out.shape()[2], ow = out.shape()[3];
  if (out.shape()[1] != size * size) {
    return KernelError(ctx, "the output type has {} channels, expected {}", out.shape()[1],
                       size * size);
  }
  return DispatchFloat(ctx, out.dtype(), [&]<typename T>() -> absl::StatusOr<std::vector<NDArray>> {
    using C = ComputeT<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> a, Buffer<C>::Of(ctx, data1));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> b, Buffer<C>::Of(ctx, data2));
    // A padded-coordinate read: 0 in the padding.
    auto at = [&](const C* plane, int64_t y, int64_t x) {
      y -= pad_top;
      x -= pad_left;
      return y >= 0 && y < h && x >= 0 && x < w ? plane[y * w + x] : C(0);
    };
    const C norm = C(k * k * channels);
    std::vector<C> result(size_t(out.num_elements()));
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t q = 0; q < size * size; ++q) {
        const int64_t dy = (q / size - radius) * stride2, dx = (q % size - radius) * stride2;
        for (int64_t i = 0; i < oh; ++i) {
          for (int64_t j = 0; j < ow; ++j) {
            const int64_t y1 = i * stride1 + max_disp, x1 = j * stride1 + max_disp;
            C acc = 0;
            for (int64_t c = 0; c < channels; ++c) {
              const C* p1 = a.data() + (n * channels + c) * h * w;
              const C* p2 = b.data() + (n * channels + c) * h * w;
              for (int64_t ry = 0; ry < k; ++ry) {
                for (int64_t rx = 0; rx < k; ++rx) {
                  const C u = at(p1, y1 + ry, x1 + rx), v = at(p2, y1 + dy + ry, x1 + dx + rx);
                  acc += multiply ? u * v : C(std::abs(u - v));
                }
              }
            }
            result[((n * size * size + q) * oh + i) * ow + j] = acc / norm;
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
