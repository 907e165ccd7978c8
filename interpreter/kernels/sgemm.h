// A packed single-precision GEMM for AVX2/FMA machines (the BLIS design):
// op(A) is packed into MR-row panels and op(B) into NR-column panels, sized
// so a micro-kernel streams a KC-deep A panel against a B panel held in L1
// while the MC x KC block of A stays in L2 and the KC x NC block of B in L3.
// The 6x16 micro-kernel keeps twelve 8-lane accumulators in registers (8x32
// and sixteen 16-lane ones on AVX-512 builds).
//
// Packing is a callback, so operands that are never materialised can be
// packed straight from their source: convolutions pack im2col panels
// directly from the image (conv_packed.cc). Packing costs one pass over each
// operand block; for GEMMs whose other side is small (a conv with 64 output
// channels reuses each packed element only 128 flops' worth) the packers
// use 8x8 register transposes rather than scalar scatters.
//
// Every output element is computed the same way wherever it falls: depth
// blocks start at fixed multiples of KC, and edge tiles run the same
// micro-kernel into a full tile aside. So any split of C into panels (the
// threads of --threads N) gives bit-identical results. Eigen's GEBP and GEMV
// do not have that property (their row and column tails take other code
// paths, with another summation order or without FMA), which is why AVX-512
// builds use this kernel too (with a wider tile) rather than Eigen's.
// Builds without AVX2/FMA get Eigen's portable code, unsplit (gemm.cc);
// kPackedSgemm says which.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>

#include "interpreter/kernels/gemm.h"

