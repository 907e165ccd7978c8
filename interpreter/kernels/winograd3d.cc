// nn.contrib_conv3d_winograd_weight_transform and
// nn.contrib_conv3d_winograd_without_weight_transform with TVM's matrices
// (winograd_matrices.h).
//
// The weight transform is topi's conv3d_winograd_weight_transform: for a
// cubic kernel with 2 < KD < 8 and KD == KH, G on all three axes, (alpha,
// alpha, alpha, CO, CI); otherwise G on height and width only, (alpha,
// alpha, KD, CO, CI).
//
// The convolution is TVM's only compute for it (topi/cuda/
// conv3d_winograd.py, NCDHW): a weight with three equal leading extents is
// read as depth-transformed (3-d tiles), any other as (alpha, alpha, KD)
// with a direct sum over depth (which may be strided). The compute ignores
// the tile_size attribute and takes 4 when the data height is a multiple
// of 8, else 2; carve reports a tile_size that disagrees (TVM would read
// the weight as another kernel size). Stride 1 on the transformed axes,
// dilation 1 and one group, as TVM asserts (its depth-only form ignores a
// depth dilation, which carve rejects).
#include <cstdint>
#include <vector>

#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/winograd_matrices.h"

namespace carve::nn_kernels {
namespace {

// `in`, a cube of `dims` axes of extent n_in, with mat (n_in x n_out,
// row-major) applied along each axis: out[.., e, ..] = sum over r of
// in[.., r, ..] * mat[r, e].
template <typename T>
std::vector<T> Transform(std::vector<T> cur, int dims, int64_t n_in, int64_t n_out,
                         const std::vector<T>& mat) {
  std::vector<int64_t> shape(size_t(dims), n_in);
  for (int ax = 0; ax < dims; ++ax) {
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < ax; ++i) outer *= shape[i];
    for (int i = ax + 1; i < dims; ++i) inner *= shape[i];
    std::vector<T> next(size_t(outer * n_out * inner), T(0));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t e = 0; e < n_out; ++e) {
        for (int64_t r = 0; r < n_in; ++r) {
          const T m = mat[r * n_out + e];
          for (int64_t i = 0; i < inner; ++i) {
            next[(o * n_out + e) * inner + i] += cur[(o * n_in + r) * inner + i] * m;
          }
        }
      }
    }
    shape[ax] = n_out;
    cur = std::move(next);
  }
  return cur;
}

