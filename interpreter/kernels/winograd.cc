// nn.contrib_conv2d_winograd_weight_transform and
// nn.contrib_conv2d_winograd_without_weight_transform with TVM's transform
// matrices (topi/nn/winograd_util.py): Cook-Toom matrices A, B, G for
// F(m, r) built from the interpolation points of Barabasz et al. (arXiv
// 1803.10986) for degree m + r - 2, computed in double and rounded to the
// compute dtype, as TVM rounds its constant matrices.
//
// The weight transform is topi's conv2d_winograd_weight_transform: U[eps,
// nu, co, ci] = sum over (kh, kw) of w[co, ci, kh, kw] * G[eps, kh] *
// G[nu, kw]. The convolution is topi's pre-computed Winograd conv2d
// (conv2d_winograd_nchw / _nhwc): tiles of m x m outputs, V = B^T d B per
// input tile, M = sum over ci of V * U, Y = A^T M A. Like TVM's computes it
// takes a 3x3 kernel, stride 1, dilation 1 and one group.
#include <cmath>
#include <cstdint>
#include <vector>

#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/winograd_matrices.h"

namespace carve::nn_kernels {
namespace {

// The interpolation points for a degree (m + r - 2) of 2..16: TVM's table.
std::vector<double> InterpolationPoints(int degree) {
  static const std::vector<double> kPoints[] = {
      {0, -1, 1},
      {0, -1, 1, 1.0 / 2},
      {0, -1, 1, 1.0 / 2, -2},
      {0, -1, 1, 1.0 / 2, -2, -1.0 / 2},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 3.0 / 4, -4.0 / 3},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 3.0 / 4, -4.0 / 3},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 3.0 / 4, -4.0 / 3, 1.0 / 4},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, -4},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, 3.0 / 4,
       -4.0 / 3},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, -4, 3.0 / 4,
       -4.0 / 3},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, -4, 2.0 / 3,
       -3.0 / 2, 3.0 / 2},
      {0, -1, 1, 1.0 / 2, -1.0 / 2, 2, -2, -1.0 / 4, 4, 1.0 / 4, -3.0 / 4, 4.0 / 3, -4, 2.0 / 3,
       -3.0 / 2, -2.0 / 3, 3.0 / 2},
  };
  return kPoints[degree - 3];
}

// a^j with 0^0 = 1.
double Power(double a, int j) {
  double v = 1;
  for (int i = 0; i < j; ++i) v *= a;
  return v;
}

// TVM's matrix of powers: rows p[i]^j (j < cols) for the first rows - 1
// points, then the unit row at the point at infinity.
std::vector<double> PowerMatrix(const std::vector<double>& p, int rows, int cols) {
  std::vector<double> out(size_t(rows * cols), 0.0);
  for (int i = 0; i + 1 < rows; ++i) {
    for (int j = 0; j < cols; ++j) out[i * cols + j] = Power(p[i], j);
  }
  out[(rows - 1) * cols + cols - 1] = 1;
  return out;
}

}  // namespace

absl::StatusOr<WinogradMatrices> MakeWinogradMatrices(const KernelContext& ctx, int m, int r) {
  if (m < 2 || m > 8) return KernelError(ctx, "TVM's Winograd takes tile sizes 2..8, got {}", m);
  if (r < 3 || r > 7) return KernelError(ctx, "TVM's Winograd takes kernel sizes 3..7, got {}", r);
  WinogradMatrices w;
  w.m = m;
  w.r = r;
  w.alpha = m + r - 1;
  const int n = w.alpha;  // n - 1 finite points and the point at infinity
  const std::vector<double> p = InterpolationPoints(m + r - 2);
  // Products of point differences: f = diag(prod_{k != i}(p_i - p_k), 1),
  // with the first row's sign made positive.
  std::vector<double> diff(size_t(n - 1));
  for (int i = 0; i + 1 < n; ++i) {
    double v = 1;
    for (int k = 0; k + 1 < n; ++k) v *= k != i ? p[i] - p[k] : 1.0;
    diff[i] = v;
  }
  std::vector<double> f(diff);
  f.push_back(1);
  if (f[0] < 0) f[0] = -f[0];

  w.a = PowerMatrix(p, n, m);
  // G = f^-1 applied to the power matrix with r columns (TVM multiplies by
  // the inverse's diagonal).
  w.g = PowerMatrix(p, n, r);
  for (int i = 0; i < n; ++i) {
    const double inv = 1.0 / f[i];
    for (int j = 0; j < r; ++j) w.g[i * r + j] *= inv;
  }
  // B: row i < n - 1 holds the coefficients of the Lagrange basis
  // polynomial prod_{k != i}(x - p_k) / diff_i, column n - 1 the sum with
  // -p_k^(n-1); the last row is the unit row; columns scaled by f.
  std::vector<double> lag(size_t((n - 1) * (n - 1)));  // [i][power]
  for (int i = 0; i + 1 < n; ++i) {
    std::vector<double> poly{1.0};  // ascending powers
    for (int k = 0; k + 1 < n; ++k) {
      if (k == i) continue;
      std::vector<double> next(poly.size() + 1, 0.0);
      for (size_t q = 0; q < poly.size(); ++q) {
        next[q + 1] += poly[q];
        next[q] -= p[k] * poly[q];
      }
      poly = next;
    }
    for (int q = 0; q + 1 < n; ++q) lag[i * (n - 1) + q] = poly[q] / diff[i];
  }
  w.b.assign(size_t(n * n), 0.0);
  for (int i = 0; i + 1 < n; ++i) {
    double last = 0;
    for (int k = 0; k + 1 < n; ++k) {
      w.b[i * n + k] = lag[k * (n - 1) + i];
      last += lag[k * (n - 1) + i] * -Power(p[k], n - 1);
    }
    w.b[i * n + n - 1] = last;
  }
  w.b[(n - 1) * n + n - 1] = 1;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) w.b[i * n + j] *= f[j];
  }
  return w;
}