namespace carve::nn_kernels {

#if defined(__AVX2__) && defined(__FMA__)
inline constexpr bool kPackedSgemm = true;
#else
inline constexpr bool kPackedSgemm = false;
#endif

// The register tile (MR rows x NR columns of C) and the cache blocks. KC x
// NR floats of B (24 KiB on AVX2) plus an A panel fit L1; MC x KC floats of A
// (144 KiB) fit L2; KC x NC floats of B (1.5 MiB) sit in L3.
#if defined(__AVX512F__)
// AVX-512: two 16-lane vectors per row of the tile, sixteen accumulators;
// a KC x NR panel of B (32 KiB) still fits L1. ~1.4x Eigen's AVX-512 GEMM
// and ~2x the AVX2 tile on the same machine (512^3: 215 vs 150 vs 100 GF/s).
// Eight rows rather than six: convolutions' output channels come in
// multiples of 8 (no padded rows) and the wider tile loads less per
// multiply-add (SqueezeNet's convolutions 3% faster). Edge tiles of at most
// 16 columns run one vector per row (kSgemmEdgeNR).
inline constexpr int64_t kSgemmMR = 8;
inline constexpr int64_t kSgemmNR = 32;
inline constexpr int64_t kSgemmEdgeNR = 16;
inline constexpr int64_t kSgemmKC = 256;
#else
inline constexpr int64_t kSgemmMR = 6;
inline constexpr int64_t kSgemmNR = 16;
inline constexpr int64_t kSgemmEdgeNR = 16;
inline constexpr int64_t kSgemmKC = 384;
#endif
inline constexpr int64_t kSgemmMC = 96;
inline constexpr int64_t kSgemmNC = 1024;
// Blocks start at panel boundaries (what PackedA / PackedB rely on).
static_assert(kSgemmMC % kSgemmMR == 0 && kSgemmNC % kSgemmNR == 0);

// True when the micro-kernel reads full MR-row panels of a row-major op(A)
// where they lie (AVX-512 builds: sixteen accumulators leave room for the
// row pointers), so only B and A's edge panels are packed. Packing such a
// panel was a plain copy, and a weight matrix is packed again for every
// block of C's columns and by every thread of a column split.
#if defined(__AVX512F__)
inline constexpr bool kSgemmInPlaceA = true;
#else
inline constexpr bool kSgemmInPlaceA = false;
#endif

// C[0:rows, 0:cols] (row stride ldc) = (accumulate ? C : 0) + Σ_p a[p][:] ⊗
// b[p][:] for panels a ([kc][MR], packed, when lda is 0; else row i at
// a + i * lda, only where kSgemmInPlaceA) and b ([kc][NR], packed, 64-byte
// aligned); the sum runs from +0 in p order, one fused multiply-add per
// step. An edge tile (rows < MR or cols < NR) stores the sum plus +0 when
// not accumulating (so -0 becomes +0), as edge tiles always have.
void SgemmMicroKernel(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                      int64_t ldc, bool accumulate, int rows = kSgemmMR, int cols = kSgemmNR);

// Thread-local, 64-byte aligned scratch of at least `floats` floats; `slot`
// 0 holds packed A, 1 packed B. Reused across calls.
float* SgemmScratch(int slot, int64_t floats);

// Packing primitives. Both write `len` consecutive panel rows of width W
// (kSgemmMR or kSgemmNR): out[p * W + r] for p < len.
//
// InterleaveRows: source row r (contiguous along p) is rows[r], for
// r < nrows (<= W); a null row reads zeros, and lanes nrows..W-1 are zero.
void InterleaveRows(const float* const* rows, int nrows, int64_t len, int width, float* out);
// CopyRows: out[p * W + j] = src[p * ld + j] for j < cols (<= W), zero
// beyond.
void CopyRows(const float* src, int64_t ld, int cols, int64_t len, int width, float* out);

// Packers for strided row-major operands (see MatrixRef in gemm.h).
// PackPanelsA: rows [i0, i0 + mc) x depth [p0, p0 + kc) of op(A) as MR-row
// panels. PackPanelsB: depth [p0, p0 + kc) x columns [j0, j0 + nc) of op(B)
// as NR-column panels.
void PackPanelsA(const MatrixRef<float>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                 float* out);
void PackPanelsB(const MatrixRef<float>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                 float* out);

// op(B) (k x n) packed once, for a constant weight multiplied on every call:
// depth block p0 (a multiple of kSgemmKC) holds all NR-column panels of
// op(B) as PackPanelsB writes them, so the block of a GEMM at columns from
// j0 (a multiple of NR) is Block(p0, kc, j0). The micro-kernel reads the
// same bytes as from a fresh pack: results are bit-identical. The copy adds
// the weight's size (its columns rounded up to NR) to memory.
class PackedB {
 public:
  PackedB(const MatrixRef<float>& b, int64_t k, int64_t n);
  ~PackedB();
  PackedB(const PackedB&) = delete;
  PackedB& operator=(const PackedB&) = delete;
  const float* Block(int64_t p0, int64_t kc, int64_t j0) const {
    return data_.get() + p0 * padded_n_ + j0 * kc;
  }
  const MatrixRef<float>& source() const { return source_; }
  size_t bytes() const { return bytes_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  MatrixRef<float> source_;
  int64_t padded_n_ = 0;
  size_t bytes_ = 0;
  std::unique_ptr<float, Free> data_;
};

// op(A) (m x k) packed once, for a constant weight multiplied on every call
// (a channels-first convolution's weight): depth block p0 (a multiple of
// kSgemmKC) holds all MR-row panels of op(A) as PackPanelsA writes them, so
// the panels of rows from i0 (a multiple of MR) are Block(p0, kc, i0). The
// micro-kernel reads the same values as from a fresh pack: results are
// bit-identical. The copy adds the weight's size (rows rounded up to MR).
class PackedA {
 public:
  PackedA(const MatrixRef<float>& a, int64_t m, int64_t k);
  ~PackedA();
  PackedA(const PackedA&) = delete;
  PackedA& operator=(const PackedA&) = delete;
  const float* Block(int64_t p0, int64_t kc, int64_t i0) const {
    return data_.get() + p0 * padded_m_ + i0 * kc;
  }
  size_t bytes() const { return bytes_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  int64_t padded_m_ = 0;
  size_t bytes_ = 0;
  std::unique_ptr<float, Free> data_;
};

// op(A) stored row-major (rows `ld` floats apart), for the micro-kernel to
// read in place; data is null when op(A) is only reachable through its
// packer.
struct InPlaceA {
  const float* data = nullptr;
  int64_t ld = 0;
};

// C (m x n, row stride ldc) = op(A) * op(B) (+ C when accumulate), with
// op(A) packed by pack_a(i0, mc, p0, kc, out) and op(B) by
// pack_b(p0, kc, j0, nc, out) in the panel formats above (a packer that
// returns a pointer names panels packed before, and may leave out unused;
// i0 and j0 are always multiples of MR and NR, as PackedA / PackedB
// blocks need). With `in_place`
// (and kSgemmInPlaceA) full MR-row panels of A are read where they lie and
// pack_a packs only the last, partial one.
template <typename PackA, typename PackB>
void PackedSgemm(int64_t m, int64_t n, int64_t k, PackA&& pack_a, PackB&& pack_b, float* c,
                 int64_t ldc, bool accumulate, InPlaceA in_place = {}) {
  constexpr int64_t MR = kSgemmMR, NR = kSgemmNR;
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m && !accumulate; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.f);
    return;
  }
  float* packed_a = SgemmScratch(0, kSgemmMC * kSgemmKC + 16);
  float* packed_b = SgemmScratch(1, kSgemmKC * (kSgemmNC + NR) + 16);
  for (int64_t jc = 0; jc < n; jc += kSgemmNC) {
    const int64_t nc = std::min(kSgemmNC, n - jc);
    for (int64_t pc = 0; pc < k; pc += kSgemmKC) {
      const int64_t kc = std::min(kSgemmKC, k - pc);
      const bool add = accumulate || pc > 0;  // later depth blocks accumulate
      const float* b_block = packed_b;
      using PackBResult = std::invoke_result_t<PackB&, int64_t, int64_t, int64_t, int64_t, float*>;
      if constexpr (std::is_void_v<PackBResult>) {
        pack_b(pc, kc, jc, nc, packed_b);
      } else {
        b_block = pack_b(pc, kc, jc, nc, packed_b);
      }
      for (int64_t ic = 0; ic < m; ic += kSgemmMC) {
        const int64_t mc = std::min(kSgemmMC, m - ic);
        // Rows [0, direct) of the block are read in place, the rest packed.
        const int64_t direct = kSgemmInPlaceA && in_place.data != nullptr ? mc / MR * MR : 0;
        const float* a_block = packed_a;
        using PackAResult = std::invoke_result_t<PackA&, int64_t, int64_t, int64_t, int64_t, float*>;
        if (direct < mc) {
          if constexpr (std::is_void_v<PackAResult>) {
            pack_a(ic + direct, mc - direct, pc, kc, packed_a);
          } else {
            a_block = pack_a(ic + direct, mc - direct, pc, kc, packed_a);
          }
        }
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const int cols = int(std::min(NR, nc - jr));
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int rows = int(std::min(MR, mc - ir));
            const bool read_in_place = ir < direct;
            const float* ap = read_in_place ? in_place.data + (ic + ir) * in_place.ld + pc
                                            : a_block + (ir - direct) * kc;
            SgemmMicroKernel(kc, ap, read_in_place ? in_place.ld : 0, b_block + jr * kc,
                             c + (ic + ir) * ldc + jc + jr, ldc, add, rows, cols);
          }
        }
      }
    }
  }
}