absl::StatusOr<std::vector<NDArray>> WeightTransform3D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& weight = ctx.inputs[0];
  if (weight.rank() != 5) return KernelError(ctx, "expected an OIDHW kernel");
  const int64_t co = weight.shape()[0], ci = weight.shape()[1];
  const int64_t kd = weight.shape()[2], kh = weight.shape()[3], kw = weight.shape()[4];
  const bool depth = kd > 2 && kd < 8 && kd == kh;
  if (kh != kw || (depth && kd != kw)) {
    return KernelError(ctx, "TVM transforms NxNxN or DxNxN kernels, got {}x{}x{}", kd, kh, kw);
  }
  CARVE_ASSIGN_OR_RETURN(WinogradMatrices w,
                         MakeWinogradMatrices(ctx, int(AttrInt(ctx, "tile_size", 0)), int(kh)));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(VisitWinogradFloat(ctx, weight.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<T> in, Buffer<T>::Of(ctx, weight));
    // G^T as an (r x alpha) matrix: u[e] = sum over k of g[k] * G[e, k].
    const std::vector<T> g = Rounded<T>(w.g);
    std::vector<T> gt(size_t(w.r * w.alpha));
    for (int e = 0; e < w.alpha; ++e) {
      for (int k = 0; k < w.r; ++k) gt[k * w.alpha + e] = g[e * w.r + k];
    }
    const int64_t alpha = w.alpha, cube = depth ? alpha * alpha * alpha : alpha * alpha * kd;
    std::vector<T> u(size_t(cube * co * ci));
    for (int64_t o = 0; o < co; ++o) {
      for (int64_t i = 0; i < ci; ++i) {
        const T* k = in.data() + (o * ci + i) * kd * kh * kw;
        std::vector<T> t;
        if (depth) {
          t = Transform(std::vector<T>(k, k + kd * kh * kw), 3, kh, alpha, gt);
        } else {
          for (int64_t d = 0; d < kd; ++d) {  // (alpha, alpha) per depth
            std::vector<T> s =
                Transform(std::vector<T>(k + d * kh * kw, k + (d + 1) * kh * kw), 2, kh, alpha, gt);
            t.resize(size_t(alpha * alpha * kd));
            for (int64_t e = 0; e < alpha * alpha; ++e) t[e * kd + d] = s[e];
          }
        }
        for (int64_t e = 0; e < cube; ++e) u[(e * co + o) * ci + i] = t[e];
      }
    }
    return Store(ctx, u.data(), out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

// The extents of one 3-d Winograd convolution (NCDHW data, transformed
// weight) and the facts TVM's compute derives from them.
struct Conv3DGeometry {
  bool depth = false;  // the weight is depth-transformed (3-d tiles)
  int m = 0;           // output tile size
  int r = 0;           // kernel size on the transformed axes
  int64_t batch = 0, ci = 0, in_d = 0, in_h = 0, in_w = 0;
  int64_t alpha = 0, kd = 0, co = 0, stride_d = 1;
  int64_t od = 0, oh = 0, ow = 0;  // from the output, once allocated
  std::vector<int64_t> pad;        // front d, h, w, back d, h, w
};

absl::Status CheckNcdhw(const KernelContext& ctx) {
  if (AttrString(ctx, "data_layout", "NCDHW") != "NCDHW" ||
      !(AttrString(ctx, "out_layout", "").empty() ||
        AttrString(ctx, "out_layout", "") == "NCDHW")) {
    return KernelError(ctx, "TVM computes the 3-d Winograd convolution in NCDHW only");
  }
  return absl::OkStatus();
}

// The stride, dilation and group restrictions of TVM's compute; fills the
// depth form, the depth stride and the padding.
absl::Status CheckConv3DAttrs(const KernelContext& ctx, const NDArray& weight,
                              Conv3DGeometry& g) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialInts(ctx, "strides", 3, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, SpatialInts(ctx, "dilation", 3, 1));
  std::vector<int64_t> padding = AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0});
  CARVE_ASSIGN_OR_RETURN(g.pad, ExpandPadding(ctx, padding, 3));
  g.depth = weight.shape()[0] == weight.shape()[1] && weight.shape()[1] == weight.shape()[2];
  if (dilation != std::vector<int64_t>{1, 1, 1} || AttrInt(ctx, "groups", 1) != 1 ||
      strides[1] != 1 || strides[2] != 1 || (g.depth && strides[0] != 1)) {
    return KernelError(ctx,
                       "TVM's compute takes dilation 1, one group and stride 1 (depth stride "
                       "only without a depth transform)");
  }
  g.stride_d = strides[0];
  return absl::OkStatus();
}

// The tile size TVM's compute infers from the data height, which the
// tile_size attribute must agree with.
absl::Status InferTileSize(const KernelContext& ctx, Conv3DGeometry& g) {
  g.m = g.in_h % 8 == 0 ? 4 : 2;
  if (AttrInt(ctx, "tile_size", g.m) != g.m) {
    return KernelError(ctx,
                       "TVM's compute infers tile size {} from the data height {} (4 for a "
                       "multiple of 8, else 2), not tile_size {}",
                       g.m, g.in_h, AttrInt(ctx, "tile_size", g.m));
  }
  return absl::OkStatus();
}

// Whether the allocated output has the extents the weight and padding give;
// fills od, oh and ow.
absl::Status CheckConv3DOutput(const KernelContext& ctx, const NDArray& out, Conv3DGeometry& g) {
  g.od = out.shape()[2];
  g.oh = out.shape()[3];
  g.ow = out.shape()[4];
  const std::vector<int64_t>& pad = g.pad;
  if (out.shape()[1] != g.co || g.od != (g.in_d + pad[0] + pad[3] - g.kd) / g.stride_d + 1 ||
      g.oh != g.in_h + pad[1] + pad[4] - g.r + 1 || g.ow != g.in_w + pad[2] + pad[5] - g.r + 1) {
    return KernelError(ctx, "the output type does not match the weight and padding");
  }
  return absl::OkStatus();
}

