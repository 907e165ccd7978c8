// Depthwise convolutions (one input channel per group): a direct loop,
// since their GEMMs would be matrix-vector products.
//
// Every output element is the sum, from T(0), of w[t] * x over its taps t
// in order t = 0, 1, ... that land inside the image, one fused multiply-add
// per tap on FMA builds. Taps in the padding are skipped, not multiplied by
// zero: w * 0 + acc is not always acc (an infinite weight; a -0 sum), while
// 1 * -0 + acc is, bit for bit (NaN included). The blocked channels-first
// loop relies on that: a column block that reaches into the padding reads
// -0 there (the plane is copied with -0 margins) and multiplies it by 1
// (its per-lane weight vectors), so every block runs the same straight
// multiply-add chain and no column is computed one sum at a time.
#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#if defined(__FMA__)
#include <immintrin.h>
#endif

#include "interpreter/kernels/conv_internal.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/nn_util.h"

namespace carve::nn_kernels::conv_internal {
namespace {

// acc + x * w as the reference loops compute it: the compiler contracts
// their `acc += w * x` into one fused multiply-add on builds for FMA
// hardware (-march=native here), and does so unreliably for vector
// accumulators held in registers (GCC avoids 128/256-bit FMA chains on
// AMD), so the blocked rows below fuse explicitly.
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

// The input rows each output row (od, oh) reads: those inside the image,
// in (kd, kh) order, as offsets from the plane's start (rows `row_pitch`
// apart) with the index kd * KH + kh of their weight row. The same for
// every channel, so computed once per call.
struct RowTable {
  int64_t max_rows = 0;
  std::vector<int64_t> count;        // [OD * OH]
  std::vector<int64_t> offset, weight_row;  // [OD * OH][max_rows]

  RowTable(const ConvGeometry& g, int64_t row_pitch) : max_rows(g.kernel[0] * g.kernel[1]) {
    const int64_t rows = g.out[0] * g.out[1];
    count.assign(rows, 0);
    offset.assign(rows * max_rows, 0);
    weight_row.assign(rows * max_rows, 0);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t od = r / g.out[1], oh = r % g.out[1];
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t id = InCoord(g, 0, od, kd);
        if (id < 0 || id >= g.in[0]) continue;
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
          const int64_t ih = InCoord(g, 1, oh, kh);
          if (ih < 0 || ih >= g.in[1]) continue;
          offset[r * max_rows + count[r]] = (id * g.in[1] + ih) * row_pitch;
          weight_row[r * max_rows + count[r]++] = kd * g.kernel[1] + kh;
        }
      }
    }
  }
};

// Blocks of Lanes consecutive output columns of one row whose sums stay in
// registers across all taps, NB blocks at a time so that NB independent
// multiply-add chains hide each other's latency. KW: the kernel width when
// fixed at compile time (3 and 5, so the kw loop unrolls), else 0. kUnit:
// W stride and dilation 1 (a block's columns are one load).
template <typename T, int Lanes, int KW, bool kUnit>
struct DepthwiseBlocks {
  typedef T Vec __attribute__((vector_size(Lanes * sizeof(T))));
  // Vec at any T-aligned address (loads and stores of a row's columns;
  // memcpy would pin the accumulators in memory).
  typedef T Unaligned __attribute__((vector_size(Lanes * sizeof(T)), aligned(alignof(T)), may_alias));
  // The lane mask type of Vec: a signed integer of T's size per lane.
  using Int = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  typedef Int Mask __attribute__((vector_size(Lanes * sizeof(T))));

  // v in every lane (v - 0 is v for every v, -0 included; 0 + v is not).
  static Vec Splat(T v) { return v - Vec{}; }

  // Columns src[0], src[s], ..., src[(Lanes - 1) * s].
  static Vec Load(const T* src, int64_t s) {
    if (kUnit) return *reinterpret_cast<const Unaligned*>(src);
    Vec x;
    for (int j = 0; j < Lanes; ++j) x[j] = src[j * s];
    return x;
  }

