#include "interpreter/kernels/conv_engine.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__FMA__)
#include <immintrin.h>
#endif

#include "interpreter/kernels/conv_internal.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/nn_util.h"
#include "interpreter/kernels/sgemm.h"

namespace carve::nn_kernels {
namespace {

using conv_internal::GatherRow;
using conv_internal::InCoord;
using conv_internal::IsPointwise;
using conv_internal::ValidRange;

// im2col tiles hold at most this many elements (8 MiB of float): large
// enough that every tile is a GEMM Eigen runs near peak, small enough to
// bound memory on big images.
constexpr int64_t kColBudget = int64_t{1} << 21;

// Rows of output positions: r indexes (od, oh); each row holds OW outputs.
int64_t RowsPerTile(const ConvGeometry& g, int64_t col_width) {
  int64_t per_row = std::max<int64_t>(1, g.out[2] * col_width);
  return std::clamp<int64_t>(kColBudget / per_row, 1, g.out[0] * g.out[1]);
}

// Channels-first im2col of output rows [r0, r1) for the Cg channel planes at
// `in`: col[(c, kd, kh, kw)][(r - r0) * OW + ow].
template <typename T>
void Im2ColFirst(const ConvGeometry& g, const T* in, int64_t r0, int64_t r1, T* col,
                 const Eigen::ThreadPoolDevice* device) {
  const int64_t cols = (r1 - r0) * g.out[2];
  const int64_t k = g.kernel_size();
  ParallelFor(device, g.in_per_group() * k, double(cols), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t c = row / k, kd = row % k / (g.kernel[1] * g.kernel[2]);
      const int64_t kh = row % (g.kernel[1] * g.kernel[2]) / g.kernel[2];
      const int64_t kw = row % g.kernel[2];
      const T* plane = in + c * g.in_size();
      T* dst = col + row * cols;
      for (int64_t r = r0; r < r1; ++r, dst += g.out[2]) {
        const int64_t id = InCoord(g, 0, r / g.out[1], kd);
        const int64_t ih = InCoord(g, 1, r % g.out[1], kh);
        if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
          std::fill(dst, dst + g.out[2], T(0));
          continue;
        }
        GatherRow(plane + (id * g.in[1] + ih) * g.in[2], kw * g.dilation[2] - g.pad[2], g.stride[2],
                  g.in[2], g.out[2], dst);
      }
    }
  });
}

// Channels-last im2col of output rows [r0, r1) for batch image `in` (already
// offset to the group's first channel): col[(r - r0) * OW + ow][(kd, kh, kw,
// c)]; each tap is a contiguous run of Cg channels.
template <typename T>
void Im2ColLast(const ConvGeometry& g, const T* in, int64_t r0, int64_t r1, T* col,
                const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), width = g.kernel_size() * cg;
  ParallelFor(device, (r1 - r0) * g.out[2], double(width), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t r = r0 + p / g.out[2], ow = p % g.out[2];
      T* dst = col + p * width;
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t id = InCoord(g, 0, r / g.out[1], kd);
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
          const int64_t ih = InCoord(g, 1, r % g.out[1], kh);
          for (int64_t kw = 0; kw < g.kernel[2]; ++kw, dst += cg) {
            const int64_t iw = InCoord(g, 2, ow, kw);
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2]) {
              std::fill(dst, dst + cg, T(0));
            } else {
              const T* src = in + ((id * g.in[1] + ih) * g.in[2] + iw) * g.in_channels;
              std::copy(src, src + cg, dst);
            }
          }
        }
      }
    }
  });
}