namespace {

absl::StatusOr<std::vector<NDArray>> WeightTransform(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& weight = ctx.inputs[0];
  if (weight.rank() != 4 || weight.shape()[2] != weight.shape()[3]) {
    return KernelError(ctx, "expected a square OIHW kernel");
  }
  const int64_t co = weight.shape()[0], ci = weight.shape()[1], k = weight.shape()[2];
  CARVE_ASSIGN_OR_RETURN(WinogradMatrices w,
                         MakeWinogradMatrices(ctx, int(AttrInt(ctx, "tile_size", 0)), int(k)));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  CARVE_RETURN_IF_ERROR(VisitWinogradFloat(ctx, weight.dtype(), [&]<typename T>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<T> in, Buffer<T>::Of(ctx, weight));
    const std::vector<T> g = Rounded<T>(w.g);
    const int64_t alpha = w.alpha, r = w.r;
    std::vector<T> u(size_t(alpha * alpha * co * ci));
    for (int64_t eps = 0; eps < alpha; ++eps) {
      for (int64_t nu = 0; nu < alpha; ++nu) {
        for (int64_t o = 0; o < co; ++o) {
          for (int64_t i = 0; i < ci; ++i) {
            const T* kernel = in.data() + (o * ci + i) * k * k;
            T acc = 0;
            for (int64_t kh = 0; kh < k; ++kh) {
              for (int64_t kw = 0; kw < k; ++kw) {
                acc += kernel[kh * k + kw] * g[eps * r + kh] * g[nu * r + kw];
              }
            }
            u[((eps * alpha + nu) * co + o) * ci + i] = acc;
          }
        }
      }
    }
    return Store(ctx, u.data(), out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<std::vector<NDArray>> WinogradConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const std::string_view layout = AttrString(ctx, "data_layout", "NCHW");
  const std::string_view out_layout = AttrString(ctx, "out_layout", "");
  if (layout != "NCHW" && layout != "NHWC") {
    return KernelError(ctx, "TVM computes Winograd conv2d in NCHW and NHWC only, got {}", layout);
  }
  if (!out_layout.empty() && out_layout != layout) {
    return KernelError(ctx, "out_layout {} differs from data_layout {}", out_layout, layout);
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialInts(ctx, "strides", 2, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, SpatialInts(ctx, "dilation", 2, 1));
  if (strides != std::vector<int64_t>{1, 1} || dilation != std::vector<int64_t>{1, 1} ||
      AttrInt(ctx, "groups", 1) != 1) {
    return KernelError(ctx, "TVM's Winograd compute takes stride 1, dilation 1 and one group");
  }
  std::vector<int64_t> padding = AttrInts(ctx, "padding").value_or(std::vector<int64_t>{0});
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pad, ExpandPadding(ctx, padding, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  const int m = int(AttrInt(ctx, "tile_size", 0));
  if (data.rank() != 4 || weight.rank() != 4 || weight.shape()[0] != weight.shape()[1]) {
    return KernelError(ctx, "expected 4-d data and an (alpha, alpha, CO, CI) weight");
  }
  const int r = int(weight.shape()[0]) - m + 1;
  if (r != 3) {
    return KernelError(ctx, "TVM's Winograd compute takes a 3x3 kernel (weight {}x{} at tile {})",
                       weight.shape()[0], weight.shape()[1], m);
  }
  CARVE_ASSIGN_OR_RETURN(WinogradMatrices w, MakeWinogradMatrices(ctx, m, r));
  const bool nchw = layout == "NCHW";
  const int64_t batch = data.shape()[0];
  const int64_t ci = data.shape()[nchw ? 1 : 3];
  const int64_t height = data.shape()[nchw ? 2 : 1], width = data.shape()[nchw ? 3 : 2];
  const int64_t co = weight.shape()[2];
  if (weight.shape()[3] != ci) {
    return KernelError(ctx, "weight has {} input channels, data {}", weight.shape()[3], ci);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t out_h = out.shape()[nchw ? 2 : 1], out_w = out.shape()[nchw ? 3 : 2];
  if (out.shape()[nchw ? 1 : 3] != co || out_h != height + pad[0] + pad[2] - r + 1 ||
      out_w != width + pad[1] + pad[3] - r + 1) {
    return KernelError(ctx, "the output type does not match the weight and padding");
  }
  CARVE_RETURN_IF_ERROR(VisitWinogradFloat(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    const int perm_nhwc[] = {0, 2, 3, 1};
    const int identity[] = {0, 1, 2, 3};
    // Data as NHWC, the weight (alpha, alpha, CO, CI) as is.
    CARVE_ASSIGN_OR_RETURN(Buffer<T> d,
                           Buffer<T>::Permuted(ctx, data, nchw ? perm_nhwc : identity));
    CARVE_ASSIGN_OR_RETURN(Buffer<T> u, Buffer<T>::Of(ctx, weight));
    const std::vector<T> a = Rounded<T>(w.a), b = Rounded<T>(w.b);
    const int64_t alpha = w.alpha, tiles_h = (out_h + m - 1) / m, tiles_w = (out_w + m - 1) / m;
    std::vector<T> y(size_t(batch * out_h * out_w * co));  // NHWC
    std::vector<T> tile(size_t(alpha * alpha * ci)), v(tile.size()), mm(size_t(alpha * alpha * co));
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t th = 0; th < tiles_h; ++th) {
        for (int64_t tw = 0; tw < tiles_w; ++tw) {
          // The input tile (zero outside the data: padding and the tail).
          for (int64_t e = 0; e < alpha; ++e) {
            for (int64_t f = 0; f < alpha; ++f) {
              const int64_t ih = th * m + e - pad[0], iw = tw * m + f - pad[1];
              const bool inside = ih >= 0 && ih < height && iw >= 0 && iw < width;
              for (int64_t c = 0; c < ci; ++c) {
                tile[(e * alpha + f) * ci + c] =
                    inside ? d.data()[((n * height + ih) * width + iw) * ci + c] : T(0);
              }
            }
          }
          // V[eps, nu] = sum over (ra, rb) of tile[ra, rb] * B[ra, eps] * B[rb, nu].
          for (int64_t eps = 0; eps < alpha; ++eps) {
            for (int64_t nu = 0; nu < alpha; ++nu) {
              for (int64_t c = 0; c < ci; ++c) {
                T acc = 0;
                for (int64_t ra = 0; ra < alpha; ++ra) {
                  for (int64_t rb = 0; rb < alpha; ++rb) {
                    acc +=
                        tile[(ra * alpha + rb) * ci + c] * b[ra * alpha + eps] * b[rb * alpha + nu];
                  }
                }
                v[(eps * alpha + nu) * ci + c] = acc;
              }
            }
          }
          // M[eps, nu, co] = sum over ci of V * U.
          for (int64_t en = 0; en < alpha * alpha; ++en) {
            for (int64_t o = 0; o < co; ++o) {
              const T* uw = u.data() + (en * co + o) * ci;
              T acc = 0;
              for (int64_t c = 0; c < ci; ++c) acc += v[en * ci + c] * uw[c];
              mm[en * co + o] = acc;
            }
          }
          // Y[vh, vw] = sum over (ra, rb) of M[ra, rb] * A[ra, vh] * A[rb, vw].
          for (int64_t vh = 0; vh < m && th * m + vh < out_h; ++vh) {
            for (int64_t vw = 0; vw < m && tw * m + vw < out_w; ++vw) {
              T* dst = y.data() + ((n * out_h + th * m + vh) * out_w + tw * m + vw) * co;
              for (int64_t o = 0; o < co; ++o) {
                T acc = 0;
                for (int64_t ra = 0; ra < alpha; ++ra) {
                  for (int64_t rb = 0; rb < alpha; ++rb) {
                    acc += mm[(ra * alpha + rb) * co + o] * a[ra * m + vh] * a[rb * m + vw];
                  }
                }
                dst[o] = acc;
              }
            }
          }
        }
      }
    }
    return StorePermuted(ctx, y.data(), nchw ? perm_nhwc : identity, out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.contrib_conv2d_winograd_weight_transform",
                      carve::nn_kernels::WeightTransform);
CARVE_REGISTER_KERNEL("nn.contrib_conv2d_winograd_without_weight_transform",
                      carve::nn_kernels::WinogradConv2D);
