// Float convolutions on the packed sgemm (sgemm.h) with im2col fused into
// packing: the im2col matrix is never materialised. Each packed panel is
// gathered straight from the image, so the only extra pass over the data
// is the packing the GEMM does anyway.
//
//   channels-first:  out[Og, S] = W[Og, Cg*K] · im2col[Cg*K, S]   (B packed from the image)
//   channels-last:   out[S, Og] = im2col[S, K*Cg] · W[K*Cg, Og]   (A packed from the image)

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "interpreter/kernel.h"
#include "interpreter/kernels/conv_internal.h"
#include "interpreter/kernels/sgemm.h"

namespace carve::nn_kernels::conv_internal {
namespace {

// Which operand of the product a convolution's weight is, and in which
// order its depth runs: the panels differ for each.
enum class WeightForm : uint8_t {
  kFirstA,  // channels-first: W[Og, Cg*K] as op(A)
  kFirstB,  // channels-first, transposed product: W^T[Cg*K, Og] as op(B)
  kLastB,   // channels-last: W[K*Cg, Og] as op(B)
};

// A constant weight's panels, per group, kept by one plan step: packing
// them was repeated on every call (op(A) once per 1024-column block of the
// output and per thread of a column split). Built on the step's first call
// on the calling thread, before any product starts; the pool's threads only
// read it.
struct ConvWeightPanels : KernelStepState {
  const void* source = nullptr;
  WeightForm form = WeightForm::kFirstA;
  int64_t groups = 0, og = 0, depth = 0;
  std::vector<std::unique_ptr<PackedA>> a;
  std::vector<std::unique_ptr<PackedB>> b;
};

// The panels of `weight` (in the engine's canonical order) in `form`, built
// into the cache's step state when missing or made for another weight or
// shape; nullptr without a cache.
const ConvWeightPanels* Panels(const ConvWeightCache& cache, WeightForm form,
                               const ConvGeometry& g, const float* weight) {
  if (cache.state == nullptr || cache.source == nullptr) return nullptr;
  const int64_t og = g.out_per_group(), depth = g.in_per_group() * g.kernel_size();
  auto* panels = dynamic_cast<ConvWeightPanels*>(cache.state->get());
  if (panels != nullptr && panels->source == cache.source && panels->form == form &&
      panels->groups == g.groups && panels->og == og && panels->depth == depth) {
    return panels;
  }
  auto fresh = std::make_unique<ConvWeightPanels>();
  fresh->source = cache.source;
  fresh->form = form;
  fresh->groups = g.groups;
  fresh->og = og;
  fresh->depth = depth;
  std::unique_ptr<float[]> last = form == WeightForm::kLastB ? WeightChannelsLast(g, weight)
                                                             : nullptr;
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    switch (form) {
      case WeightForm::kFirstA:
        fresh->a.push_back(std::make_unique<PackedA>(
            MatrixRef<float>{weight + grp * og * depth, depth, false}, og, depth));
        break;
      case WeightForm::kFirstB:
        fresh->b.push_back(std::make_unique<PackedB>(
            MatrixRef<float>{weight + grp * og * depth, depth, true}, depth, og));
        break;
      case WeightForm::kLastB:
        // The channels-last copy dies here: every block the products ask
        // for starts on a panel boundary (sgemm.h), so none repacks from it.
        fresh->b.push_back(std::make_unique<PackedB>(
            MatrixRef<float>{last.get() + grp * depth * og, og, false}, depth, og));
        break;
    }
  }
  panels = fresh.get();
  *cache.state = std::move(fresh);
  return panels;
}

// A run of consecutive panel columns that fall in one output row (od, oh):
// panel columns [col, col + len) are output positions ow0 .. ow0 + len - 1.
struct RowSegment {
  int64_t col, len, od, oh, ow0;
};

// Splits output positions [q0, q0 + count) into per-output-row segments.
template <size_t kWidth>
int SplitIntoRows(const ConvGeometry& g, int64_t q0, int64_t count,
                  std::array<RowSegment, kWidth>& segs) {
  int n = 0;
  for (int64_t j = 0; j < count;) {
    const int64_t q = q0 + j, r = q / g.out[2], ow = q % g.out[2];
    const int64_t len = std::min(count - j, g.out[2] - ow);
    segs[n++] = RowSegment{j, len, r / g.out[1], r % g.out[1], ow};
    j += len;
  }
  return n;
}

// One tap (kd, kh, kw) of a panel segment: segment lanes [lo, hi) read
// element offset + i * stride of their channel plane, the others are zero
// (lo = hi when the tap's row lies in the padding).
struct SegmentTap {
  int64_t offset = 0, lo = 0, hi = 0;
};

// The taps of segment `sg`, in the im2col depth order (kd, kh, kw).
void FindTaps(const ConvGeometry& g, const RowSegment& sg, std::vector<SegmentTap>& taps) {
  int64_t t = 0;
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    const int64_t id = InCoord(g, 0, sg.od, kd);
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      const int64_t ih = InCoord(g, 1, sg.oh, kh);
      const bool inside = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1];
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw, ++t) {
        const int64_t offset = InCoord(g, 2, sg.ow0, kw);
        const auto [lo, hi] = ValidRange(offset, g.stride[2], g.in[2], sg.len);
        taps[t] = inside ? SegmentTap{(id * g.in[1] + ih) * g.in[2] + offset, lo, hi}
                         : SegmentTap{};
      }
    }
  }
}