template <typename T>
void ConvFirstGemm(const ConvGeometry& g, const T* data, const T* weight, T* out,
                   const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group(), os = g.out_size();
  const int64_t depth = cg * g.kernel_size();
  const bool pointwise = IsPointwise(g);
  const int64_t rows_per_tile = RowsPerTile(g, depth);
  std::unique_ptr<T[]> col;
  if (!pointwise) col.reset(new T[depth * rows_per_tile * g.out[2]]);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* in = data + (n * g.in_channels + grp * cg) * g.in_size();
      const MatrixRef<T> w{weight + grp * og * depth, depth, false};
      T* c = out + (n * g.out_channels + grp * og) * os;
      if (pointwise) {
        Gemm<T>(og, os, depth, w, MatrixRef<T>{in, g.in_size(), false}, c, os, false, device);
        continue;
      }
      for (int64_t r0 = 0; r0 < g.out[0] * g.out[1]; r0 += rows_per_tile) {
        const int64_t r1 = std::min(r0 + rows_per_tile, g.out[0] * g.out[1]);
        const int64_t cols = (r1 - r0) * g.out[2];
        Im2ColFirst(g, in, r0, r1, col.get(), device);
        Gemm<T>(og, cols, depth, w, MatrixRef<T>{col.get(), cols, false}, c + r0 * g.out[2], os,
                false, device);
      }
    }
  }
}

template <typename T>
void ConvLastGemm(const ConvGeometry& g, const T* data, const T* weight, T* out,
                  const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group(), k = g.kernel_size();
  const int64_t depth = k * cg;
  std::unique_ptr<T[]> packed = conv_internal::WeightChannelsLast(g, weight);
  if (IsPointwise(g)) {  // the input already is the [N * S, C] matrix
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      Gemm<T>(g.batch * g.in_size(), og, cg, MatrixRef<T>{data + grp * cg, g.in_channels, false},
              MatrixRef<T>{packed.get() + grp * depth * og, og, false}, out + grp * og,
              g.out_channels, false, device);
    }
    return;
  }
  const int64_t rows_per_tile = RowsPerTile(g, depth);
  std::unique_ptr<T[]> col(new T[rows_per_tile * g.out[2] * depth]);
  for (int64_t n = 0; n < g.batch; ++n) {
    const T* image = data + n * g.in_size() * g.in_channels;
    T* out_image = out + n * g.out_size() * g.out_channels;
    for (int64_t r0 = 0; r0 < g.out[0] * g.out[1]; r0 += rows_per_tile) {
      const int64_t r1 = std::min(r0 + rows_per_tile, g.out[0] * g.out[1]);
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        Im2ColLast(g, image + grp * cg, r0, r1, col.get(), device);
        Gemm<T>((r1 - r0) * g.out[2], og, depth, MatrixRef<T>{col.get(), depth, false},
                MatrixRef<T>{packed.get() + grp * depth * og, og, false},
                out_image + r0 * g.out[2] * g.out_channels + grp * og, g.out_channels, false,
                device);
      }
    }
  }
}

// acc + x * w as the reference loops compute it: the compiler contracts
// their `acc += w * x` into one fused multiply-add on builds for FMA
// hardware (-march=native here), and does so unreliably for vector
// accumulators held in registers (GCC avoids 128/256-bit FMA chains on
// AMD), so the blocked depthwise rows below fuse explicitly.
template <typename T>
inline T MulAdd(T x, T w, T acc) {
#if defined(__FMA__)
  if constexpr (std::is_floating_point_v<T>) return std::fma(x, w, acc);
#endif
  return acc + x * w;
}

template <typename T, typename Vec>
inline Vec VecMulAdd(Vec x, Vec w, Vec acc) {
#if defined(__FMA__)
  if constexpr (std::is_same_v<T, float> && sizeof(Vec) == 16) return _mm_fmadd_ps(x, w, acc);
  if constexpr (std::is_same_v<T, float> && sizeof(Vec) == 32) return _mm256_fmadd_ps(x, w, acc);
  if constexpr (std::is_same_v<T, double> && sizeof(Vec) == 16) return _mm_fmadd_pd(x, w, acc);
  if constexpr (std::is_same_v<T, double> && sizeof(Vec) == 32) return _mm256_fmadd_pd(x, w, acc);
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float> && sizeof(Vec) == 64) return _mm512_fmadd_ps(x, w, acc);
  if constexpr (std::is_same_v<T, double> && sizeof(Vec) == 64) return _mm512_fmadd_pd(x, w, acc);
#endif
  if constexpr (std::is_floating_point_v<T>) {
    for (size_t j = 0; j < sizeof(Vec) / sizeof(T); ++j) acc[j] = std::fma(x[j], w[j], acc[j]);
    return acc;
  }
#endif
  return acc + x * w;
}

