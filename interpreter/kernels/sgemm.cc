#include "interpreter/kernels/sgemm.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "interpreter/kernels/avx_transpose.h"

namespace carve::nn_kernels {
namespace {

constexpr int64_t MR = kSgemmMR, NR = kSgemmNR;

#if defined(__AVX2__)
// Stores the first `lanes` (6 or 8) floats of v.
inline void StoreLanes(float* dst, __m256 v, int lanes) {
  if (lanes == 8) {
    _mm256_storeu_ps(dst, v);
    return;
  }
  _mm_storeu_ps(dst, _mm256_castps256_ps128(v));
  _mm_storel_pi(reinterpret_cast<__m64*>(dst + 4), _mm256_extractf128_ps(v, 1));
}
#endif

// Interleaves up to 8 rows (r[i], null = zeros) into the first `lanes`
// columns of `out`, a panel of row width `width`.
void InterleaveBlock(const float* const r[8], int lanes, int64_t len, int width, float* out) {
  int64_t p = 0;
#if defined(__AVX2__)
  if (lanes == 6 || lanes == 8) {
    for (; p + 8 <= len; p += 8) {
      __m256 v[8];
      for (int i = 0; i < 8; ++i) v[i] = r[i] != nullptr ? _mm256_loadu_ps(r[i] + p) : _mm256_setzero_ps();
      Transpose8x8(v);
      for (int t = 0; t < 8; ++t) StoreLanes(out + (p + t) * width, v[t], lanes);
    }
  }
#endif
  for (; p < len; ++p) {
    for (int i = 0; i < lanes; ++i) out[p * width + i] = r[i] != nullptr ? r[i][p] : 0.f;
  }
}

template <int kWidth>
void CopyRowsFixed(const float* src, int64_t ld, int cols, int64_t len, float* out) {
  if (cols == kWidth) {  // the common, fully populated panel: fixed-size copies
    for (int64_t p = 0; p < len; ++p) std::memcpy(out + p * kWidth, src + p * ld, sizeof(float) * kWidth);
    return;
  }
  for (int64_t p = 0; p < len; ++p) {
    std::memcpy(out + p * kWidth, src + p * ld, sizeof(float) * cols);
    std::fill(out + p * kWidth + cols, out + (p + 1) * kWidth, 0.f);
  }
}

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};

#if defined(__AVX512F__)
// The AVX-512 tile: kVecs 16-lane column vectors per row (2: all NR
// columns; 1: an edge tile of at most 16 columns, half the work). Every
// row and column is computed (the panels are zero padded); kMasked stores
// only rows < `rows` and columns < `cols`. kInPlace reads row i of A at
// a + i * lda instead of a packed panel. All loops unroll, so the
// accumulators live in registers from the first step to the store.
template <int kVecs, bool kMasked, bool kInPlace>
void Kernel512(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
               bool accumulate, int rows, int cols) {
  __m512 acc[MR][kVecs];
  const float* row[MR];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    row[i] = kInPlace ? a + i * lda : a + i;
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) acc[i][v] = _mm512_setzero_ps();
  }
  constexpr int64_t step = kInPlace ? 1 : MR;  // A's stride along the depth
  for (int64_t p = 0; p < kc; ++p, b += NR) {
    __m512 bv[kVecs];
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) bv[v] = _mm512_load_ps(b + 16 * v);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m512 x = _mm512_set1_ps(row[i][p * step]);
#pragma GCC unroll 2
      for (int v = 0; v < kVecs; ++v) acc[i][v] = _mm512_fmadd_ps(x, bv[v], acc[i][v]);
    }
  }
  __mmask16 mask[kVecs];