  // out[at[b] + j] for the NB blocks b and lanes j < Lanes, from the
  // `nrows` input rows at `rows` (their weight rows in `weight_rows`).
  // kEdge: block b takes tap t's weights from edge[b][t] (1 in the lanes
  // where the tap falls in the padding, which reads -0); otherwise every
  // lane takes the channel's weight w[t].
  template <int NB, bool kEdge>
  static void Blocks(const ConvGeometry& g, const T* const* rows, const int64_t* weight_rows,
                     int64_t nrows, const T* w, const Vec* const* edge, const int64_t* at,
                     T* out) {
    const int64_t s = kUnit ? 1 : g.stride[2], dil = kUnit ? 1 : g.dilation[2];
    const int64_t kw_n = KW > 0 ? KW : g.kernel[2];
    // Named accumulators, not an array: GCC keeps an array of vectors in
    // memory, a store and a load per tap.
    Vec a0{}, a1{}, a2{}, a3{};
    for (int64_t r = 0; r < nrows; ++r) {
      const T* base = rows[r] - g.pad[2];
      const T* p0 = base + at[0] * s;
      const T* p1 = NB > 1 ? base + at[1] * s : p0;
      const T* p2 = NB > 2 ? base + at[2] * s : p0;
      const T* p3 = NB > 3 ? base + at[3] * s : p0;
      const int64_t t0 = weight_rows[r] * kw_n;
      const T* wr = w + t0;
#pragma GCC unroll 5
      for (int64_t kw = 0; kw < kw_n; ++kw) {
        const int64_t off = kw * dil;
        const Vec splat = Splat(wr[kw]);
        auto weight = [&](int b) { return kEdge ? edge[b][t0 + kw] : splat; };
        a0 = VecMulAdd<T>(Load(p0 + off, s), weight(0), a0);
        if constexpr (NB > 1) a1 = VecMulAdd<T>(Load(p1 + off, s), weight(1), a1);
        if constexpr (NB > 2) a2 = VecMulAdd<T>(Load(p2 + off, s), weight(2), a2);
        if constexpr (NB > 3) a3 = VecMulAdd<T>(Load(p3 + off, s), weight(3), a3);
      }
    }
    *reinterpret_cast<Unaligned*>(out + at[0]) = a0;
    if constexpr (NB > 1) *reinterpret_cast<Unaligned*>(out + at[1]) = a1;
    if constexpr (NB > 2) *reinterpret_cast<Unaligned*>(out + at[2]) = a2;
    if constexpr (NB > 3) *reinterpret_cast<Unaligned*>(out + at[3]) = a3;
  }

  // The n blocks starting at at[0, n), up to four at a time.
  template <bool kEdge>
  static void Run(const ConvGeometry& g, const T* const* rows, const int64_t* weight_rows,
                  int64_t nrows, const T* w, const Vec* const* edge, const int64_t* at, int64_t n,
                  T* out) {
    for (; n >= 4; n -= 4, at += 4, edge += kEdge ? 4 : 0) {
      Blocks<4, kEdge>(g, rows, weight_rows, nrows, w, edge, at, out);
    }
    if (n == 3) Blocks<3, kEdge>(g, rows, weight_rows, nrows, w, edge, at, out);
    if (n == 2) Blocks<2, kEdge>(g, rows, weight_rows, nrows, w, edge, at, out);
    if (n == 1) Blocks<1, kEdge>(g, rows, weight_rows, nrows, w, edge, at, out);
  }
};

// The column blocks of an output row: a start every Lanes columns, the
// last one moved back to end at OW (it recomputes a few of its
// neighbour's sums, in the same order). `whole` blocks read only columns
// inside the image for every kw tap; the `edge` ones reach into the
// padding, and lane j of inside[e * KW + kw] is set (-1) when lane j of
// edge block e reads the image at tap kw.
template <typename Mask, int Lanes>
struct DepthwiseColumns {
  std::vector<int64_t> whole, edge;
  std::vector<Mask> inside;

  explicit DepthwiseColumns(const ConvGeometry& g) {
    const int64_t ow_n = g.out[2], kw_n = g.kernel[2];
    for (int64_t ow0 = 0; ow0 < ow_n; ow0 += Lanes) {
      const int64_t at = std::min(ow0, ow_n - Lanes);
      std::vector<Mask> in(kw_n);
      bool all = true;
      for (int64_t kw = 0; kw < kw_n; ++kw) {
        for (int j = 0; j < Lanes; ++j) {
          const int64_t iw = InCoord(g, 2, at + j, kw);
          in[kw][j] = iw >= 0 && iw < g.in[2] ? -1 : 0;
          all = all && in[kw][j] != 0;
        }
      }
      if (all) {
        whole.push_back(at);
      } else {
        edge.push_back(at);
        inside.insert(inside.end(), in.begin(), in.end());
      }
    }
  }
};

// The in_rows rows of `plane` (each `width` wide) into `padded_rows`, each
// row `padded` wide with margin_l copies of -0 before it and -0 after it.
template <typename T>
void CopyWithMargins(const T* plane, int64_t in_rows, int64_t width, int64_t margin_l,
                     int64_t padded, T* padded_rows) {
  for (int64_t r = 0; r < in_rows; ++r) {
    T* dst = padded_rows + r * padded;
    std::fill(dst, dst + margin_l, T(-0.0));
    std::copy(plane + r * width, plane + (r + 1) * width, dst + margin_l);
    std::fill(dst + margin_l + width, dst + padded, T(-0.0));
  }
}