// One input channel per group: out[o] sums taps of input channel o / Og
// only, so a direct loop beats a GEMM with a one-element inner dimension.
// Every output element is the sum, from T(0), of w[t] * x over its taps t
// in order t = 0, 1, ... that land inside the image. Taps in the padding
// are skipped, not multiplied by zero: w * 0 + acc is not always acc (an
// infinite weight; a -0 sum), while 1 * -0 + acc is. Output rows go in blocks of Lanes columns
// whose sums stay in registers across all taps, NB blocks at a time so
// that NB independent multiply-add chains hide each other's latency.
template <typename T, int Lanes>
struct DepthwiseRows {
  typedef T Vec __attribute__((vector_size(Lanes * sizeof(T))));
  // Vec at any T-aligned address (loads and stores of a row's columns;
  // memcpy would pin the accumulators in memory).
  typedef T Unaligned __attribute__((vector_size(Lanes * sizeof(T)), aligned(alignof(T)), may_alias));
  // The lane mask type of Vec: a signed integer of T's size per lane.
  using Int = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  typedef Int Mask __attribute__((vector_size(Lanes * sizeof(T))));

  // v in every lane (v - 0 is v for every v, -0 included; 0 + v is not).
  static Vec Splat(T v) { return v - Vec{}; }

  // out[at[b] + j] for the NB blocks b and lanes j < Lanes of one output
  // row, from the nrows (kd, kh) input rows inside the image (`rows`, each
  // readable over every column a block's taps touch, padding included) and
  // their kw weights (`taps`). kMasked: some taps of these blocks fall
  // outside columns [0, width) of the image and are skipped lane by lane.
  template <int NB, bool kMasked>
  static void Blocks(const ConvGeometry& g, const T* const* rows, const T* const* taps,
                     int64_t nrows, const int64_t* at, T* out) {
    const int64_t s = g.stride[2], width = g.in[2];
    const Vec one = Splat(T(1)), minus_zero = Splat(T(-0.0));
    Mask lane{};
    for (int j = 0; j < Lanes; ++j) lane[j] = Int(j * s);
    // Block b's sum += tap weight wv times its columns at src + at[b] * s.
    auto step = [&](int b, const T* src, int64_t off, Vec wv, Vec& acc) {
      src += at[b] * s;
      Vec x;
      if (s == 1) {
        x = *reinterpret_cast<const Unaligned*>(src);
      } else {
        for (int j = 0; j < Lanes; ++j) x[j] = src[j * s];
      }
      if constexpr (kMasked) {
        // A skipped lane adds 1 * -0, which leaves any acc as it is.
        const Mask iw = lane + Int(at[b] * s + off);
        const Mask inside = iw >= 0 && iw < Int(width);
        acc = VecMulAdd<T>(inside ? x : minus_zero, inside ? wv : one, acc);
      } else {
        acc = VecMulAdd<T>(x, wv, acc);
      }
    };
    // Named accumulators, not an array: GCC keeps an array of vectors in
    // memory, a store and a load per tap.
    Vec a0{}, a1{}, a2{}, a3{};
    for (int64_t r = 0; r < nrows; ++r) {
      const T* w = taps[r];
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        const int64_t off = kw * g.dilation[2] - g.pad[2];
        const T* src = rows[r] + off;
        const Vec wv = Splat(w[kw]);
        step(0, src, off, wv, a0);
        if constexpr (NB > 1) step(1, src, off, wv, a1);
        if constexpr (NB > 2) step(2, src, off, wv, a2);
        if constexpr (NB > 3) step(3, src, off, wv, a3);
      }
    }
    *reinterpret_cast<Unaligned*>(out + at[0]) = a0;
    if constexpr (NB > 1) *reinterpret_cast<Unaligned*>(out + at[1]) = a1;
    if constexpr (NB > 2) *reinterpret_cast<Unaligned*>(out + at[2]) = a2;
    if constexpr (NB > 3) *reinterpret_cast<Unaligned*>(out + at[3]) = a3;
  }

  // Blocks starting at at[0, n), `masked` or not, up to four at a time.
  template <bool kMasked>
  static void Run(const ConvGeometry& g, const T* const* rows, const T* const* taps,
                  int64_t nrows, const int64_t* at, int64_t n, T* out) {
    for (; n >= 4; n -= 4, at += 4) Blocks<4, kMasked>(g, rows, taps, nrows, at, out);
    if (n == 3) Blocks<3, kMasked>(g, rows, taps, nrows, at, out);
    if (n == 2) Blocks<2, kMasked>(g, rows, taps, nrows, at, out);
    if (n == 1) Blocks<1, kMasked>(g, rows, taps, nrows, at, out);
  }
};