// Products below this many multiply-adds (~10 us) run on one thread: a
// split would cost about what it saves in wake-ups. SqueezeNet's 1x1
// convolutions on 13x13 to 55x55 images (1.5-6 M) are above it.
inline constexpr double kParallelSgemmMacs = 1e6;

// PackedSgemm split into column (or row) panels run on the device's
// threads; each thread packs into its own scratch.
template <typename PackA, typename PackB>
void ParallelPackedSgemm(const Eigen::ThreadPoolDevice* device, int64_t m, int64_t n, int64_t k,
                         const PackA& pack_a, const PackB& pack_b, float* c, int64_t ldc,
                         bool accumulate, InPlaceA in_place = {}) {
  const int threads = NumThreads(device);
  if (threads <= 1 || double(m) * n * k < kParallelSgemmMacs) {
    PackedSgemm(m, n, k, pack_a, pack_b, c, ldc, accumulate, in_place);
    return;
  }
  const bool split_cols = n >= m;
  const int64_t extent = split_cols ? n : m, align = split_cols ? kSgemmNR : kSgemmMR;
  const int64_t step = ((extent + threads - 1) / threads + align - 1) / align * align;
  ParallelFor(device, (extent + step - 1) / step, 1e9, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const int64_t lo = part * step, len = std::min(step, extent - lo);
      if (split_cols) {
        PackedSgemm(
            m, len, k, pack_a,
            [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
              return pack_b(p0, kc, lo + j0, nc, out);
            },
            c + lo, ldc, accumulate, in_place);
      } else {
        InPlaceA rows = in_place;
        if (rows.data != nullptr) rows.data += lo * rows.ld;
        PackedSgemm(
            len, n, k,
            [&](int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) -> decltype(auto) {
              return pack_a(lo + i0, mc, p0, kc, out);
            },
            pack_b, c + lo * ldc, ldc, accumulate, rows);
      }
    }
  });
}

// Bytes held by the PackedA / PackedB copies alive in this process: the
// constant weights plan steps keep packed, memory beyond the module's
// constants and a run's live tensors (tests and docs/performance.md count
// it; `carve run --stats` does not show it).
int64_t PackedWeightBytes();

// Strided-operand GEMM on the packed kernel (single-threaded). With
// `packed`, op(B) is columns [b_col0, b_col0 + n) of that packed operand
// (b is then unused where its panels are whole).
void PackedSgemmStrided(int64_t m, int64_t n, int64_t k, const MatrixRef<float>& a,
                        const MatrixRef<float>& b, float* c, int64_t ldc, bool accumulate,
                        const PackedB* packed = nullptr, int64_t b_col0 = 0);

}  // namespace carve::nn_kernels
