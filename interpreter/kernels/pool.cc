// Kernels for the pooling ops (ops.md §10): nn.{max,avg}_pool{1,2,3}d,
// nn.global_{max,avg}_pool2d and nn.adaptive_{max,avg}_pool{1,2,3}d.
//
// Every layout whose pooled axes (D/H/W) are unsplit works, split ones such
// as NCHW16c included: the input is viewed as [planes, D, H, W] (the other
// axes, in layout order, flattened into planes; a free view for NCHW),
// pooled plane by plane, and written back in the same layout (TVM's
// computes ignore out_layout).

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "interpreter/kernels/alloc_uninitialized.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/nn_util.h"
#include "ir/layout.h"

namespace carve::nn_kernels {
namespace {

enum class PoolKind { kMax, kAvg };

// Window geometry over (D, H, W); unused leading axes have extent 1.
struct PoolGeometry {
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1};
  std::array<int64_t, 3> pad_before{0, 0, 0}, pad_after{0, 0, 0};
  bool adaptive = false;
  bool count_include_pad = false;
  bool ceil_mode = false;
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
};

// The taps [lo, hi) of output index `o` on one axis that read real input,
// and the divisor count of the window on that axis.
struct AxisWindow {
  int64_t lo = 0, hi = 0;  // input coordinates are begin + k * step for k in [lo, hi)
  int64_t begin = 0, step = 1;
  int64_t count = 0;
};

AxisWindow WindowAt(const PoolGeometry& g, int a, int64_t o) {
  AxisWindow w;
  if (g.adaptive) {  // bin [floor(o * in / out), ceil((o + 1) * in / out))
    w.begin = o * g.in[a] / g.out[a];
    const int64_t end = ((o + 1) * g.in[a] + g.out[a] - 1) / g.out[a];
    w.hi = end - w.begin;
    w.count = w.hi;
    return w;
  }
  w.begin = o * g.stride[a] - g.pad_before[a];
  w.step = g.dilation[a];
  // Taps k with 0 <= begin + k * step < extent, for k < kernel.
  auto taps = [&](int64_t offset, int64_t extent) {
    int64_t lo = offset >= 0 ? 0 : (-offset + w.step - 1) / w.step;
    int64_t hi = extent - 1 - offset < 0 ? 0 : (extent - 1 - offset) / w.step + 1;
    hi = std::min(hi, g.kernel[a]);
    return std::pair<int64_t, int64_t>(std::min(lo, hi), hi);
  };
  std::tie(w.lo, w.hi) = taps(w.begin, g.in[a]);
  // count_include_pad counts taps inside [-pad_before, in + pad_after): the
  // padding, but not the extra ceil_mode overhang.
  auto [plo, phi] = taps(w.begin + g.pad_before[a], g.in[a] + g.pad_before[a] + g.pad_after[a]);
  w.count = g.count_include_pad ? phi - plo : w.hi - w.lo;
  return w;
}

// The windows of every output index on each axis (WindowAt), computed once
// per call rather than once per output element of every plane.
using AxisWindows = std::array<std::vector<AxisWindow>, 3>;

AxisWindows WindowsOf(const PoolGeometry& g) {
  AxisWindows w;
  for (int a = 0; a < 3; ++a) {
    for (int64_t o = 0; o < g.out[a]; ++o) w[a].push_back(WindowAt(g, a, o));
  }
  return w;
}

// One tap of a window: max keeps the larger value (the first of equal
// ones, so -0 / +0 and NaN behave as in a scalar loop), avg sums.
template <PoolKind kKind, typename C>
inline C PoolStep(C acc, C v) {
  if constexpr (kKind == PoolKind::kMax) {
    return v > acc ? v : acc;
  } else {
    return acc + v;
  }
}

// The output columns [first, last) whose W windows are whole (every tap
// reads input): contiguous, since window starts grow with the column.
std::pair<int64_t, int64_t> WholeColumns(const PoolGeometry& g, const AxisWindows& windows) {
  if (g.adaptive) return {0, 0};
  auto whole = [&](int64_t ow) {
    return windows[2][ow].lo == 0 && windows[2][ow].hi == g.kernel[2];
  };
  int64_t first = 0;
  while (first < g.out[2] && !whole(first)) ++first;
  int64_t last = first;
  while (last < g.out[2] && whole(last)) ++last;
  return {first, last};
}

// Whole-window columns of one output row, Lanes at a time: each block's
// Lanes results stay in registers across every (kd, kh, kw) tap, in that
// order, instead of one pass over the row per tap. W strides 1 and 2 only
// (stride 2 de-interleaves two loads). `acc` receives the pooled values
// (before an average's division) of columns [first, last).
template <PoolKind kKind, typename C, int Lanes>
struct PoolRowBlocks {
  typedef C Vec __attribute__((vector_size(Lanes * sizeof(C))));
  typedef C Unaligned __attribute__((vector_size(Lanes * sizeof(C)), aligned(alignof(C)),
                                     may_alias));
  using Int = std::conditional_t<sizeof(C) == 8, int64_t, int32_t>;
  typedef Int Index __attribute__((vector_size(Lanes * sizeof(C))));

