// nn.max_pool2d_grad and nn.avg_pool2d_grad with topi's semantics
// (pool_grad_impl in include/tvm/topi/nn/pooling.h, called by Relay's
// Pool2DGradCompute, at v0.16.0). The call is (out_grad, data); the result
// has the data's shape. Any layout whose H and W axes are not split works
// (NCHW, NHWC, NCHW16c, ...); dilation is not read, as in TVM.
//   max: each pooling window's argmax (the first maximum in window order,
//     over data padded with the dtype's lowest value) receives the window's
//     gradient.
//   avg: each window spreads its gradient over kh * kw elements
//     (count_include_pad) or over the window's part inside the image.
// ceil_mode extends the bottom and right padding by stride - 1, as topi
// does. topi's max form does not bound the window index from above and
// reads past its argmax buffer for the last rows when the stride does not
// tile the input; carve counts only the windows that exist (a value TVM
// leaves undefined).
#include <cctype>
#include <limits>
#include <string>
#include <vector>

#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels {
namespace {

struct PoolGradGeometry {
  int64_t planes, h, w, oh, ow;
  int64_t kh, kw, sh, sw, pt, pl, pb, pr;
};

// Sums over the pooling windows that cover each data element, as topi
// enumerates them: for padded position (py, px), windows py / sh - i and
// px / sw - j for i < ceil(kh / sh), j < ceil(kw / sw), kept from the
// first window that reaches the element up to the last window that exists.
// term(p, oy, ox, py, px) is window (oy, ox)'s share for the element.
template <typename C, typename Term>
void SumCoveringWindows(const PoolGradGeometry& g, C* dx, Term term) {
  const int64_t wh = (g.kh + g.sh - 1) / g.sh, ww = (g.kw + g.sw - 1) / g.sw;
  for (int64_t p = 0; p < g.planes; ++p) {
    for (int64_t y = 0; y < g.h; ++y) {
      const int64_t py = y + g.pt;
      const int64_t lower_y = py < g.kh ? 0 : (py - g.kh) / g.sh + 1;
      for (int64_t x = 0; x < g.w; ++x) {
        const int64_t px = x + g.pl;
        const int64_t lower_x = px < g.kw ? 0 : (px - g.kw) / g.sw + 1;
        C acc = 0;
        for (int64_t i = 0; i < wh; ++i) {
          const int64_t oy = py / g.sh - i;
          for (int64_t j = 0; j < ww; ++j) {
            const int64_t ox = px / g.sw - j;
            if (oy >= lower_y && oy < g.oh && ox >= lower_x && ox < g.ow) {
              acc += term(p, oy, ox, py, px);
            }
          }
        }
        dx[(p * g.h + y) * g.w + x] = acc;
      }
    }
  }
}

// `lowest`: the data dtype's lowest finite value (topi's padding and the
// argmax reducer's start).
template <typename C>
void MaxGrad(const PoolGradGeometry& g, C lowest, const C* x, const C* dy, C* dx) {
  const int64_t wp = g.w + g.pl + g.pr;
  // Per plane and window, the padded position of its maximum. topi's
  // argmax reducer starts at (-1, lowest); an element replaces the index
  // unless the running value is bigger, or equal with a lower index.
  std::vector<int64_t> argmax(size_t(g.planes * g.oh * g.ow));
  for (int64_t p = 0; p < g.planes; ++p) {
    const C* xp = x + p * g.h * g.w;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        int64_t idx = -1;
        C val = lowest;
        for (int64_t dh = 0; dh < g.kh; ++dh) {
          for (int64_t dw = 0; dw < g.kw; ++dw) {
            const int64_t py = oy * g.sh + dh, px = ox * g.sw + dw;
            const int64_t y = py - g.pt, xx = px - g.pl;
            const C v = y >= 0 && y < g.h && xx >= 0 && xx < g.w ? xp[y * g.w + xx] : lowest;
            const int64_t e = py * wp + px;
            const bool keep = val > v || (val == v && idx < e);
            idx = keep ? idx : e;
            val = val > v ? val : v;
          }
        }
        argmax[(p * g.oh + oy) * g.ow + ox] = idx;
      }
    }
  }
  SumCoveringWindows(g, dx, [&](int64_t p, int64_t oy, int64_t ox, int64_t py, int64_t px) {
    const int64_t at = (p * g.oh + oy) * g.ow + ox;
    return argmax[at] == py * wp + px ? dy[at] : C(0);
  });
}

template <typename C>
void AvgGrad(const PoolGradGeometry& g, bool count_include_pad, const C* dy, C* dx) {
  SumCoveringWindows(g, dx, [&](int64_t p, int64_t oy, int64_t ox, int64_t, int64_t) {
    int64_t count = g.kh * g.kw;
    if (!count_include_pad) {
      const int64_t hs = oy * g.sh - g.pt, ws = ox * g.sw - g.pl;
      const int64_t he = std::min(hs + g.kh, g.h), we = std::min(ws + g.kw, g.w);
      count = std::max<int64_t>((he - std::max<int64_t>(hs, 0)) * (we - std::max<int64_t>(ws, 0)),
                                1);
    }
    return dy[(p * g.oh + oy) * g.ow + ox] / C(count);
  });
}

// The positions of the H and W axes in `layout` (both unsplit), and the
// layout's rank.
struct PoolGradAxes {
  size_t hi = 0, wi = 0, rank = 0;
};