// dst[i] = plane[tap.offset + i * stride] for i in [tap.lo, tap.hi), zero
// for the other i < len.
inline void CopyTap(const float* plane, const SegmentTap& tap, int64_t stride, int64_t len,
                    float* dst) {
#if defined(__AVX512F__)
  // Masked loads read zeros outside the tap's lanes; stride 2 (downsampling
  // convolutions) loads 32 elements and keeps the even ones.
  if (stride == 1 || stride == 2) {
    auto bits = [](int64_t lo, int64_t hi) {  // bits [lo, hi) of 64
      return (hi >= 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1) & ~((uint64_t{1} << lo) - 1);
    };
    const float* src = plane + tap.offset;
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    // Source elements read: lanes [lo, hi) scaled by the stride.
    const uint64_t read = stride == 1 ? bits(tap.lo, tap.hi)
                                      : bits(2 * tap.lo, 2 * tap.hi) & 0x5555555555555555u;
    for (int64_t h = 0; h < len; h += 16) {
      const __mmask16 store = __mmask16((uint32_t{1} << std::min<int64_t>(16, len - h)) - 1);
      __m512 v;
      if (stride == 1) {
        v = _mm512_maskz_loadu_ps(__mmask16(read >> h), src + h);
      } else {
        const __m512 a = _mm512_maskz_loadu_ps(__mmask16(read >> (2 * h)), src + 2 * h);
        const __m512 b = _mm512_maskz_loadu_ps(__mmask16(read >> (2 * h + 16)), src + 2 * h + 16);
        v = _mm512_permutex2var_ps(a, even, b);
      }
      _mm512_mask_storeu_ps(dst + h, store, v);
    }
    return;
  }
#endif
  std::fill(dst, dst + tap.lo, 0.f);
  for (int64_t i = tap.lo; i < tap.hi; ++i) dst[i] = plane[tap.offset + i * stride];
  std::fill(dst + tap.hi, dst + len, 0.f);
}

// Packs B = im2col(image planes at `in`) rows [p0, p0 + kc) (p = (c, kd,
// kh, kw)) x columns [j0, j0 + nc) (output positions) as kWidth-column
// panels: NR-wide as the B operand, or MR-wide as the A operand of the
// transposed product (the panel formats coincide). Per panel segment each
// tap reduces to an offset and a valid lane range, found once, so the
// per-row work is a bounded copy.
template <int64_t kWidth>
void PackImageColumns(const ConvGeometry& g, const float* in, int64_t p0, int64_t kc, int64_t j0,
                      int64_t nc, float* out) {
  const int64_t k = g.kernel_size();
  std::vector<SegmentTap> taps(static_cast<size_t>(k));
  std::array<RowSegment, kWidth> segs;
  for (int64_t jr = 0; jr < nc; jr += kWidth, out += kWidth * kc) {
    const int64_t cols = std::min(kWidth, nc - jr);
    const int nsegs = SplitIntoRows(g, j0 + jr, cols, segs);
    for (int s = 0; s < nsegs; ++s) {
      const RowSegment& sg = segs[s];
      FindTaps(g, sg, taps);
      const float* plane = in + p0 / k * g.in_size();
      for (int64_t p = 0, t = p0 % k; p < kc; ++p) {
        CopyTap(plane, taps[t], g.stride[2], sg.len, out + p * kWidth + sg.col);
        if (++t == k) {
          t = 0;
          plane += g.in_size();
        }
      }
    }
    for (int64_t p = 0; p < kc && cols < kWidth; ++p) {
      std::fill(out + p * kWidth + cols, out + (p + 1) * kWidth, 0.f);
    }
  }
}