  static bool Applies(const PoolGeometry& g, int64_t first, int64_t last) {
    return std::is_floating_point_v<C> && (g.stride[2] == 1 || g.stride[2] == 2) &&
           last - first >= Lanes;
  }

  // Columns p[0], p[s], ..., p[(Lanes - 1) * s]; reads nothing past the last.
  static Vec Load(const C* p, int64_t s) {
    const Vec a = *reinterpret_cast<const Unaligned*>(p);
    if (s == 1) return a;
    const Vec b = *reinterpret_cast<const Unaligned*>(p + Lanes - 1);
    // Even elements of a, then b[1], b[3], ... (= p[Lanes], ...).
#if defined(__clang__)
    // Clang has no two-vector __builtin_shuffle with a runtime mask (its
    // sanitizer build compiles this file); element moves give the same lanes.
    Vec r;
    for (int j = 0; j < Lanes; ++j) r[j] = j < Lanes / 2 ? a[2 * j] : b[2 * j + 1 - Lanes];
    return r;
#else
    Index pick;
    for (int j = 0; j < Lanes; ++j) pick[j] = Int(j < Lanes / 2 ? 2 * j : 2 * j + 1);
    return __builtin_shuffle(a, b, pick);
#endif
  }

  static Vec Step(Vec r, Vec v) {
    if constexpr (kKind == PoolKind::kMax) {
      return v > r ? v : r;
    } else {
      return r + v;
    }
  }

  // NB blocks starting at at[0, NB), their accumulators named (GCC keeps
  // an array of vectors in memory) so NB independent chains overlap.
  template <int NB>
  static void Blocks(const PoolGeometry& g, const AxisWindow& wd, const AxisWindow& wh, C init,
                     const C* in, const int64_t* at, C* acc) {
    const int64_t s = g.stride[2], dil = g.dilation[2], pad = g.pad_before[2];
    Vec r0 = init - Vec{}, r1 = r0, r2 = r0, r3 = r0;
    for (int64_t kd = wd.lo; kd < wd.hi; ++kd) {
      const int64_t id = wd.begin + kd * wd.step;
      for (int64_t kh = wh.lo; kh < wh.hi; ++kh) {
        const C* row = in + (id * g.in[1] + wh.begin + kh * wh.step) * g.in[2];
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const C* p = row + kw * dil - pad;
          r0 = Step(r0, Load(p + at[0] * s, s));
          if constexpr (NB > 1) r1 = Step(r1, Load(p + at[1] * s, s));
          if constexpr (NB > 2) r2 = Step(r2, Load(p + at[2] * s, s));
          if constexpr (NB > 3) r3 = Step(r3, Load(p + at[3] * s, s));
        }
      }
    }
    *reinterpret_cast<Unaligned*>(acc + at[0]) = r0;
    if constexpr (NB > 1) *reinterpret_cast<Unaligned*>(acc + at[1]) = r1;
    if constexpr (NB > 2) *reinterpret_cast<Unaligned*>(acc + at[2]) = r2;
    if constexpr (NB > 3) *reinterpret_cast<Unaligned*>(acc + at[3]) = r3;
  }

