// image.dilation2d with topi's semantics (python/tvm/topi/image/
// dilation2d.py at v0.16.0): morphological dilation, out[n, c, y, x] = max
// over the window (ry, rx) of padded[n, c, y * sh + ry * dh, x * sw + rx *
// dw] + weight[c, ry, rx], in out_dtype. The padding is zeros; the max
// starts from the dtype's lowest finite value and combines as TVM lowers
// Max, select(acc > x, acc, x). NCHW takes an IHW weight and NHWC an HWI
// one (the only pairs TVM's strategy accepts).
#include <limits>
#include <string>
#include <vector>

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

// The extents of one dilation, its window attributes and the element
// strides of data (n, c, y, x) and weight (c, ry, rx) in the layout.
struct DilationGeometry {
  bool nhwc = false;
  int64_t batch = 0, channels = 0, h = 0, w = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  std::vector<int64_t> strides, dilations, pad;
  int64_t dn = 0, dc = 0, dy = 0, dx = 0, wc = 0, wy = 0, wx = 0;
};

// The layout pairs TVM's strategy accepts; whether the layout is NHWC.
absl::StatusOr<bool> CheckDilationLayouts(const KernelContext& ctx) {
  const std::string_view layout = AttrString(ctx, "data_layout", "NCHW");
  const std::string_view kernel_layout = AttrString(ctx, "kernel_layout", "IHW");
  const bool nhwc = layout == "NHWC";
  if (!((layout == "NCHW" && kernel_layout == "IHW") || (nhwc && kernel_layout == "HWI"))) {
    return absl::UnimplementedError(fmt::format(
        "{}: layouts {} / {} have no compute in TVM (NCHW with IHW, NHWC with HWI)", OpName(ctx),
        layout, kernel_layout));
  }
  return nhwc;
}

// The data and weight extents and the window attributes.
absl::Status ReadDilationOperands(const KernelContext& ctx, DilationGeometry& g) {
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  if (data.rank() != 4 || weight.rank() != 3) {
    return KernelError(ctx, "expected 4-d data and a 3-d weight, got {} and {}",
                       ShapeString(data.shape()), ShapeString(weight.shape()));
  }
  const bool nhwc = g.nhwc;
  g.batch = data.shape()[0];
  g.channels = data.shape()[nhwc ? 3 : 1];
  g.h = data.shape()[nhwc ? 1 : 2];
  g.w = data.shape()[nhwc ? 2 : 3];
  g.kh = weight.shape()[nhwc ? 0 : 1];
  g.kw = weight.shape()[nhwc ? 1 : 2];
  if (weight.shape()[nhwc ? 2 : 0] != g.channels) {
    return KernelError(ctx, "the weight {} does not have the data's {} channels",
                       ShapeString(weight.shape()), g.channels);
  }
  CARVE_ASSIGN_OR_RETURN(g.strides, SpatialInts(ctx, "strides", 2, 1));
  CARVE_ASSIGN_OR_RETURN(g.dilations, SpatialInts(ctx, "dilations", 2, 1));
  CARVE_ASSIGN_OR_RETURN(
      g.pad, ExpandPadding(ctx, AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0, 0}), 2));
  g.dn = g.h * g.w * g.channels;
  g.dc = nhwc ? 1 : g.h * g.w;
  g.dy = nhwc ? g.w * g.channels : g.w;
  g.dx = nhwc ? g.channels : 1;
  g.wc = nhwc ? 1 : g.kh * g.kw;
  g.wy = nhwc ? g.kw * g.channels : g.kw;
  g.wx = nhwc ? g.channels : 1;
  return absl::OkStatus();
}

// Output (y, x) of channel c of batch n: the window's max of data + weight.
template <typename T>
T DilateWindow(const DilationGeometry& g, const T* in, const T* filt, int64_t n, int64_t c,
               int64_t y, int64_t x) {
  T acc = LowestOf<T>();
  for (int64_t ry = 0; ry < g.kh; ++ry) {
    const int64_t iy = y * g.strides[0] + ry * g.dilations[0] - g.pad[0];
    for (int64_t rx = 0; rx < g.kw; ++rx) {
      const int64_t ix = x * g.strides[1] + rx * g.dilations[1] - g.pad[1];
      const bool inside = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
      const T v = inside ? in[n * g.dn + c * g.dc + iy * g.dy + ix * g.dx] : T(0);
      const T sum = AddInDType(v, filt[c * g.wc + ry * g.wy + rx * g.wx]);
      acc = acc > sum ? acc : sum;
    }
  }
  return acc;
}

absl::StatusOr<std::vector<NDArray>> Dilation2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  DilationGeometry g;
  CARVE_ASSIGN_OR_RETURN(g.nhwc, CheckDilationLayouts(ctx));
  CARVE_RETURN_IF_ERROR(ReadDilationOperands(ctx, g));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  g.oh = out.shape()[g.nhwc ? 1 : 2];
  g.ow = out.shape()[g.nhwc ? 2 : 3];
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<T> in, Buffer<T>::Of(ctx, ctx.inputs[0]));
    CARVE_ASSIGN_OR_RETURN(Buffer<T> filt, Buffer<T>::Of(ctx, ctx.inputs[1]));
    T* dst = out.data<T>();
    const int64_t channels = g.channels, oh = g.oh, ow = g.ow;
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            const int64_t at = g.nhwc ? ((n * oh + y) * ow + x) * channels + c
                                      : ((n * channels + c) * oh + y) * ow + x;
            dst[at] = DilateWindow(g, in.data(), filt.data(), n, c, y, x);
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