// Packs A = im2col rows [i0, i0 + mc) (output pixels of one channels-last
// image) x depth [p0, p0 + kc) (p = (kd, kh, kw, c)) as MR-row panels. The
// image pointer is offset to the group's first channel.
void PackImageRows(const ConvGeometry& g, const float* image, int64_t i0, int64_t mc, int64_t p0,
                   int64_t kc, float* out) {
  const int64_t cg = g.in_per_group(), khw = g.kernel[1] * g.kernel[2];
  for (int64_t ir = 0; ir < mc; ir += kSgemmMR, out += kSgemmMR * kc) {
    const int rows = int(std::min(kSgemmMR, mc - ir));
    std::array<int64_t, kSgemmMR> od{}, oh{}, ow{};
    for (int r = 0; r < rows; ++r) {
      const int64_t q = i0 + ir + r, row = q / g.out[2];
      od[r] = row / g.out[1];
      oh[r] = row % g.out[1];
      ow[r] = q % g.out[2];
    }
    // Runs of one tap: channel c..c+run of that tap for each pixel.
    for (int64_t p = p0; p < p0 + kc;) {
      const int64_t t = p / cg, c = p % cg, run = std::min(cg - c, p0 + kc - p);
      const int64_t kd = t / khw, kh = t % khw / g.kernel[2], kw = t % g.kernel[2];
      const float* src[kSgemmMR] = {};
      for (int r = 0; r < rows; ++r) {
        const int64_t id = InCoord(g, 0, od[r], kd), ih = InCoord(g, 1, oh[r], kh);
        const int64_t iw = InCoord(g, 2, ow[r], kw);
        if (Inside(g, id, ih, iw)) {
          src[r] = image + ((id * g.in[1] + ih) * g.in[2] + iw) * g.in_channels + c;
        }
      }
      InterleaveRows(src, kSgemmMR, run, kSgemmMR, out + (p - p0) * kSgemmMR);
      p += run;
    }
  }
}

// The channels-first im2col matrix of the Cg channel planes at `in`:
// col[(c, kd, kh, kw)][(od, oh, ow)], zero where a tap reads padding.
void Im2Col(const ConvGeometry& g, const float* in, float* col) {
  const int64_t k = g.kernel_size(), ow_n = g.out[2];
  for (int64_t p = 0; p < g.in_per_group() * k; ++p) {
    const int64_t c = p / k, t = p % k;
    const int64_t kd = t / (g.kernel[1] * g.kernel[2]);
    const int64_t kh = t / g.kernel[2] % g.kernel[1], kw = t % g.kernel[2];
    const float* plane = in + c * g.in_size();
    float* dst = col + p * g.out_size();
    // The columns a tap reads are the same on every output row: found once
    // per tap, not per row (the rows of small images are a few floats).
    const int64_t off = InCoord(g, 2, 0, kw), s = g.stride[2];
    const auto [lo, hi] = ValidRange(off, s, g.in[2], ow_n);
    for (int64_t od = 0; od < g.out[0]; ++od) {
      const int64_t id = InCoord(g, 0, od, kd);
      const bool d_inside = id >= 0 && id < g.in[0];
      for (int64_t oh = 0; oh < g.out[1]; ++oh, dst += ow_n) {
        const int64_t ih = InCoord(g, 1, oh, kh);
        if (!d_inside || ih < 0 || ih >= g.in[1]) {
          std::fill(dst, dst + ow_n, 0.f);
          continue;
        }
        const float* row = plane + (id * g.in[1] + ih) * g.in[2];
        std::fill(dst, dst + lo, 0.f);
        if (s == 1) {
          std::copy(row + lo + off, row + hi + off, dst + lo);
        } else {
          for (int64_t i = lo; i < hi; ++i) dst[i] = row[i * s + off];
        }
        std::fill(dst + hi, dst + ow_n, 0.f);
      }
    }
  }
}