  static void Run(const PoolGeometry& g, const AxisWindow& wd, const AxisWindow& wh, C init,
                  const C* in, int64_t first, int64_t last, C* acc) {
    // Block starts every Lanes columns; the last one moves back to end at
    // `last`, recomputing a few columns of its neighbour with the same taps
    // in the same order.
    int64_t at[4], n = 0;
    for (int64_t ow = first; ow < last; ow += Lanes) {
      at[n++] = std::min(ow, last - Lanes);
      if (n == 4) {
        Blocks<4>(g, wd, wh, init, in, at, acc);
        n = 0;
      }
    }
    if (n == 3) Blocks<3>(g, wd, wh, init, in, at, acc);
    if (n == 2) Blocks<2>(g, wd, wh, init, in, at, acc);
    if (n == 1) Blocks<1>(g, wd, wh, init, in, at, acc);
  }
};

// A 2-d plane whose KxK windows at stride S all lie inside the image (no
// padding read, no dilation): LeNet's 2x2 / 2 pooling of small maps, where
// the general loop's per-row bookkeeping costs more than the taps, and
// SqueezeNet's 3x3 / 2.
template <int K, int S>
bool WholeFixedWindows(const PoolGeometry& g) {
  return !g.adaptive && g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 &&
         g.kernel[1] == K && g.kernel[2] == K && g.stride[1] == S && g.stride[2] == S &&
         g.dilation[1] == 1 && g.dilation[2] == 1 && g.pad_before[1] == 0 &&
         g.pad_before[2] == 0 && (g.out[1] - 1) * S + K <= g.in[1] &&
         (g.out[2] - 1) * S + K <= g.in[2];
}

#if defined(__AVX2__) && !defined(__AVX512F__)
// p[0], p[2], ..., p[14] from a = p[0..7] and b = p[7..14]: a[0], a[2],
// a[4], a[6], b[1], b[3], b[5], b[7].
inline __m256 EvenElements(__m256 a, __m256 b) {
  const __m256 pairs = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 2, 0));  // a0 a2 b1 b3 | a4 a6 b5 b7
  return _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(pairs), _MM_SHUFFLE(3, 1, 2, 0)));
}

// Outputs [at, at + 8) of one output row of a K x K / 2 pool whose windows
// start at `row` (input rows `width` apart), taps in (kh, kw) order.
template <PoolKind kKind, int K>
void FixedBlock8(const float* row, int64_t width, float init, int64_t at, float* dst) {
  __m256 acc = _mm256_set1_ps(init);
  for (int kh = 0; kh < K; ++kh) {
    const float* r = row + kh * width + at * 2;
    for (int kw = 0; kw < K; ++kw) {
      const __m256 v = EvenElements(_mm256_loadu_ps(r + kw), _mm256_loadu_ps(r + kw + 7));
      acc = kKind == PoolKind::kMax ? _mm256_max_ps(v, acc) : _mm256_add_ps(acc, v);
    }
  }
  if constexpr (kKind == PoolKind::kAvg) acc = _mm256_div_ps(acc, _mm256_set1_ps(K * K));
  _mm256_storeu_ps(dst + at, acc);
}
#endif