absl::StatusOr<PoolGradAxes> FindPoolGradAxes(const KernelContext& ctx, std::string_view layout) {
  // The layout's axes: its letters (a split factor's digits precede its
  // lowercase letter).
  std::string axes;
  for (char c : layout) {
    if (std::isalpha(static_cast<unsigned char>(c))) axes.push_back(c);
  }
  const size_t hi = axes.find('H'), wi = axes.find('W');
  if (hi == std::string::npos || wi == std::string::npos || axes.find('h') != std::string::npos ||
      axes.find('w') != std::string::npos) {
    return absl::UnimplementedError(fmt::format(
        "{}: layout {} needs unsplit H and W axes (as TVM's compute)", OpName(ctx), layout));
  }
  return PoolGradAxes{hi, wi, axes.size()};
}

// The window attributes and topi's pooled extents, which out_grad must have.
absl::StatusOr<PoolGradGeometry> ReadPoolGradGeometry(const KernelContext& ctx,
                                                      const PoolGradAxes& axes) {
  const NDArray& dy = ctx.inputs[0];
  const NDArray& x = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pool, SpatialInts(ctx, "pool_size", 2, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialInts(ctx, "strides", 2, 1));
  CARVE_ASSIGN_OR_RETURN(
      std::vector<int64_t> pad,
      ExpandPadding(ctx, AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0, 0}), 2));
  PoolGradGeometry g{};
  g.h = x.shape()[axes.hi];
  g.w = x.shape()[axes.wi];
  g.kh = pool[0];
  g.kw = pool[1];
  g.sh = strides[0];
  g.sw = strides[1];
  g.pt = pad[0];
  g.pl = pad[1];
  g.pb = pad[2];
  g.pr = pad[3];
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1) {
    return KernelError(ctx, "pool_size and strides must be positive");
  }
  if (AttrBool(ctx, "ceil_mode", false)) {
    g.pb += g.sh - 1;
    g.pr += g.sw - 1;
  }
  g.oh = (g.h - g.kh + g.pt + g.pb) / g.sh + 1;
  g.ow = (g.w - g.kw + g.pl + g.pr) / g.sw + 1;
  std::vector<int64_t> want = x.shape();
  want[axes.hi] = g.oh;
  want[axes.wi] = g.ow;
  if (dy.shape() != want) {
    return KernelError(ctx, "out_grad {} is not the pooled shape {} of data {}",
                       ShapeString(dy.shape()), ShapeString(want), ShapeString(x.shape()));
  }
  g.planes = x.num_elements() / std::max<int64_t>(g.h * g.w, 1);
  return g;
}

// The permutation that moves H and W innermost: planes of (H, W).
std::vector<int> PlanesLast(const PoolGradAxes& axes) {
  std::vector<int> perm;
  for (size_t i = 0; i < axes.rank; ++i) {
    if (i != axes.hi && i != axes.wi) perm.push_back(int(i));
  }
  perm.push_back(int(axes.hi));
  perm.push_back(int(axes.wi));
  return perm;
}

absl::StatusOr<std::vector<NDArray>> Pool2DGrad(const KernelContext& ctx, bool max) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& dy = ctx.inputs[0];
  const NDArray& x = ctx.inputs[1];
  const std::string_view layout = AttrString(ctx, "layout", "NCHW");
  CARVE_ASSIGN_OR_RETURN(PoolGradAxes axes, FindPoolGradAxes(ctx, layout));
  if (x.rank() != axes.rank || dy.rank() != axes.rank || (x.rank() != 4 && x.rank() != 5)) {
    return KernelError(ctx, "expected 4-d or 5-d out_grad and data in layout {}, got {} and {}",
                       layout, ShapeString(dy.shape()), ShapeString(x.shape()));
  }
  CARVE_ASSIGN_OR_RETURN(PoolGradGeometry g, ReadPoolGradGeometry(ctx, axes));
  const std::vector<int> perm = PlanesLast(axes);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.num_elements() == 0) return std::vector<NDArray>{std::move(out)};
  CARVE_RETURN_IF_ERROR(DispatchFloat(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    using C = ComputeT<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> xb, Buffer<C>::Permuted(ctx, x, perm));
    CARVE_ASSIGN_OR_RETURN(Buffer<C> dyb, Buffer<C>::Permuted(ctx, dy, perm));
    std::vector<C> result(size_t(out.num_elements()));
    if (max) {
      const C lowest = std::is_same_v<T, Half> ? C(-65504.0f) : std::numeric_limits<C>::lowest();
      MaxGrad(g, lowest, xb.data(), dyb.data(), result.data());
    } else {
      AvgGrad(g, AttrBool(ctx, "count_include_pad", false), dyb.data(), result.data());
    }
    return StorePermuted(ctx, result.data(), perm, out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<std::vector<NDArray>> MaxPool2DGrad(const KernelContext& ctx) {
  return Pool2DGrad(ctx, true);
}
absl::StatusOr<std::vector<NDArray>> AvgPool2DGrad(const KernelContext& ctx) {
  return Pool2DGrad(ctx, false);
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.max_pool2d_grad", carve::nn_kernels::MaxPool2DGrad);
CARVE_REGISTER_KERNEL("nn.avg_pool2d_grad", carve::nn_kernels::AvgPool2DGrad);