// Output column `ow` of one row of the blocked loop below, one sum: the
// same taps in the same order as a masked block's lane (a skipped tap adds
// 1 * -0 there, which changes nothing).
template <typename T>
T EdgeColumn(const ConvGeometry& g, const T* const* rows, const T* const* taps, int64_t nrows,
             int64_t ow) {
  T acc = T(0);
  for (int64_t r = 0; r < nrows; ++r) {
    for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
      const int64_t iw = InCoord(g, 2, ow, kw);
      if (iw >= 0 && iw < g.in[2]) acc = MulAdd(rows[r][iw], taps[r][kw], acc);
    }
  }
  return acc;
}

// Which output columns DepthwiseFirstBlocked computes how.
struct DepthwiseColumns {
  // Output columns [ilo, ihi) see every kw tap inside the image.
  int64_t ilo = 0, ihi = 0;
  // Whole blocks over [ilo, ihi) and the edge columns one sum at a time
  // (EdgeColumn), rather than every block masked lane by lane.
  bool edges = false;
  // Block starts, the first `unmasked` of them with every lane inside
  // [ilo, ihi), the masked ones after them.
  std::vector<int64_t> starts;
  int64_t unmasked = 0;
};

template <int Lanes>
DepthwiseColumns PlanDepthwiseColumns(const ConvGeometry& g) {
  const int64_t kw_n = g.kernel[2], ow_n = g.out[2], s = g.stride[2], width = g.in[2];
  DepthwiseColumns c;
  c.ihi = ow_n;
  for (int64_t kw = 0; kw < kw_n; ++kw) {
    auto [lo, hi] = ValidRange(kw * g.dilation[2] - g.pad[2], s, width, ow_n);
    c.ilo = std::max(c.ilo, lo);
    c.ihi = std::min(c.ihi, hi);
  }
  if (c.ihi < c.ilo) c.ihi = c.ilo;
  // Block starts: every Lanes columns, the last one moved back to end at
  // ow_n (it recomputes a few of its neighbour's sums, in the same order).
  // Edges only for a few edge columns (a padding of 1 or 2) beside at
  // least one whole block.
  c.edges = c.ihi - c.ilo >= Lanes && c.ilo + (ow_n - c.ihi) <= 4;
  if (c.edges) {
    for (int64_t ow0 = c.ilo; ow0 < c.ihi; ow0 += Lanes) {
      c.starts.push_back(std::min(ow0, c.ihi - Lanes));
    }
    c.unmasked = int64_t(c.starts.size());
  } else {
    for (int64_t ow0 = 0; ow0 < ow_n; ow0 += Lanes) {
      const int64_t at = std::min(ow0, ow_n - Lanes);
      if (at >= c.ilo && at + Lanes <= c.ihi) c.starts.insert(c.starts.begin() + c.unmasked++, at);
      else c.starts.push_back(at);
    }
  }
  return c;
}

// The in_rows rows of `plane` (each `width` wide) into `margins`, each row
// `padded` wide with margin_l zeros before it and zeros after it.
template <typename T>
void CopyWithMargins(const T* plane, int64_t in_rows, int64_t width, int64_t margin_l,
                     int64_t padded, T* margins) {
  for (int64_t r = 0; r < in_rows; ++r) {
    T* dst = margins + r * padded;
    std::fill(dst, dst + margin_l, T(0));
    std::copy(plane + r * width, plane + (r + 1) * width, dst + margin_l);
    std::fill(dst + margin_l + width, dst + padded, T(0));
  }
}