// PoolPlane for WholeFixedWindows: each output takes its taps in (kh, kw)
// order, as there, and an average divides by the K * K taps it summed.
template <PoolKind kKind, typename C, int K, int S>
void PoolPlaneFixed(const PoolGeometry& g, C init, const C* in, C* out) {
  const int64_t width = g.in[2], ow_n = g.out[2];
  for (int64_t oh = 0; oh < g.out[1]; ++oh) {
    const C* row = in + oh * S * width;
    C* dst = out + oh * ow_n;
    int64_t ow = 0;
#if defined(__AVX512F__)
    // 16 float outputs at a time at stride 2: each tap's inputs are the even
    // elements of 32 loaded ones. max_ps(v, acc) is v > acc ? v : acc, and
    // add_ps and div_ps round as the scalar steps do.
    if constexpr (std::is_same_v<C, float> && S == 2) {
      const __m512i even =
          _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      for (; (ow + 16) * S + K <= width; ow += 16) {  // the 32 loads stay in the row
        __m512 acc = _mm512_set1_ps(init);
        for (int kh = 0; kh < K; ++kh) {
          const float* r = row + kh * width + ow * S;
          for (int kw = 0; kw < K; ++kw) {
            const __m512 v =
                _mm512_permutex2var_ps(_mm512_loadu_ps(r + kw), even, _mm512_loadu_ps(r + kw + 16));
            acc = kKind == PoolKind::kMax ? _mm512_max_ps(v, acc) : _mm512_add_ps(acc, v);
          }
        }
        if constexpr (kKind == PoolKind::kAvg) acc = _mm512_div_ps(acc, _mm512_set1_ps(K * K));
        _mm512_storeu_ps(dst + ow, acc);
      }
    }
#elif defined(__AVX2__)
    // The same with 8 outputs from 15 loaded elements (SqueezeNet's three
    // 3x3 / 2 max pools were a scalar loop, 4.5% of its reference run). The
    // loads end at the block's last tap, inside the row, so the last block
    // moves back to end at the last column (recomputing a few columns of
    // its neighbour with the same taps in the same order).
    if constexpr (std::is_same_v<C, float> && S == 2) {
      for (; ow + 8 <= ow_n; ow += 8) FixedBlock8<kKind, K>(row, width, init, ow, dst);
      if (ow < ow_n && ow_n >= 8) {
        FixedBlock8<kKind, K>(row, width, init, ow_n - 8, dst);
        ow = ow_n;
      }
    }
#endif
    for (; ow < ow_n; ++ow) {
      C acc = init;
      for (int kh = 0; kh < K; ++kh) {
        for (int kw = 0; kw < K; ++kw) acc = PoolStep<kKind>(acc, row[kh * width + ow * S + kw]);
      }
      if constexpr (kKind == PoolKind::kAvg) {
        dst[ow] = acc / C(K * K);
      } else {
        dst[ow] = acc;
      }
    }
  }
}