template <typename T, int Lanes, int KW, bool kUnit>
void DepthwiseFirstBlockedAs(const ConvGeometry& g, const T* data, const T* weight, T* out,
                             const Eigen::ThreadPoolDevice* device) {
  using B = DepthwiseBlocks<T, Lanes, KW, kUnit>;
  using Vec = typename B::Vec;
  const int64_t og = g.out_per_group(), k = g.kernel_size(), kw_n = g.kernel[2];
  const int64_t ow_n = g.out[2], width = g.in[2];
  const DepthwiseColumns<typename B::Mask, Lanes> cols(g);
  const int64_t n_edge = int64_t(cols.edge.size());
  // Columns read: [-pad, reach); edge blocks read the margins.
  const int64_t margin_l = std::max<int64_t>(0, g.pad[2]);
  const int64_t reach = (ow_n - 1) * g.stride[2] + (kw_n - 1) * g.dilation[2] - g.pad[2] + 1;
  const int64_t margin_r = std::max<int64_t>(0, reach - width);
  const bool copy = n_edge > 0 && (margin_l > 0 || margin_r > 0);
  const int64_t padded = margin_l + width + margin_r;
  const int64_t in_rows = g.in[0] * g.in[1];
  const RowTable table(g, copy ? padded : width);
  ParallelFor(device, g.batch * g.out_channels, double(g.out_size() * k),
              [&](int64_t begin, int64_t end) {
    std::vector<const T*> rows(table.max_rows);
    std::vector<T> margins(copy ? in_rows * padded : 0);
    std::vector<Vec> edge_weights(n_edge * k);
    std::vector<const Vec*> edge(n_edge);
    for (int64_t e = 0; e < n_edge; ++e) edge[e] = edge_weights.data() + e * k;
    int64_t copied = -1;  // the input plane in `margins` (n * C + c)
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / g.out_channels, o = item % g.out_channels;
      const int64_t source = n * g.in_channels + o / og;
      const T* plane = data + source * g.in_size();
      if (copy) {
        // Consecutive output channels of one input channel (a channel
        // multiplier) share the copy.
        if (source != copied) {
          CopyWithMargins(plane, in_rows, width, margin_l, padded, margins.data());
          copied = source;
        }
        plane = margins.data() + margin_l;
      }
      const T* w = weight + o * k;
      const Vec one = B::Splat(T(1));
      for (int64_t e = 0; e < n_edge; ++e) {
        for (int64_t t0 = 0; t0 < k; t0 += kw_n) {
          for (int64_t kw = 0; kw < kw_n; ++kw) {
            edge_weights[e * k + t0 + kw] = cols.inside[e * kw_n + kw] ? B::Splat(w[t0 + kw]) : one;
          }
        }
      }
      T* dst = out + item * g.out_size();
      for (int64_t r = 0; r < g.out[0] * g.out[1]; ++r) {
        const int64_t nrows = table.count[r];
        for (int64_t i = 0; i < nrows; ++i) rows[i] = plane + table.offset[r * table.max_rows + i];
        const int64_t* weight_rows = table.weight_row.data() + r * table.max_rows;
        T* row = dst + r * ow_n;
        B::template Run<false>(g, rows.data(), weight_rows, nrows, w, nullptr, cols.whole.data(),
                               int64_t(cols.whole.size()), row);
        B::template Run<true>(g, rows.data(), weight_rows, nrows, w, edge.data(), cols.edge.data(),
                              n_edge, row);
      }
    }
  });
}

// DepthwiseFirstBlockedAs with the kernel width and unit W stride fixed
// at compile time where they are the common ones (float and double).
template <typename T, int Lanes>
void DepthwiseFirstBlocked(const ConvGeometry& g, const T* data, const T* weight, T* out,
                           const Eigen::ThreadPoolDevice* device) {
  if constexpr (std::is_floating_point_v<T>) {
    if (g.stride[2] == 1 && g.dilation[2] == 1) {
      if (g.kernel[2] == 3) return DepthwiseFirstBlockedAs<T, Lanes, 3, true>(g, data, weight, out, device);
      if (g.kernel[2] == 5) return DepthwiseFirstBlockedAs<T, Lanes, 5, true>(g, data, weight, out, device);
      return DepthwiseFirstBlockedAs<T, Lanes, 0, true>(g, data, weight, out, device);
    }
  }
  DepthwiseFirstBlockedAs<T, Lanes, 0, false>(g, data, weight, out, device);
}

// Planes narrower than the narrowest block: one sum at a time, same order.
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
              if (Inside(g, id, ih, iw)) {
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
  // lane by lane (on AVX2, GCC 12 turned 64-byte blocks into one scalar
  // FMA per lane and kept the accumulators in memory, 3x slower). At least
  // 4 lanes, so that the narrowest blocks have one.
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

}  // namespace

template <typename T>
void DepthwiseForward(const ConvGeometry& g, ChannelOrder order, const T* data, const T* weight,
                      T* out, const Eigen::ThreadPoolDevice* device) {
  if (order == ChannelOrder::kFirst) {
    DepthwiseFirst(g, data, weight, out, device);
  } else {
    DepthwiseLast(g, data, weight, out, device);
  }
}

#define CARVE_INSTANTIATE_DEPTHWISE(T)                                                        \
  template void DepthwiseForward<T>(const ConvGeometry&, ChannelOrder, const T*, const T*, T*, \
                                    const Eigen::ThreadPoolDevice*);
CARVE_INSTANTIATE_DEPTHWISE(float)
CARVE_INSTANTIATE_DEPTHWISE(double)
CARVE_INSTANTIATE_DEPTHWISE(int32_t)
CARVE_INSTANTIATE_DEPTHWISE(int64_t)
#undef CARVE_INSTANTIATE_DEPTHWISE

}  // namespace carve::nn_kernels::conv_internal