// The input rows that output row (od, oh) reads (those inside the image)
// and their weight rows, in (kd, kh) order; returns how many.
template <typename T>
int64_t GatherRows(const ConvGeometry& g, const T* plane, int64_t row_pitch, const T* w,
                   int64_t od, int64_t oh, const T** rows, const T** taps) {
  int64_t nrows = 0;
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    const int64_t id = InCoord(g, 0, od, kd);
    if (id < 0 || id >= g.in[0]) continue;
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      const int64_t ih = InCoord(g, 1, oh, kh);
      if (ih < 0 || ih >= g.in[1]) continue;
      rows[nrows] = plane + (id * g.in[1] + ih) * row_pitch;
      taps[nrows++] = w + (kd * g.kernel[1] + kh) * g.kernel[2];
    }
  }
  return nrows;
}

template <typename T, int Lanes>
void DepthwiseFirstBlocked(const ConvGeometry& g, const T* data, const T* weight, T* out,
                           const Eigen::ThreadPoolDevice* device) {
  const int64_t og = g.out_per_group(), k = g.kernel_size(), kw_n = g.kernel[2];
  const int64_t ow_n = g.out[2], s = g.stride[2], width = g.in[2];
  const DepthwiseColumns cols = PlanDepthwiseColumns<Lanes>(g);
  const int64_t ilo = cols.ilo, ihi = cols.ihi, unmasked = cols.unmasked;
  const bool edges = cols.edges;
  const std::vector<int64_t>& starts = cols.starts;
  // Columns read: [-pad, last); rows are copied with zero margins when
  // masked blocks reach outside the image (the masks skip those lanes).
  const int64_t margin_l = std::max<int64_t>(0, g.pad[2]);
  const int64_t reach = (ow_n - 1) * s + (kw_n - 1) * g.dilation[2] - g.pad[2] + 1;
  const int64_t margin_r = std::max<int64_t>(0, reach - width);
  const bool copy = !edges && (margin_l > 0 || margin_r > 0);
  const int64_t padded = margin_l + width + margin_r;
  const int64_t in_rows = g.in[0] * g.in[1];
  ParallelFor(device, g.batch * g.out_channels, double(g.out_size() * k),
              [&](int64_t begin, int64_t end) {
    std::vector<const T*> rows(g.kernel[0] * g.kernel[1]), taps(rows.size());
    std::vector<T> margins(copy ? in_rows * padded : 0);
    int64_t copied = -1;  // the input plane in `margins` (n * C + c)
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / g.out_channels, o = item % g.out_channels;
      const int64_t source = n * g.in_channels + o / og;
      const T* plane = data + source * g.in_size();
      int64_t row_pitch = width;
      if (copy) {
        // Consecutive output channels of one input channel (a channel
        // multiplier) share the copy.
        if (source != copied) {
          CopyWithMargins(plane, in_rows, width, margin_l, padded, margins.data());
          copied = source;
        }
        plane = margins.data() + margin_l;
        row_pitch = padded;
      }
      const T* w = weight + o * k;
      T* dst = out + item * g.out_size();
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const int64_t nrows =
              GatherRows(g, plane, row_pitch, w, od, oh, rows.data(), taps.data());
          T* row = dst + (od * g.out[1] + oh) * ow_n;
          using R = DepthwiseRows<T, Lanes>;
          R::template Run<false>(g, rows.data(), taps.data(), nrows, starts.data(), unmasked, row);
          R::template Run<true>(g, rows.data(), taps.data(), nrows, starts.data() + unmasked,
                                int64_t(starts.size()) - unmasked, row);
          if (edges) {
            for (int64_t ow = 0; ow < ilo; ++ow) {
              row[ow] = EdgeColumn(g, rows.data(), taps.data(), nrows, ow);
            }
            for (int64_t ow = ihi; ow < ow_n; ++ow) {
              row[ow] = EdgeColumn(g, rows.data(), taps.data(), nrows, ow);
            }
          }
        }
      }
    }
  });
}