// Pools one [D, H, W] plane into one [OD, OH, OW] plane. `lowest` is the
// value of a window with no real input (TVM pads max pools with the dtype's
// lowest value). Each output element takes its taps in (kd, kh, kw) order;
// the columns with whole windows are computed in register blocks
// (PoolRowBlocks) or a row at a time (taps outer, columns inner, so the
// loop vectorises) with that same order per element.
template <PoolKind kKind, typename C>
void PoolPlane(const PoolGeometry& g, const AxisWindows& windows, C lowest, const C* in, C* out,
               std::vector<C>& row_acc) {
  constexpr int kLanes = std::max<int>(kVectorBytes / sizeof(C), 2);
  using Wide = PoolRowBlocks<kKind, C, kLanes>;
  using Narrow = PoolRowBlocks<kKind, C, kLanes / 2>;
  const C init = kKind == PoolKind::kMax ? lowest : C(0);
  if (WholeFixedWindows<2, 2>(g)) return PoolPlaneFixed<kKind, C, 2, 2>(g, init, in, out);
  if (WholeFixedWindows<3, 2>(g)) return PoolPlaneFixed<kKind, C, 3, 2>(g, init, in, out);
  const auto [first, last] = WholeColumns(g, windows);
  const bool blocked = Narrow::Applies(g, first, last);
  const int64_t stride = g.stride[2], dil = g.dilation[2], pad = g.pad_before[2];
  row_acc.resize(g.out[2]);
  for (int64_t od = 0; od < g.out[0]; ++od) {
    const AxisWindow& wd = windows[0][od];
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      const AxisWindow& wh = windows[1][oh];
      C* acc = row_acc.data();
      for (int64_t ow = 0; ow < g.out[2]; ++ow) acc[ow] = init;
      for (int64_t kd = wd.lo; kd < wd.hi; ++kd) {
        const int64_t id = wd.begin + kd * wd.step;
        for (int64_t kh = wh.lo; kh < wh.hi; ++kh) {
          const C* row = in + (id * g.in[1] + wh.begin + kh * wh.step) * g.in[2];
          for (int64_t ow = 0; ow < first; ++ow) {
            const AxisWindow& ww = windows[2][ow];
            for (int64_t kw = ww.lo; kw < ww.hi; ++kw) {
              acc[ow] = PoolStep<kKind>(acc[ow], row[ww.begin + kw * ww.step]);
            }
          }
          for (int64_t kw = 0; kw < g.kernel[2] && !blocked; ++kw) {
            const int64_t off = kw * dil - pad;  // whole windows: ow * stride + off >= 0
            if (stride == 1) {
              for (int64_t ow = first; ow < last; ++ow) {
                acc[ow] = PoolStep<kKind>(acc[ow], row[ow + off]);
              }
            } else {
              for (int64_t ow = first; ow < last; ++ow) {
                acc[ow] = PoolStep<kKind>(acc[ow], row[ow * stride + off]);
              }
            }
          }
          for (int64_t ow = last; ow < g.out[2]; ++ow) {
            const AxisWindow& ww = windows[2][ow];
            for (int64_t kw = ww.lo; kw < ww.hi; ++kw) {
              acc[ow] = PoolStep<kKind>(acc[ow], row[ww.begin + kw * ww.step]);
            }
          }
        }
      }
      if (blocked && Wide::Applies(g, first, last)) {
        Wide::Run(g, wd, wh, init, in, first, last, acc);
      } else if (blocked) {
        Narrow::Run(g, wd, wh, init, in, first, last, acc);
      }
      C* dst = out + (od * g.out[1] + oh) * g.out[2];
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        if constexpr (kKind == PoolKind::kAvg) {
          const int64_t divisor = std::max<int64_t>(1, wd.count * wh.count * windows[2][ow].count);
          dst[ow] = acc[ow] / C(divisor);
        } else {
          dst[ow] = acc[ow];
        }
      }
    }
  }
}

// Global pools (one window over the whole plane, taps in memory order):
// planes [0, n) at `in` (each `size` elements) into out[0, n), kPlanes at a
// time. One plane's sum is a chain of dependent adds, so the planes are
// interleaved to keep kPlanes independent chains in flight; each plane
// still takes its elements in order from `init`.
template <PoolKind kKind, typename C>
void GlobalPoolPlanes(const C* in, int64_t n, int64_t size, C init, C* out) {
  constexpr int kPlanes = 8;
  int64_t p = 0;
  for (; p + kPlanes <= n; p += kPlanes) {
    C acc[kPlanes];
    const C* src[kPlanes];
    for (int j = 0; j < kPlanes; ++j) {
      acc[j] = init;
      src[j] = in + (p + j) * size;
    }
    for (int64_t i = 0; i < size; ++i) {
      for (int j = 0; j < kPlanes; ++j) acc[j] = PoolStep<kKind>(acc[j], src[j][i]);
    }
    for (int j = 0; j < kPlanes; ++j) {
      out[p + j] = kKind == PoolKind::kAvg ? acc[j] / C(std::max<int64_t>(1, size)) : acc[j];
    }
  }
  for (; p < n; ++p) {
    C acc = init;
    for (int64_t i = 0; i < size; ++i) acc = PoolStep<kKind>(acc, in[p * size + i]);
    out[p] = kKind == PoolKind::kAvg ? acc / C(std::max<int64_t>(1, size)) : acc;
  }
}