// One convolution in T: the data, the transformed weight, TVM's A and B
// rounded to T, and the NCDHW result the tiles write into.
template <typename T>
class Winograd3DRun {
 public:
  Winograd3DRun(const Conv3DGeometry& g, const WinogradMatrices& w, const T* x, const T* u,
                int64_t out_elements)
      : g_(g), x_(x), u_(u), a_(Rounded<T>(w.a)), b_(Rounded<T>(w.b)),
        y_(size_t(out_elements), T(0)) {}

  // Every output tile, in the weight's form.
  void Run() {
    const int64_t th_n = (g_.oh + g_.m - 1) / g_.m, tw_n = (g_.ow + g_.m - 1) / g_.m;
    for (int64_t n = 0; n < g_.batch; ++n) {
      if (g_.depth) {
        for (int64_t td = 0; td < (g_.od + g_.m - 1) / g_.m; ++td) {
          for (int64_t th = 0; th < th_n; ++th) {
            for (int64_t tw = 0; tw < tw_n; ++tw) DepthTransformedTile(n, td, th, tw);
          }
        }
      } else {
        for (int64_t th = 0; th < th_n; ++th) {
          for (int64_t tw = 0; tw < tw_n; ++tw) DepthSummedTile(n, th, tw);
        }
      }
    }
  }

  const std::vector<T>& result() const { return y_; }

 private:
  // The data at a padded position (zero in the padding).
  T At(int64_t n, int64_t c, int64_t d, int64_t h, int64_t wi) const {
    d -= g_.pad[0];
    h -= g_.pad[1];
    wi -= g_.pad[2];
    if (d < 0 || d >= g_.in_d || h < 0 || h >= g_.in_h || wi < 0 || wi >= g_.in_w) return T(0);
    return x_[(((n * g_.ci + c) * g_.in_d + d) * g_.in_h + h) * g_.in_w + wi];
  }

  // One m x m x m output tile from 3-d tiles of every input channel.
  void DepthTransformedTile(int64_t n, int64_t td, int64_t th, int64_t tw) {
    const int64_t alpha = g_.alpha, co = g_.co, m = g_.m;
    const int64_t a2 = alpha * alpha, a3 = a2 * alpha;
    std::vector<T> mm(size_t(co * a3), T(0));
    for (int64_t c = 0; c < g_.ci; ++c) {
      std::vector<T> tile(static_cast<size_t>(a3));
      for (int64_t e = 0; e < a3; ++e) {
        tile[e] = At(n, c, td * m + e / a2, th * m + e / alpha % alpha, tw * m + e % alpha);
      }
      const std::vector<T> v = Transform(std::move(tile), 3, alpha, alpha, b_);
      for (int64_t o = 0; o < co; ++o) {
        for (int64_t e = 0; e < a3; ++e) mm[o * a3 + e] += v[e] * u_[(e * co + o) * g_.ci + c];
      }
    }
    for (int64_t o = 0; o < co; ++o) {
      const std::vector<T> t = Transform(
          std::vector<T>(mm.begin() + o * a3, mm.begin() + (o + 1) * a3), 3, alpha, m, a_);
      for (int64_t e = 0; e < m * m * m; ++e) {
        const int64_t d = td * m + e / (m * m), h = th * m + e / m % m, wi = tw * m + e % m;
        if (d < g_.od && h < g_.oh && wi < g_.ow) {
          y_[(((n * co + o) * g_.od + d) * g_.oh + h) * g_.ow + wi] = t[e];
        }
      }
    }
  }

