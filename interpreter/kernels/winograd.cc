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

// prod_{k != i}(p_i - p_k) over the n - 1 finite points, per point i.
std::vector<double> PointDifferences(const std::vector<double>& p, int n) {
  std::vector<double> diff(size_t(n - 1));
  for (int i = 0; i + 1 < n; ++i) {
    double v = 1;
    for (int k = 0; k + 1 < n; ++k) v *= k != i ? p[i] - p[k] : 1.0;
    diff[i] = v;
  }
  return diff;
}

// The coefficients of the Lagrange basis polynomials prod_{k != i}(x - p_k)
// / diff_i, [i][power] in ascending powers.
std::vector<double> LagrangeCoefficients(const std::vector<double>& p,
                                         const std::vector<double>& diff, int n) {
  std::vector<double> lag(size_t((n - 1) * (n - 1)));
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
  return lag;
}

// B: row i < n - 1 holds the Lagrange coefficients of power i, column
// n - 1 their sum with -p_k^(n-1); the last row is the unit row; columns
// scaled by f.
std::vector<double> BMatrix(const std::vector<double>& p, const std::vector<double>& diff,
                            const std::vector<double>& f, int n) {
  const std::vector<double> lag = LagrangeCoefficients(p, diff, n);
  std::vector<double> b(size_t(n * n), 0.0);
  for (int i = 0; i + 1 < n; ++i) {
    double last = 0;
    for (int k = 0; k + 1 < n; ++k) {
      b[i * n + k] = lag[k * (n - 1) + i];
      last += lag[k * (n - 1) + i] * -Power(p[k], n - 1);
    }
    b[i * n + n - 1] = last;
  }
  b[(n - 1) * n + n - 1] = 1;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) b[i * n + j] *= f[j];
  }
  return b;
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
  const std::vector<double> diff = PointDifferences(p, n);
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
  w.b = BMatrix(p, diff, f, n);
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

// The extents of one Winograd conv2d, read as NHWC whatever the layout.
struct Conv2DGeometry {
  bool nchw = true;
  int m = 0;  // output tile size
  int64_t batch = 0, ci = 0, height = 0, width = 0, co = 0, alpha = 0;
  int64_t out_h = 0, out_w = 0;  // from the output, once allocated
  std::vector<int64_t> pad;      // top, left, bottom, right
};

// The layouts, strides, dilation and groups TVM's compute takes; fills the
// layout and the padding.
absl::Status CheckConv2DAttrs(const KernelContext& ctx, Conv2DGeometry& g) {
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
  CARVE_ASSIGN_OR_RETURN(g.pad, ExpandPadding(ctx, padding, 2));
  g.nchw = layout == "NCHW";
  return absl::OkStatus();
}

// The tile size and kernel size of the transformed weight (3x3 only, as in
// TVM's compute).
absl::StatusOr<int> Conv2DKernelSize(const KernelContext& ctx, const NDArray& data,
                                     const NDArray& weight, int m) {
  if (data.rank() != 4 || weight.rank() != 4 || weight.shape()[0] != weight.shape()[1]) {
    return KernelError(ctx, "expected 4-d data and an (alpha, alpha, CO, CI) weight");
  }
  const int r = int(weight.shape()[0]) - m + 1;
  if (r != 3) {
    return KernelError(ctx, "TVM's Winograd compute takes a 3x3 kernel (weight {}x{} at tile {})",
                       weight.shape()[0], weight.shape()[1], m);
  }
  return r;
}

// One convolution in T on NHWC data and the (alpha, alpha, CO, CI) weight,
// one m x m output tile at a time: V = B^T d B, M = sum over ci of V * U,
// Y = A^T M A.
template <typename T>
class Winograd2DRun {
 public:
  Winograd2DRun(const Conv2DGeometry& g, const WinogradMatrices& w, const T* d, const T* u)
      : g_(g), d_(d), u_(u), a_(Rounded<T>(w.a)), b_(Rounded<T>(w.b)),
        y_(size_t(g.batch * g.out_h * g.out_w * g.co)),
        tile_(size_t(g.alpha * g.alpha * g.ci)), v_(tile_.size()),
        mm_(size_t(g.alpha * g.alpha * g.co)) {}

  void Run() {
    const int64_t tiles_h = (g_.out_h + g_.m - 1) / g_.m, tiles_w = (g_.out_w + g_.m - 1) / g_.m;
    for (int64_t n = 0; n < g_.batch; ++n) {
      for (int64_t th = 0; th < tiles_h; ++th) {
        for (int64_t tw = 0; tw < tiles_w; ++tw) {
          LoadTile(n, th, tw);
          TransformInput();
          MultiplyWeights();
          TransformOutput(n, th, tw);
        }
      }
    }
  }

  const std::vector<T>& result() const { return y_; }  // NHWC

 private:
  // The input tile (zero outside the data: padding and the tail).
  void LoadTile(int64_t n, int64_t th, int64_t tw) {
    const int64_t alpha = g_.alpha, ci = g_.ci;
    for (int64_t e = 0; e < alpha; ++e) {
      for (int64_t f = 0; f < alpha; ++f) {
        const int64_t ih = th * g_.m + e - g_.pad[0], iw = tw * g_.m + f - g_.pad[1];
        const bool inside = ih >= 0 && ih < g_.height && iw >= 0 && iw < g_.width;
        for (int64_t c = 0; c < ci; ++c) {
          tile_[(e * alpha + f) * ci + c] =
              inside ? d_[((n * g_.height + ih) * g_.width + iw) * ci + c] : T(0);
        }
      }
    }
  }