// The type pools compute in: float/double for floats (float16 via float),
// int64_t for integers (exact sums; TVM sums in the input dtype, which only
// differs when that overflows).
template <typename T>
using PoolCompute = std::conditional_t<kIsFloat<T>, ComputeT<T>, int64_t>;

// How the layout maps onto [planes..., D, H, W]: `perm` lists the tensor
// axes that are not pooled, in layout order (split sub-axes such as the 16c
// of NCHW16c included), then the pooled ones in D, H, W order.
struct PoolLayout {
  std::vector<int> perm;
};

// TVM's Pool*Compute pool in `layout` and return that same layout (as the
// relations type it): `out_layout` only tells layout passes what a consumer
// wants, so it is not read here.
absl::StatusOr<PoolLayout> ResolveLayout(const KernelContext& ctx, int spatial,
                                         const NDArray& data, const NDArray& out) {
  const std::string sp = std::string("DHW").substr(3 - spatial);
  std::string_view text =
      AttrString(ctx, "layout", spatial == 1 ? "NCW" : spatial == 2 ? "NCHW" : "NCDHW");
  absl::StatusOr<Layout> layout = Layout::Parse(text);
  if (!layout.ok()) return KernelError(ctx, "{}", std::string(layout.status().message()));
  if (data.rank() != layout->ndim() || out.rank() != layout->ndim()) {
    return KernelError(ctx, "data rank {} does not match layout \"{}\"", data.rank(), text);
  }
  PoolLayout pl;
  std::vector<int> pooled;
  for (char axis : sp) {
    const int at = layout->IndexOf(axis);
    if (at < 0 || layout->FactorOf(axis) != 0) {
      return KernelError(ctx, "layout \"{}\" must hold the pooled {} axes unsplit", text, sp);
    }
    pooled.push_back(at);
  }
  for (int i = 0; i < int(layout->ndim()); ++i) {
    if (std::find(pooled.begin(), pooled.end(), i) == pooled.end()) pl.perm.push_back(i);
  }
  pl.perm.insert(pl.perm.end(), pooled.begin(), pooled.end());
  return pl;
}

// Checks window-pool output extents against TVM's formula
// (in + pads - dilated kernel + (ceil_mode ? stride - 1 : 0)) / stride + 1.
absl::Status CheckExtents(const KernelContext& ctx, const PoolGeometry& g) {
  if (g.adaptive) return absl::OkStatus();
  for (int a = 0; a < 3; ++a) {
    const int64_t dk = (g.kernel[a] - 1) * g.dilation[a] + 1;
    const int64_t span = g.in[a] + g.pad_before[a] + g.pad_after[a] - dk +
                         (g.ceil_mode ? g.stride[a] - 1 : 0);
    const int64_t expect = span < 0 ? 0 : span / g.stride[a] + 1;
    if (expect != g.out[a]) {
      return KernelError(ctx, "output extent {} does not match the computed {}", g.out[a],
                         expect);
    }
  }
  return absl::OkStatus();
}

// Fills g's spatial extents from `data` and `out` and returns the number
// of planes (the product of the other axes, which must agree).
absl::StatusOr<int64_t> FillPoolExtents(const KernelContext& ctx, int spatial,
                                        const PoolLayout& pl, const NDArray& data,
                                        const NDArray& out, PoolGeometry& g) {
  const size_t rank = data.rank();
  int64_t planes = 1;
  for (size_t i = 0; i + spatial < rank; ++i) {
    if (data.shape()[pl.perm[i]] != out.shape()[pl.perm[i]]) {
      return KernelError(ctx, "output shape {} does not match input shape {}",
                         ShapeString(out.shape()), ShapeString(data.shape()));
    }
    planes *= data.shape()[pl.perm[i]];
  }
  for (int i = 0; i < spatial; ++i) {
    g.in[3 - spatial + i] = data.shape()[pl.perm[rank - spatial + i]];
    g.out[3 - spatial + i] = out.shape()[pl.perm[rank - spatial + i]];
  }
  CARVE_RETURN_IF_ERROR(CheckExtents(ctx, g));
  return planes;
}