  // V[c][dz]: the 2-d transformed tile of every padded depth slice.
  std::vector<T> TransformedSlices(int64_t n, int64_t th, int64_t tw, int64_t padded_d) const {
    const int64_t alpha = g_.alpha, a2 = alpha * alpha;
    std::vector<T> v(size_t(g_.ci * padded_d * a2));
    for (int64_t c = 0; c < g_.ci; ++c) {
      for (int64_t dz = 0; dz < padded_d; ++dz) {
        std::vector<T> tile(static_cast<size_t>(a2));
        for (int64_t e = 0; e < a2; ++e) {
          tile[e] = At(n, c, dz, th * g_.m + e / alpha, tw * g_.m + e % alpha);
        }
        const std::vector<T> t = Transform(std::move(tile), 2, alpha, alpha, b_);
        std::copy(t.begin(), t.end(), v.begin() + (c * padded_d + dz) * a2);
      }
    }
    return v;
  }

  // The m x m output tile at (th, tw) of every depth, with a direct
  // (possibly strided) sum over the kernel depth.
  void DepthSummedTile(int64_t n, int64_t th, int64_t tw) {
    const int64_t alpha = g_.alpha, a2 = alpha * alpha, co = g_.co, kd = g_.kd, m = g_.m;
    const int64_t padded_d = g_.in_d + g_.pad[0] + g_.pad[3];
    const std::vector<T> v = TransformedSlices(n, th, tw, padded_d);
    for (int64_t d = 0; d < g_.od; ++d) {
      for (int64_t o = 0; o < co; ++o) {
        std::vector<T> mm(static_cast<size_t>(a2), T(0));
        for (int64_t c = 0; c < g_.ci; ++c) {
          for (int64_t rz = 0; rz < kd; ++rz) {
            const T* vs = v.data() + (c * padded_d + d * g_.stride_d + rz) * a2;
            for (int64_t e = 0; e < a2; ++e) {
              mm[e] += u_[((e * kd + rz) * co + o) * g_.ci + c] * vs[e];
            }
          }
        }
        const std::vector<T> t = Transform(std::move(mm), 2, alpha, m, a_);
        for (int64_t e = 0; e < m * m; ++e) {
          const int64_t h = th * m + e / m, wi = tw * m + e % m;
          if (h < g_.oh && wi < g_.ow) y_[(((n * co + o) * g_.od + d) * g_.oh + h) * g_.ow + wi] = t[e];
        }
      }
    }
  }

  const Conv3DGeometry& g_;
  const T* x_;
  const T* u_;
  const std::vector<T> a_, b_;
  std::vector<T> y_;
};

absl::StatusOr<std::vector<NDArray>> WinogradConv3D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  CARVE_RETURN_IF_ERROR(CheckNcdhw(ctx));
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  if (data.rank() != 5 || weight.rank() != 5)
    return KernelError(ctx, "expected 5-d data and weight");
  Conv3DGeometry g;
  CARVE_RETURN_IF_ERROR(CheckConv3DAttrs(ctx, weight, g));
  g.batch = data.shape()[0];
  g.ci = data.shape()[1];
  g.in_d = data.shape()[2];
  g.in_h = data.shape()[3];
  g.in_w = data.shape()[4];
  CARVE_RETURN_IF_ERROR(InferTileSize(ctx, g));
  g.alpha = weight.shape()[0];
  g.r = int(g.alpha) + 1 - g.m;
  CARVE_ASSIGN_OR_RETURN(WinogradMatrices w, MakeWinogradMatrices(ctx, g.m, g.r));
  g.kd = g.depth ? g.r : weight.shape()[2];
  g.co = weight.shape()[3];
  if (weight.shape()[1] != g.alpha || weight.shape()[4] != g.ci) {
    return KernelError(ctx, "the weight {} does not fit {} input channels", weight.shape()[4],
                       g.ci);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(CheckConv3DOutput(ctx, out, g));
  CARVE_RETURN_IF_ERROR(VisitWinogradFloat(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<T> x, Buffer<T>::Of(ctx, data));
    CARVE_ASSIGN_OR_RETURN(Buffer<T> u, Buffer<T>::Of(ctx, weight));
    Winograd3DRun<T> run(g, w, x.data(), u.data(), out.num_elements());
    run.Run();
    return Store(ctx, run.result().data(), out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.contrib_conv3d_winograd_weight_transform",
                      carve::nn_kernels::WeightTransform3D);
CARVE_REGISTER_KERNEL("nn.contrib_conv3d_winograd_without_weight_transform",
                      carve::nn_kernels::WinogradConv3D);