  // V[eps, nu] = sum over (ra, rb) of tile[ra, rb] * B[ra, eps] * B[rb, nu].
  void TransformInput() {
    const int64_t alpha = g_.alpha, ci = g_.ci;
    for (int64_t eps = 0; eps < alpha; ++eps) {
      for (int64_t nu = 0; nu < alpha; ++nu) {
        for (int64_t c = 0; c < ci; ++c) {
          T acc = 0;
          for (int64_t ra = 0; ra < alpha; ++ra) {
            for (int64_t rb = 0; rb < alpha; ++rb) {
              acc += tile_[(ra * alpha + rb) * ci + c] * b_[ra * alpha + eps] * b_[rb * alpha + nu];
            }
          }
          v_[(eps * alpha + nu) * ci + c] = acc;
        }
      }
    }
  }

  // M[eps, nu, co] = sum over ci of V * U.
  void MultiplyWeights() {
    const int64_t ci = g_.ci, co = g_.co;
    for (int64_t en = 0; en < g_.alpha * g_.alpha; ++en) {
      for (int64_t o = 0; o < co; ++o) {
        const T* uw = u_ + (en * co + o) * ci;
        T acc = 0;
        for (int64_t c = 0; c < ci; ++c) acc += v_[en * ci + c] * uw[c];
        mm_[en * co + o] = acc;
      }
    }
  }

  // Y[vh, vw] = sum over (ra, rb) of M[ra, rb] * A[ra, vh] * A[rb, vw].
  void TransformOutput(int64_t n, int64_t th, int64_t tw) {
    const int64_t alpha = g_.alpha, co = g_.co, m = g_.m;
    for (int64_t vh = 0; vh < m && th * m + vh < g_.out_h; ++vh) {
      for (int64_t vw = 0; vw < m && tw * m + vw < g_.out_w; ++vw) {
        T* dst = y_.data() + ((n * g_.out_h + th * m + vh) * g_.out_w + tw * m + vw) * co;
        for (int64_t o = 0; o < co; ++o) {
          T acc = 0;
          for (int64_t ra = 0; ra < alpha; ++ra) {
            for (int64_t rb = 0; rb < alpha; ++rb) {
              acc += mm_[(ra * alpha + rb) * co + o] * a_[ra * m + vh] * a_[rb * m + vw];
            }
          }
          dst[o] = acc;
        }
      }
    }
  }

  const Conv2DGeometry& g_;
  const T* d_;
  const T* u_;
  const std::vector<T> a_, b_;
  std::vector<T> y_, tile_, v_, mm_;
};

absl::StatusOr<std::vector<NDArray>> WinogradConv2D(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  Conv2DGeometry g;
  CARVE_RETURN_IF_ERROR(CheckConv2DAttrs(ctx, g));
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  g.m = int(AttrInt(ctx, "tile_size", 0));
  CARVE_ASSIGN_OR_RETURN(const int r, Conv2DKernelSize(ctx, data, weight, g.m));
  CARVE_ASSIGN_OR_RETURN(WinogradMatrices w, MakeWinogradMatrices(ctx, g.m, r));
  const bool nchw = g.nchw;
  g.batch = data.shape()[0];
  g.ci = data.shape()[nchw ? 1 : 3];
  g.height = data.shape()[nchw ? 2 : 1];
  g.width = data.shape()[nchw ? 3 : 2];
  g.co = weight.shape()[2];
  g.alpha = w.alpha;
  if (weight.shape()[3] != g.ci) {
    return KernelError(ctx, "weight has {} input channels, data {}", weight.shape()[3], g.ci);
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  g.out_h = out.shape()[nchw ? 2 : 1];
  g.out_w = out.shape()[nchw ? 3 : 2];
  if (out.shape()[nchw ? 1 : 3] != g.co || g.out_h != g.height + g.pad[0] + g.pad[2] - r + 1 ||
      g.out_w != g.width + g.pad[1] + g.pad[3] - r + 1) {
    return KernelError(ctx, "the output type does not match the weight and padding");
  }
  CARVE_RETURN_IF_ERROR(VisitWinogradFloat(ctx, out.dtype(), [&]<typename T>() -> absl::Status {
    const int perm_nhwc[] = {0, 2, 3, 1};
    const int identity[] = {0, 1, 2, 3};
    // Data as NHWC, the weight (alpha, alpha, CO, CI) as is.
    CARVE_ASSIGN_OR_RETURN(Buffer<T> d,
                           Buffer<T>::Permuted(ctx, data, nchw ? perm_nhwc : identity));
    CARVE_ASSIGN_OR_RETURN(Buffer<T> u, Buffer<T>::Of(ctx, weight));
    Winograd2DRun<T> run(g, w, d.data(), u.data());
    run.Run();
    return StorePermuted(ctx, run.result().data(), nchw ? perm_nhwc : identity, out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace
}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.contrib_conv2d_winograd_weight_transform",
                      carve::nn_kernels::WeightTransform);
CARVE_REGISTER_KERNEL("nn.contrib_conv2d_winograd_without_weight_transform",
                      carve::nn_kernels::WinogradConv2D);