// Planes narrower than a vector: one sum at a time, same order.
template <typename T>
void DepthwiseFirstScalar(const ConvGeometry& g, const T* data, const T* weight, T* out,
                          const Eigen::ThreadPoolDevice* device) {
  const int64_t og = g.out_per_group(), k = g.kernel_size();
  ParallelFor(device, g.batch * g.out_channels, double(g.out_size() * k),
              [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / g.out_channels, o = item % g.out_channels;
      const T* plane = data + (n * g.in_channels + o / og) * g.in_size();
      T* dst = out + item * g.out_size();
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            T acc = T(0);
            for (int64_t t = 0; t < k; ++t) {
              const int64_t id = InCoord(g, 0, od, t / (g.kernel[1] * g.kernel[2]));
              const int64_t ih = InCoord(g, 1, oh, t / g.kernel[2] % g.kernel[1]);
              const int64_t iw = InCoord(g, 2, ow, t % g.kernel[2]);
              if (conv_internal::Inside(g, id, ih, iw)) {
                acc = MulAdd(weight[o * k + t], plane[(id * g.in[1] + ih) * g.in[2] + iw], acc);
              }
            }
            *dst++ = acc;
          }
        }
      }
    }
  });
}

template <typename T>
void DepthwiseFirst(const ConvGeometry& g, const T* data, const T* weight, T* out,
                    const Eigen::ThreadPoolDevice* device) {
  // Blocks as wide as the machine's vectors: a wider GCC vector is split
  // into halves lane by lane (on AVX2, GCC 12 turned 64-byte blocks into
  // one scalar FMA per lane and kept the accumulators in memory, 3x slower).
  // (At least 4, so that the narrowest blocks have a lane.)
  constexpr int kLanes = std::max<int>(kVectorBytes / sizeof(T), 4);
  if (g.out[2] >= kLanes) {
    DepthwiseFirstBlocked<T, kLanes>(g, data, weight, out, device);
  } else if (g.out[2] >= kLanes / 2) {
    DepthwiseFirstBlocked<T, kLanes / 2>(g, data, weight, out, device);
  } else if (g.out[2] >= kLanes / 4) {
    DepthwiseFirstBlocked<T, kLanes / 4>(g, data, weight, out, device);
  } else {
    DepthwiseFirstScalar(g, data, weight, out, device);
  }
}

template <typename T>
void DepthwiseLast(const ConvGeometry& g, const T* data, const T* weight, T* out,
                   const Eigen::ThreadPoolDevice* device) {
  const int64_t og = g.out_per_group(), k = g.kernel_size(), oc = g.out_channels;
  std::unique_ptr<T[]> taps(new T[k * oc]);  // [K][O], contiguous over channels
  for (int64_t o = 0; o < oc; ++o) {
    for (int64_t t = 0; t < k; ++t) taps[t * oc + o] = weight[o * k + t];
  }
  const int64_t rows = g.out[0] * g.out[1];
  ParallelFor(device, g.batch * rows, double(g.out[2] * k * oc), [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / rows, r = item % rows;
      const T* image = data + n * g.in_size() * g.in_channels;
      T* dst = out + item * g.out[2] * oc;
      std::fill(dst, dst + g.out[2] * oc, T(0));
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        T* px = dst + ow * oc;
        for (int64_t t = 0; t < k; ++t) {
          const int64_t id = InCoord(g, 0, r / g.out[1], t / (g.kernel[1] * g.kernel[2]));
          const int64_t ih = InCoord(g, 1, r % g.out[1], t / g.kernel[2] % g.kernel[1]);
          const int64_t iw = InCoord(g, 2, ow, t % g.kernel[2]);
          if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2]) {
            continue;
          }
          const T* src = image + ((id * g.in[1] + ih) * g.in[2] + iw) * g.in_channels;
          const T* wt = taps.get() + t * oc;
          if (og == 1) {
            for (int64_t o = 0; o < oc; ++o) px[o] += wt[o] * src[o];
          } else {
            for (int64_t o = 0; o < oc; ++o) px[o] += wt[o] * src[o / og];
          }
        }
      }
    }
  });
}

