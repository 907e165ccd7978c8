// image.dilation2d with topi's semantics (python/tvm/topi/image/
// dilation2d.py at v0.16.0): morphological dilation, out[n, c, y, x] = max
// over the window (ry, rx) of padded[n, c, y * sh + ry * dh, x * sw + rx *
// dw] + weight[c, ry, rx], in out_dtype. The padding is zeros; the max
// starts from the dtype's lowest finite value and combines as TVM lowers
// Max, select(acc > x, acc, x). NCHW takes an IHW weight and NHWC an HWI
// one (the only pairs TVM's strategy accepts).
#include <limits>
#include <string>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

// a + b in T as TVM adds in out_dtype: integers wrap, float16 rounds once.
template <typename T>
T AddInDType(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return T(uint64_t(a) + uint64_t(b));
  } else if constexpr (std::is_same_v<T, Half>) {
    return Half(float(a) + float(b));
  } else {
    return a + b;
  }
}

template <typename T>
T LowestOf() {
  if constexpr (std::is_same_v<T, Half>) {
    return Half(-65504.0f);
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

absl::StatusOr<std::vector<NDArray>> Dilation2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  const std::string_view layout = AttrString(ctx, "data_layout", "NCHW");
  const std::string_view kernel_layout = AttrString(ctx, "kernel_layout", "IHW");
  const bool nhwc = layout == "NHWC";
  if (!((layout == "NCHW" && kernel_layout == "IHW") || (nhwc && kernel_layout == "HWI"))) {
    return absl::UnimplementedError(fmt::format(
        "{}: layouts {} / {} have no compute in TVM (NCHW with IHW, NHWC with HWI)", OpName(ctx),
        layout, kernel_layout));
  }
  if (data.rank() != 4 || weight.rank() != 3) {
    return KernelError(ctx, "expected 4-d data and a 3-d weight, got {} and {}",
                       ShapeString(data.shape()), ShapeString(weight.shape()));
  }
  const int64_t batch = data.shape()[0], channels = data.shape()[nhwc ? 3 : 1];
  const int64_t h = data.shape()[nhwc ? 1 : 2], w = data.shape()[nhwc ? 2 : 3];
  const int64_t kh = weight.shape()[nhwc ? 0 : 1], kw = weight.shape()[nhwc ? 1 : 2];
  if (weight.shape()[nhwc ? 2 : 0] != channels) {
    return KernelError(ctx, "the weight {} does not have the data's {} channels",
                       ShapeString(weight.shape()), channels);
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialInts(ctx, "strides", 2, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, SpatialInts(ctx, "dilations", 2, 1));
  CARVE_ASSIGN_OR_RETURN(
      std::vector<int64_t> pad,
      ExpandPadding(ctx, AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0, 0}), 2));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t oh = out.shape()[nhwc ? 1 : 2], ow = out.shape()[nhwc ? 2 : 3];
  // Strides of data (n, c, y, x) and weight (c, ry, rx) in each layout.
  const int64_t dn = h * w * channels, dc = nhwc ? 1 : h * w, dy = nhwc ? w * channels : w,
                dx = nhwc ? channels : 1;
  const int64_t wc = nhwc ? 1 : kh * kw, wy = nhwc ? kw * channels : kw, wx = nhwc ? channels : 1;
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<T> in, Buffer<T>::Of(ctx, data));
    CARVE_ASSIGN_OR_RETURN(Buffer<T> filt, Buffer<T>::Of(ctx, weight));
    T* dst = out.data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            T acc = LowestOf<T>();
            for (int64_t ry = 0; ry < kh; ++ry) {
              const int64_t iy = y * strides[0] + ry * dilations[0] - pad[0];
              for (int64_t rx = 0; rx < kw; ++rx) {
                const int64_t ix = x * strides[1] + rx * dilations[1] - pad[1];
                const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
                const T v = inside ? in.data()[n * dn + c * dc + iy * dy + ix * dx] : T(0);
                const T sum = AddInDType(v, filt.data()[c * wc + ry * wy + rx * wx]);
                acc = acc > sum ? acc : sum;
              }
            }
            const int64_t at = nhwc ? ((n * oh + y) * ow + x) * channels + c
                                    : ((n * channels + c) * oh + y) * ow + x;
            dst[at] = acc;
          }
        }
      }
    }
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("image.dilation2d", carve::nn_kernels::Dilation2D);