// A global pool (the window is the plane) of `planes` planes of `in`, in
// chunks of planes across the device's threads.
template <typename C>
void GlobalPoolAll(const KernelContext& ctx, PoolKind kind, const PoolGeometry& g,
                   int64_t planes, C lowest, const C* in, C* result_data) {
  constexpr int64_t kChunk = 8;
  ParallelFor(ctx.device, (planes + kChunk - 1) / kChunk, double(kChunk * g.in_size()),
              [&](int64_t begin, int64_t end) {
                const int64_t p0 = begin * kChunk, p1 = std::min(planes, end * kChunk);
                const C* src = in + p0 * g.in_size();
                if (kind == PoolKind::kMax) {
                  GlobalPoolPlanes<PoolKind::kMax>(src, p1 - p0, g.in_size(), lowest,
                                                   result_data + p0);
                } else {
                  GlobalPoolPlanes<PoolKind::kAvg>(src, p1 - p0, g.in_size(), C(0),
                                                   result_data + p0);
                }
              });
}

// A window pool of `planes` planes of `in`, a plane at a time across the
// device's threads.
template <typename C>
void WindowPoolAll(const KernelContext& ctx, PoolKind kind, const PoolGeometry& g,
                   int64_t planes, C lowest, const C* in, C* result_data) {
  const AxisWindows windows = WindowsOf(g);
  ParallelFor(ctx.device, planes, double(g.out_size() * g.kernel[0] * g.kernel[1] * g.kernel[2]),
              [&](int64_t begin, int64_t end) {
                std::vector<C> row_acc;
                for (int64_t p = begin; p < end; ++p) {
                  const C* src = in + p * g.in_size();
                  C* dst = result_data + p * g.out_size();
                  if (kind == PoolKind::kMax) {
                    PoolPlane<PoolKind::kMax>(g, windows, lowest, src, dst, row_acc);
                  } else {
                    PoolPlane<PoolKind::kAvg>(g, windows, lowest, src, dst, row_acc);
                  }
                }
              });
}

// Pools `data` into `out` with the window geometry `g` (whose spatial
// extents are filled in here from the tensors).
absl::StatusOr<std::vector<NDArray>> RunPool(const KernelContext& ctx, int spatial, PoolKind kind,
                                             PoolGeometry g) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& data = ctx.inputs[0];
  // Every output element is written below (each plane's every window, or
  // StorePermuted's whole copy), so it is not zero-filled first.
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
  CARVE_ASSIGN_OR_RETURN(PoolLayout pl, ResolveLayout(ctx, spatial, data, out));
  CARVE_ASSIGN_OR_RETURN(const int64_t planes, FillPoolExtents(ctx, spatial, pl, data, out, g));
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, data.dtype(), [&]<typename T>() -> absl::Status {
    using C = PoolCompute<T>;
    CARVE_ASSIGN_OR_RETURN(Buffer<C> in, Buffer<C>::Permuted(ctx, data, pl.perm));
    // Straight into `out` when it is [planes, D, H, W] of compute-type
    // values (NCHW float); otherwise into a buffer stored permuted below.
    bool direct = out.dtype() == DTypeOf<C>();
    for (size_t i = 0; i < pl.perm.size(); ++i) direct &= pl.perm[i] == int(i);
    std::unique_ptr<C[]> owned(direct ? nullptr : new C[std::max<int64_t>(out.num_elements(), 1)]);
    C* const result_data = direct ? out.data<C>() : owned.get();
    const C lowest = ConvertTo<C>(std::numeric_limits<T>::lowest());
    if (g.adaptive && g.out_size() == 1) {  // global: the window is the plane
      GlobalPoolAll(ctx, kind, g, planes, lowest, in.data(), result_data);
    } else {
      WindowPoolAll(ctx, kind, g, planes, lowest, in.data(), result_data);
    }
    return direct ? absl::OkStatus() : StorePermuted(ctx, owned.get(), pl.perm, out);
  }));
  return std::vector<NDArray>{std::move(out)};
}