// Scatter-adds cols [(og, kd, kh, kw)][(r - r0) * IW + iw] (input rows
// [r0, r1)) into the Og output planes at `out`.
template <typename T>
void Col2ImFirst(const ConvGeometry& g, const T* col, int64_t r0, int64_t r1, T* out,
                 const Eigen::ThreadPoolDevice* device) {
  const int64_t k = g.kernel_size(), cols = (r1 - r0) * g.in[2];
  ParallelFor(device, g.out_per_group(), double(k * cols), [&](int64_t begin, int64_t end) {
    for (int64_t oo = begin; oo < end; ++oo) {
      T* plane = out + oo * g.out_size();
      for (int64_t t = 0; t < k; ++t) {
        const int64_t kd = t / (g.kernel[1] * g.kernel[2]);
        const int64_t kh = t / g.kernel[2] % g.kernel[1], kw = t % g.kernel[2];
        const T* src = col + (oo * k + t) * cols;
        for (int64_t r = r0; r < r1; ++r, src += g.in[2]) {
          const int64_t od = (r / g.in[1]) * g.stride[0] + kd * g.dilation[0] - g.pad[0];
          const int64_t oh = (r % g.in[1]) * g.stride[1] + kh * g.dilation[1] - g.pad[1];
          if (od < 0 || od >= g.out[0] || oh < 0 || oh >= g.out[1]) continue;
          const int64_t off_w = kw * g.dilation[2] - g.pad[2];
          auto [lo, hi] = ValidRange(off_w, g.stride[2], g.out[2], g.in[2]);
          T* row = plane + (od * g.out[1] + oh) * g.out[2];
          for (int64_t iw = lo; iw < hi; ++iw) row[iw * g.stride[2] + off_w] += src[iw];
        }
      }
    }
  });
}

}  // namespace

template <typename T>
void ConvForward(const ConvGeometry& g, ChannelOrder order, const T* data, const T* weight, T* out,
                 const Eigen::ThreadPoolDevice* device, ConvWeightCache cache) {
  if (g.in_per_group() == 1 && !IsPointwise(g)) {
    if (order == ChannelOrder::kFirst) {
      DepthwiseFirst(g, data, weight, out, device);
    } else {
      DepthwiseLast(g, data, weight, out, device);
    }
    return;
  }
  if constexpr (std::is_same_v<T, float> && kPackedSgemm) {
    conv_internal::ConvForwardPacked(g, order, data, weight, out, device, cache);
    return;
  }
  if (order == ChannelOrder::kFirst) {
    ConvFirstGemm(g, data, weight, out, device);
  } else {
    ConvLastGemm(g, data, weight, out, device);
  }
}

template <typename T>
void ConvTransposeForward(const ConvGeometry& g, const T* data, const T* weight, T* out,
                          const Eigen::ThreadPoolDevice* device) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group(), k = g.kernel_size();
  const int64_t rows = g.in[0] * g.in[1];
  const int64_t rows_per_tile = std::clamp<int64_t>(
      kColBudget / std::max<int64_t>(1, og * k * g.in[2]), 1, std::max<int64_t>(rows, 1));
  std::unique_ptr<T[]> col(new T[og * k * rows_per_tile * g.in[2]]);
  std::fill(out, out + g.batch * g.out_channels * g.out_size(), T(0));
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* in = data + (n * g.in_channels + grp * cg) * g.in_size();
      // The group's weight is stored [Cg][Og * K]; the product needs its
      // transpose, [Og * K][Cg].
      const MatrixRef<T> w{weight + grp * cg * og * k, og * k, true};
      T* planes = out + (n * g.out_channels + grp * og) * g.out_size();
      for (int64_t r0 = 0; r0 < rows; r0 += rows_per_tile) {
        const int64_t r1 = std::min(r0 + rows_per_tile, rows);
        const int64_t cols = (r1 - r0) * g.in[2];
        Gemm<T>(og * k, cols, cg, w, MatrixRef<T>{in + r0 * g.in[2], g.in_size(), false}, col.get(),
                cols, false, device);
        Col2ImFirst(g, col.get(), r0, r1, planes, device);
      }
    }
  }
}

#define CARVE_INSTANTIATE_CONV(T)                                                         \
  template void ConvForward<T>(const ConvGeometry&, ChannelOrder, const T*, const T*, T*, \
                               const Eigen::ThreadPoolDevice*, ConvWeightCache);          \
  template void ConvTransposeForward<T>(const ConvGeometry&, const T*, const T*, T*,      \
                                        const Eigen::ThreadPoolDevice*);
CARVE_INSTANTIATE_CONV(float)
CARVE_INSTANTIATE_CONV(double)
CARVE_INSTANTIATE_CONV(int32_t)
CARVE_INSTANTIATE_CONV(int64_t)
#undef CARVE_INSTANTIATE_CONV

}  // namespace carve::nn_kernels
