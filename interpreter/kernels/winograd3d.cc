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

absl::StatusOr<std::vector<NDArray>> WinogradConv3D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  if (AttrString(ctx, "data_layout", "NCDHW") != "NCDHW" ||
      !(AttrString(ctx, "out_layout", "").empty() ||
        AttrString(ctx, "out_layout", "") == "NCDHW")) {
    return KernelError(ctx, "TVM computes the 3-d Winograd convolution in NCDHW only");
  }
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  if (data.rank() != 5 || weight.rank() != 5)
    return KernelError(ctx, "expected 5-d data and weight");
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialInts(ctx, "strides", 3, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, SpatialInts(ctx, "dilation", 3, 1));
  std::vector<int64_t> padding = AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0});
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pad, ExpandPadding(ctx, padding, 3));
  const bool depth =
      weight.shape()[0] == weight.shape()[1] && weight.shape()[1] == weight.shape()[2];
  if (dilation != std::vector<int64_t>{1, 1, 1} || AttrInt(ctx, "groups", 1) != 1 ||
      strides[1] != 1 || strides[2] != 1 || (depth && strides[0] != 1)) {
    return KernelError(ctx,
                       "TVM's compute takes dilation 1, one group and stride 1 (depth stride "
                       "only without a depth transform)");
  }
  const int64_t batch = data.shape()[0], ci = data.shape()[1];
  const int64_t in_d = data.shape()[2], in_h = data.shape()[3], in_w = data.shape()[4];
  const int m = in_h % 8 == 0 ? 4 : 2;
  if (AttrInt(ctx, "tile_size", m) != m) {
    return KernelError(ctx,
                       "TVM's compute infers tile size {} from the data height {} (4 for a "
                       "multiple of 8, else 2), not tile_size {}",
                       m, in_h, AttrInt(ctx, "tile_size", m));
  }
  const int64_t alpha = weight.shape()[0];
  const int r = int(alpha) + 1 - m;
  CARVE_ASSIGN_OR_RETURN(WinogradMatrices w, MakeWinogradMatrices(ctx, m, r));
  const int64_t kd = depth ? r : weight.shape()[2];
  const int64_t co = weight.shape()[3];
  if (weight.shape()[1] != alpha || weight.shape()[4] != ci) {
    return KernelError(ctx, "the weight {} does not fit {} input channels", weight.shape()[4], ci);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t od = out.shape()[2], oh = out.shape()[3], ow = out.shape()[4];
  if (out.shape()[1] != co || od != (in_d + pad[0] + pad[3] - kd) / strides[0] + 1 ||
      oh != in_h + pad[1] + pad[4] - r + 1 || ow != in_w + pad[2] + pad[5] - r + 1) {
    return KernelError(ctx, "the output type does not match the weight and padding");
  }
  CARVE_RETURN_IF_ERROR(VisitWinogradFloat(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<T> x, Buffer<T>::Of(ctx, data));
    CARVE_ASSIGN_OR_RETURN(Buffer<T> u, Buffer<T>::Of(ctx, weight));
    const std::vector<T> a = Rounded<T>(w.a), b = Rounded<T>(w.b);
    const auto at = [&](int64_t n, int64_t c, int64_t d, int64_t h, int64_t wi) -> T {
      d -= pad[0];
      h -= pad[1];
      wi -= pad[2];
      if (d < 0 || d >= in_d || h < 0 || h >= in_h || wi < 0 || wi >= in_w) return T(0);
      return x.data()[(((n * ci + c) * in_d + d) * in_h + h) * in_w + wi];
    };
    std::vector<T> y(size_t(out.num_elements()), T(0));
    const int64_t th_n = (oh + m - 1) / m, tw_n = (ow + m - 1) / m;
    const int64_t a2 = alpha * alpha;
    if (depth) {
      const int64_t a3 = a2 * alpha;
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t td = 0; td < (od + m - 1) / m; ++td) {
          for (int64_t th = 0; th < th_n; ++th) {
            for (int64_t tw = 0; tw < tw_n; ++tw) {
              std::vector<T> mm(size_t(co * a3), T(0));
              for (int64_t c = 0; c < ci; ++c) {
                std::vector<T> tile(static_cast<size_t>(a3));
                for (int64_t e = 0; e < a3; ++e) {
                  tile[e] =
                      at(n, c, td * m + e / a2, th * m + e / alpha % alpha, tw * m + e % alpha);
                }
                const std::vector<T> v = Transform(std::move(tile), 3, alpha, alpha, b);
                for (int64_t o = 0; o < co; ++o) {
                  for (int64_t e = 0; e < a3; ++e)
                    mm[o * a3 + e] += v[e] * u.data()[(e * co + o) * ci + c];
                }
              }
              for (int64_t o = 0; o < co; ++o) {
                const std::vector<T> t = Transform(
                    std::vector<T>(mm.begin() + o * a3, mm.begin() + (o + 1) * a3), 3, alpha, m, a);
                for (int64_t e = 0; e < int64_t(m) * m * m; ++e) {
                  const int64_t d = td * m + e / (m * m), h = th * m + e / m % m,
                                wi = tw * m + e % m;
                  if (d < od && h < oh && wi < ow)
                    y[(((n * co + o) * od + d) * oh + h) * ow + wi] = t[e];
                }
              }
            }
          }
        }
      }
    } else {
      const int64_t padded_d = in_d + pad[0] + pad[3];
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t th = 0; th < th_n; ++th) {
          for (int64_t tw = 0; tw < tw_n; ++tw) {
            // V[c][dz] for every padded depth slice.
            std::vector<T> v(size_t(ci * padded_d * a2));
            for (int64_t c = 0; c < ci; ++c) {
              for (int64_t dz = 0; dz < padded_d; ++dz) {
                std::vector<T> tile(static_cast<size_t>(a2));
                for (int64_t e = 0; e < a2; ++e) {
                  tile[e] = at(n, c, dz, th * m + e / alpha, tw * m + e % alpha);
                }
                const std::vector<T> t = Transform(std::move(tile), 2, alpha, alpha, b);
                std::copy(t.begin(), t.end(), v.begin() + (c * padded_d + dz) * a2);
              }
            }
            for (int64_t d = 0; d < od; ++d) {
              for (int64_t o = 0; o < co; ++o) {
                std::vector<T> mm(static_cast<size_t>(a2), T(0));
                for (int64_t c = 0; c < ci; ++c) {
                  for (int64_t rz = 0; rz < kd; ++rz) {
                    const T* vs = v.data() + (c * padded_d + d * strides[0] + rz) * a2;
                    for (int64_t e = 0; e < a2; ++e) {
                      mm[e] += u.data()[((e * kd + rz) * co + o) * ci + c] * vs[e];
                    }
                  }
                }
                const std::vector<T> t = Transform(std::move(mm), 2, alpha, m, a);
                for (int64_t e = 0; e < int64_t(m) * m; ++e) {
                  const int64_t h = th * m + e / m, wi = tw * m + e % m;
                  if (h < oh && wi < ow) y[(((n * co + o) * od + d) * oh + h) * ow + wi] = t[e];
                }
              }
            }
          }
        }
      }
    }
    return Store(ctx, y.data(), out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.contrib_conv3d_winograd_weight_transform",
                      carve::nn_kernels::WeightTransform3D);
CARVE_REGISTER_KERNEL("nn.contrib_conv3d_winograd_without_weight_transform",
                      carve::nn_kernels::WinogradConv3D);