// Fraction of a tile dimension of `width` that `extent` fills.
double TileUse(int64_t extent, int64_t width) {
  return double(extent) / double((extent + width - 1) / width * width);
}

// True when the channels-first product is better run transposed:
// out^T[S, Og] = im2col^T[S, K] · W^T[K, Og]. Small images fill the
// register tiles better that way (7x7 = 49 positions fill 49 of 64 columns,
// computed in steps of kSgemmEdgeNR, but 49 of 56 MR-high rows).
bool TransposeProduct(const ConvGeometry& g, int64_t og, int64_t os) {
  // Measured on ResNet-50's 7x7 layers: a 3x3 conv gains ~10%; a 1x1 conv
  // does not (its weights, packed as the B operand, are then reused across
  // fewer register tiles), so only multi-tap kernels with a clear tile
  // gain are transposed.
  return g.kernel_size() > 1 && TileUse(os, kSgemmMR) * TileUse(og, kSgemmEdgeNR) >
                                    1.1 * TileUse(og, kSgemmMR) * TileUse(os, kSgemmEdgeNR);
}

// What ConvFirst decides once per call: the product's shape and form, the
// cached weight panels (or null) and the scratch buffers.
struct ConvFirstPlan {
  int64_t cg = 0, og = 0, os = 0, depth = 0;
  bool pointwise = false;
  const ConvWeightPanels* panels = nullptr;
  float* scratch = nullptr;  // [S][O] product of the transposed form
  float* col = nullptr;      // [depth][S] im2col of the transposed form, or null
};

// One group of one image as weights x image columns: the product lands in
// place in `dst`.
void ConvFirstGroupDirect(const ConvGeometry& g, const ConvFirstPlan& p, const float* in,
                          const float* weight, int64_t grp, float* dst,
                          const Eigen::ThreadPoolDevice* device) {
  const MatrixRef<float> w{weight + grp * p.og * p.depth, p.depth, false};
  auto pack_a = [&](int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* o) -> const float* {
    if (p.panels != nullptr) return p.panels->a[grp]->Block(p0, kc, i0);
    PackPanelsA(w, i0, mc, p0, kc, o);
    return o;
  };
  auto pack_b = [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* o) {
    if (p.pointwise) {
      PackPanelsB(MatrixRef<float>{in, g.in_size(), false}, p0, kc, j0, nc, o);
    } else {
      PackImageColumns<kSgemmNR>(g, in, p0, kc, j0, nc, o);
    }
  };
  // Packed panels hold the values the in-place rows would give.
  ParallelPackedSgemm(device, p.og, p.os, p.depth, pack_a, pack_b, dst, p.os, false,
                      p.panels != nullptr ? InPlaceA{} : InPlaceA{w.data, w.ld});
}

// One group of one image as image columns x weights (better register tiles
// for small images), then transposed into `dst`.
void ConvFirstGroupTransposed(const ConvGeometry& g, const ConvFirstPlan& p, const float* in,
                              const float* weight, int64_t grp, float* dst,
                              const Eigen::ThreadPoolDevice* device) {
  const int64_t og = p.og, os = p.os;
  const MatrixRef<float> wt{weight + grp * og * p.depth, p.depth, true};
  // Small images (what takes this path): im2col [depth][S] once, a
  // straight copy of each output row's taps, then packed as the
  // transposed A operand; the panels hold the same values
  // PackImageColumns<MR> would gather 6 columns at a time, at a fraction
  // of its per-panel bookkeeping.
  if (!p.pointwise && p.col != nullptr) Im2Col(g, in, p.col);
  auto pack_a = [&](int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* o) {
    if (p.pointwise) {
      PackPanelsA(MatrixRef<float>{in, g.in_size(), true}, i0, mc, p0, kc, o);
    } else if (p.col != nullptr) {
      PackPanelsA(MatrixRef<float>{p.col, os, true}, i0, mc, p0, kc, o);
    } else {
      PackImageColumns<kSgemmMR>(g, in, p0, kc, i0, mc, o);
    }
  };
  auto pack_b = [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* o) -> const float* {
    if (p.panels != nullptr) return p.panels->b[grp]->Block(p0, kc, j0);
    PackPanelsB(wt, p0, kc, j0, nc, o);
    return o;
  };
  ParallelPackedSgemm(device, os, og, p.depth, pack_a, pack_b, p.scratch, og, false);
  for (int64_t o = 0; o < og; ++o) {
    for (int64_t q = 0; q < os; ++q) dst[o * os + q] = p.scratch[q * og + o];
  }
}