#pragma GCC unroll 2
  for (int v = 0; v < kVecs; ++v) {
    const int n = std::clamp(cols - 16 * v, 0, 16);
    mask[v] = __mmask16((1u << n) - 1);
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    if (kMasked && i >= rows) break;
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) {
      float* dst = c + i * ldc + 16 * v;
      __m512 r = acc[i][v];
      if (!kMasked) {
        if (accumulate) r = _mm512_add_ps(r, _mm512_loadu_ps(dst));
        _mm512_storeu_ps(dst, r);
        continue;
      }
      // Edge tiles have always stored (accumulate ? C : 0) + sum, whose
      // 0 + sum turns a -0 sum into +0: kept, so the bits stay the same.
      r = _mm512_add_ps(r, accumulate ? _mm512_mask_loadu_ps(_mm512_setzero_ps(), mask[v], dst)
                                      : _mm512_setzero_ps());
      _mm512_mask_storeu_ps(dst, mask[v], r);
    }
  }
}

template <bool kInPlace>
void Dispatch512(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                 bool accumulate, int rows, int cols) {
  if (rows == MR && cols == NR) {
    Kernel512<2, false, kInPlace>(kc, a, lda, b, c, ldc, accumulate, rows, cols);
  } else if (cols > 16) {
    Kernel512<2, true, kInPlace>(kc, a, lda, b, c, ldc, accumulate, rows, cols);
  } else {
    Kernel512<1, true, kInPlace>(kc, a, lda, b, c, ldc, accumulate, rows, cols);
  }
}
#endif

}  // namespace

void SgemmMicroKernel(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                      int64_t ldc, bool accumulate, int rows, int cols) {
#if defined(__AVX512F__)
  if (lda != 0) {
    Dispatch512<true>(kc, a, lda, b, c, ldc, accumulate, rows, cols);
  } else {
    Dispatch512<false>(kc, a, lda, b, c, ldc, accumulate, rows, cols);
  }
#elif defined(__AVX2__) && defined(__FMA__)
  if (rows != MR || cols != NR) {  // edge tile: compute the full tile aside, keep the valid part
    alignas(64) float tile[MR * NR];
    SgemmMicroKernel(kc, a, 0, b, tile, NR, false, MR, NR);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.f) + tile[i * NR + j];
      }
    }
    return;
  }
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int64_t p = 0; p < kc; ++p, a += MR, b += NR) {
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    __m256 x = _mm256_broadcast_ss(a);
    c00 = _mm256_fmadd_ps(x, b0, c00);
    c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(x, b0, c10);
    c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(x, b0, c20);
    c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(x, b0, c30);
    c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(x, b0, c40);
    c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(x, b0, c50);
    c51 = _mm256_fmadd_ps(x, b1, c51);
  }
  const __m256 acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21},
                             {c30, c31}, {c40, c41}, {c50, c51}};
  for (int64_t i = 0; i < MR; ++i) {
    for (int h = 0; h < 2; ++h) {
      float* dst = c + i * ldc + h * 8;
      const __m256 v = accumulate ? _mm256_add_ps(acc[i][h], _mm256_loadu_ps(dst)) : acc[i][h];
      _mm256_storeu_ps(dst, v);
    }
  }
#else
  float acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p, a += MR, b += NR) {
    for (int64_t i = 0; i < MR; ++i) {
      for (int64_t j = 0; j < NR; ++j) acc[i][j] += a[i] * b[j];
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.f) + acc[i][j];
  }
#endif
}

float* SgemmScratch(int slot, int64_t floats) {
  thread_local std::unique_ptr<float, AlignedFree> buffers[2];
  thread_local int64_t sizes[2] = {0, 0};
  if (sizes[slot] < floats) {
    const size_t bytes = (size_t(floats) * sizeof(float) + 63) / 64 * 64;
    buffers[slot].reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    sizes[slot] = floats;
  }
  return buffers[slot].get();
}

void InterleaveRows(const float* const* rows, int nrows, int64_t len, int width, float* out) {
  for (int col = 0; col < width; col += 8) {
    const float* block[8] = {};
    for (int i = 0; i < 8 && col + i < nrows; ++i) block[i] = rows[col + i];
    InterleaveBlock(block, std::min(8, width - col), len, width, out + col);
  }
}

void CopyRows(const float* src, int64_t ld, int cols, int64_t len, int width, float* out) {
  if (width == MR) {
    CopyRowsFixed<MR>(src, ld, cols, len, out);
  } else {
    CopyRowsFixed<NR>(src, ld, cols, len, out);
  }
}