// Window pools: pool_size, strides, dilation, padding, ceil_mode and (avg)
// count_include_pad. The output extents come from the call's type and are
// checked against TVM's formula.
template <int kSpatial, PoolKind kKind>
absl::StatusOr<std::vector<NDArray>> WindowPool(const KernelContext& ctx) {
  PoolGeometry g;
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, SpatialInts(ctx, "pool_size", kSpatial, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> stride, SpatialInts(ctx, "strides", kSpatial, 1));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation,
                         SpatialInts(ctx, "dilation", kSpatial, 1));
  const std::vector<int64_t> padding =
      AttrInts(ctx, "padding").value_or(std::vector<int64_t>(kSpatial, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ExpandPadding(ctx, padding, kSpatial));
  for (int i = 0; i < kSpatial; ++i) {
    const int a = 3 - kSpatial + i;
    g.kernel[a] = kernel[i];
    g.stride[a] = stride[i];
    g.dilation[a] = dilation[i];
    g.pad_before[a] = pads[i];
    g.pad_after[a] = pads[kSpatial + i];
    if (kernel[i] < 1 || stride[i] < 1 || dilation[i] < 1) {
      return KernelError(ctx, "pool_size, strides and dilation must be positive");
    }
  }
  g.count_include_pad = AttrBool(ctx, "count_include_pad", false);
  g.ceil_mode = AttrBool(ctx, "ceil_mode", false);
  return RunPool(ctx, kSpatial, kKind, g);
}

// Adaptive pools: output_size bins over each pooled axis.
template <int kSpatial, PoolKind kKind>
absl::StatusOr<std::vector<NDArray>> AdaptivePool(const KernelContext& ctx) {
  PoolGeometry g;
  g.adaptive = true;
  return RunPool(ctx, kSpatial, kKind, g);
}

}  // namespace
}  // namespace carve::nn_kernels

namespace nk = carve::nn_kernels;
CARVE_REGISTER_KERNEL("nn.max_pool1d", (nk::WindowPool<1, nk::PoolKind::kMax>));
CARVE_REGISTER_KERNEL("nn.max_pool2d", (nk::WindowPool<2, nk::PoolKind::kMax>));
CARVE_REGISTER_KERNEL("nn.max_pool3d", (nk::WindowPool<3, nk::PoolKind::kMax>));
CARVE_REGISTER_KERNEL("nn.avg_pool1d", (nk::WindowPool<1, nk::PoolKind::kAvg>));
CARVE_REGISTER_KERNEL("nn.avg_pool2d", (nk::WindowPool<2, nk::PoolKind::kAvg>));
CARVE_REGISTER_KERNEL("nn.avg_pool3d", (nk::WindowPool<3, nk::PoolKind::kAvg>));
CARVE_REGISTER_KERNEL("nn.global_max_pool2d", (nk::AdaptivePool<2, nk::PoolKind::kMax>));
CARVE_REGISTER_KERNEL("nn.global_avg_pool2d", (nk::AdaptivePool<2, nk::PoolKind::kAvg>));
CARVE_REGISTER_KERNEL("nn.adaptive_max_pool1d", (nk::AdaptivePool<1, nk::PoolKind::kMax>));
CARVE_REGISTER_KERNEL("nn.adaptive_max_pool2d", (nk::AdaptivePool<2, nk::PoolKind::kMax>));
CARVE_REGISTER_KERNEL("nn.adaptive_max_pool3d", (nk::AdaptivePool<3, nk::PoolKind::kMax>));
CARVE_REGISTER_KERNEL("nn.adaptive_avg_pool1d", (nk::AdaptivePool<1, nk::PoolKind::kAvg>));
CARVE_REGISTER_KERNEL("nn.adaptive_avg_pool2d", (nk::AdaptivePool<2, nk::PoolKind::kAvg>));
CARVE_REGISTER_KERNEL("nn.adaptive_avg_pool3d", (nk::AdaptivePool<3, nk::PoolKind::kAvg>));