void ConvFirst(const ConvGeometry& g, const float* data, const float* weight, float* out,
               const Eigen::ThreadPoolDevice* device, const ConvWeightCache& cache) {
  ConvFirstPlan p;
  p.cg = g.in_per_group();
  p.og = g.out_per_group();
  p.os = g.out_size();
  p.depth = p.cg * g.kernel_size();
  p.pointwise = IsPointwise(g);
  const bool transposed = TransposeProduct(g, p.og, p.os);
  p.panels = Panels(cache, transposed ? WeightForm::kFirstB : WeightForm::kFirstA, g, weight);
  std::unique_ptr<float[]> scratch(transposed ? new float[p.og * p.os] : nullptr);
  constexpr int64_t kColBudget = int64_t{1} << 21;  // floats (8 MiB)
  std::unique_ptr<float[]> col(transposed && !p.pointwise && p.depth * p.os <= kColBudget
                                   ? new float[p.depth * p.os]
                                   : nullptr);
  p.scratch = scratch.get();
  p.col = col.get();
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float* in = data + (n * g.in_channels + grp * p.cg) * g.in_size();
      float* dst = out + (n * g.out_channels + grp * p.og) * p.os;
      if (transposed) {
        ConvFirstGroupTransposed(g, p, in, weight, grp, dst, device);
      } else {
        ConvFirstGroupDirect(g, p, in, weight, grp, dst, device);
      }
    }
  }
}

void ConvLast(const ConvGeometry& g, const float* data, const float* weight, float* out,
              const Eigen::ThreadPoolDevice* device, const ConvWeightCache& cache) {
  const int64_t cg = g.in_per_group(), og = g.out_per_group();
  const int64_t depth = g.kernel_size() * cg;
  const ConvWeightPanels* panels = Panels(cache, WeightForm::kLastB, g, weight);
  std::unique_ptr<float[]> packed = panels == nullptr ? WeightChannelsLast(g, weight) : nullptr;
  const bool pointwise = IsPointwise(g);
  // A pointwise convolution multiplies all images at once: [N * S, C].
  const int64_t images = pointwise ? 1 : g.batch;
  const int64_t rows = pointwise ? g.batch * g.in_size() : g.out_size();
  for (int64_t n = 0; n < images; ++n) {
    const float* image = data + n * g.in_size() * g.in_channels;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const MatrixRef<float> w{packed == nullptr ? nullptr : packed.get() + grp * depth * og, og,
                               false};
      auto pack_a = [&](int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* o) {
        if (pointwise) {
          PackPanelsA(MatrixRef<float>{image + grp * cg, g.in_channels, false}, i0, mc, p0, kc, o);
        } else {
          PackImageRows(g, image + grp * cg, i0, mc, p0, kc, o);
        }
      };
      auto pack_b = [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                        float* o) -> const float* {
        if (panels != nullptr) return panels->b[grp]->Block(p0, kc, j0);
        PackPanelsB(w, p0, kc, j0, nc, o);
        return o;
      };
      ParallelPackedSgemm(device, rows, og, depth, pack_a, pack_b,
                          out + n * g.out_size() * g.out_channels + grp * og, g.out_channels,
                          false,
                          pointwise ? InPlaceA{image + grp * cg, g.in_channels} : InPlaceA{});
    }
  }
}

}  // namespace

void ConvForwardPacked(const ConvGeometry& g, ChannelOrder order, const float* data,
                       const float* weight, float* out, const Eigen::ThreadPoolDevice* device,
                       ConvWeightCache cache) {
  if (order == ChannelOrder::kFirst) {
    ConvFirst(g, data, weight, out, device, cache);
  } else {
    ConvLast(g, data, weight, out, device, cache);
  }
}

}  // namespace carve::nn_kernels::conv_internal