void PackPanelsA(const MatrixRef<float>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                 float* out) {
  for (int64_t ir = 0; ir < mc; ir += MR, out += MR * kc) {
    const int rows = int(std::min(MR, mc - ir));
    if (a.transposed) {  // stored k x m: each depth step is a contiguous run of rows
      CopyRows(a.data + p0 * a.ld + i0 + ir, a.ld, rows, kc, MR, out);
      continue;
    }
    const float* row_ptrs[MR];
    for (int r = 0; r < rows; ++r) row_ptrs[r] = a.data + (i0 + ir + r) * a.ld + p0;
    InterleaveRows(row_ptrs, rows, kc, MR, out);
  }
}

void PackPanelsB(const MatrixRef<float>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                 float* out) {
  for (int64_t jr = 0; jr < nc; jr += NR, out += NR * kc) {
    const int cols = int(std::min(NR, nc - jr));
    if (!b.transposed) {  // stored k x n: each depth step is a contiguous run
      CopyRows(b.data + p0 * b.ld + j0 + jr, b.ld, cols, kc, NR, out);
      continue;
    }
    const float* col_ptrs[NR];
    for (int j = 0; j < cols; ++j) col_ptrs[j] = b.data + (j0 + jr + j) * b.ld + p0;
    InterleaveRows(col_ptrs, cols, kc, NR, out);
  }
}

namespace {

std::atomic<int64_t> packed_weight_bytes{0};

// 64-byte aligned storage for `floats` floats, counted in
// packed_weight_bytes until its owner releases it.
float* AllocPacked(int64_t floats, size_t* bytes) {
  *bytes = (size_t(std::max<int64_t>(floats, 1)) * sizeof(float) + 63) / 64 * 64;
  packed_weight_bytes += int64_t(*bytes);
  return static_cast<float*>(std::aligned_alloc(64, *bytes));
}

}  // namespace

int64_t PackedWeightBytes() { return packed_weight_bytes.load(); }

PackedB::PackedB(const MatrixRef<float>& b, int64_t k, int64_t n)
    : source_(b), padded_n_((n + NR - 1) / NR * NR) {
  data_.reset(AllocPacked(k * padded_n_, &bytes_));
  for (int64_t p0 = 0; p0 < k; p0 += kSgemmKC) {
    const int64_t kc = std::min(kSgemmKC, k - p0);
    PackPanelsB(b, p0, kc, 0, n, data_.get() + p0 * padded_n_);
  }
}

PackedB::~PackedB() { packed_weight_bytes -= int64_t(bytes_); }

PackedA::PackedA(const MatrixRef<float>& a, int64_t m, int64_t k)
    : padded_m_((m + MR - 1) / MR * MR) {
  data_.reset(AllocPacked(k * padded_m_, &bytes_));
  for (int64_t p0 = 0; p0 < k; p0 += kSgemmKC) {
    const int64_t kc = std::min(kSgemmKC, k - p0);
    PackPanelsA(a, 0, m, p0, kc, data_.get() + p0 * padded_m_);
  }
}

PackedA::~PackedA() { packed_weight_bytes -= int64_t(bytes_); }

void PackedSgemmStrided(int64_t m, int64_t n, int64_t k, const MatrixRef<float>& a,
                        const MatrixRef<float>& b, float* c, int64_t ldc, bool accumulate,
                        const PackedB* packed, int64_t b_col0) {
  PackedSgemm(
      m, n, k,
      [&](int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
        PackPanelsA(a, i0, mc, p0, kc, out);
      },
      [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) -> const float* {
        const int64_t col = b_col0 + j0;
        if (packed != nullptr && col % NR == 0) return packed->Block(p0, kc, col);
        // A column split not on a panel boundary: pack as without `packed`.
        PackPanelsB(packed != nullptr ? packed->source() : b, p0, kc, packed != nullptr ? col : j0,
                    nc, out);
        return out;
      },
      c, ldc, accumulate, a.transposed ? InPlaceA{} : InPlaceA{a.data, a.ld});
}

}  // namespace carve::nn_kernels
