#include "backends/dnnl/dnnl_transpose.h"

#include <algorithm>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace carve::dnnl_backend {
namespace {

enum class Arrangement { kOther, kPlain, kChannelsLast };

// Whether `d` is a dense, unpadded float32 tensor of 3 to 5 dims, row-major
// in logical order (plain) or with the channel axis (1) innermost.
Arrangement ArrangementOf(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& m = d.data;
  if (m.data_type != dnnl_f32 || m.format_kind != dnnl_blocked || m.ndims < 3 || m.ndims > 5 ||
      m.offset0 != 0 || m.format_desc.blocking.inner_nblks != 0) {
    return Arrangement::kOther;
  }
  const int n = m.ndims;
  for (int i = 0; i < n; ++i) {
    if (m.dims[i] <= 0 || m.padded_dims[i] != m.dims[i] || m.padded_offsets[i] != 0) {
      return Arrangement::kOther;
    }
  }
  const dnnl_dims_t& s = m.format_desc.blocking.strides;
  auto row_major = [&](const std::vector<int>& order) {
    int64_t expected = 1;
    for (size_t k = order.size(); k-- > 0;) {
      if (m.dims[order[k]] != 1 && s[order[k]] != expected) return false;
      expected *= m.dims[order[k]];
    }
    return true;
  };
  std::vector<int> plain(n), last{0};
  for (int i = 0; i < n; ++i) plain[i] = i;
  for (int i = 2; i < n; ++i) last.push_back(i);
  last.push_back(1);
  // A tensor with one channel or one pixel is both: no transpose needed,
  // and oneDNN's reorder is a copy there anyway.
  const bool is_plain = row_major(plain), is_last = row_major(last);
  if (is_plain == is_last) return Arrangement::kOther;
  return is_plain ? Arrangement::kPlain : Arrangement::kChannelsLast;
}

// The scalar transpose of a block (edges, and builds without AVX).
void TransposeScalar(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst,
                     int64_t ldd) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[j * ldd + i] = src[i * lds + j];
  }
}

#if defined(__AVX__)
// An 8 x 8 block through eight 256-bit registers.
inline void Transpose8x8(const float* src, int64_t lds, float* dst, int64_t ldd) {
  __m256 r0 = _mm256_loadu_ps(src + 0 * lds), r1 = _mm256_loadu_ps(src + 1 * lds);
  __m256 r2 = _mm256_loadu_ps(src + 2 * lds), r3 = _mm256_loadu_ps(src + 3 * lds);
  __m256 r4 = _mm256_loadu_ps(src + 4 * lds), r5 = _mm256_loadu_ps(src + 5 * lds);
  __m256 r6 = _mm256_loadu_ps(src + 6 * lds), r7 = _mm256_loadu_ps(src + 7 * lds);
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  _mm256_storeu_ps(dst + 0 * ldd, _mm256_permute2f128_ps(s0, s4, 0x20));
  _mm256_storeu_ps(dst + 1 * ldd, _mm256_permute2f128_ps(s1, s5, 0x20));
  _mm256_storeu_ps(dst + 2 * ldd, _mm256_permute2f128_ps(s2, s6, 0x20));
  _mm256_storeu_ps(dst + 3 * ldd, _mm256_permute2f128_ps(s3, s7, 0x20));
  _mm256_storeu_ps(dst + 4 * ldd, _mm256_permute2f128_ps(s0, s4, 0x31));
  _mm256_storeu_ps(dst + 5 * ldd, _mm256_permute2f128_ps(s1, s5, 0x31));
  _mm256_storeu_ps(dst + 6 * ldd, _mm256_permute2f128_ps(s2, s6, 0x31));
  _mm256_storeu_ps(dst + 7 * ldd, _mm256_permute2f128_ps(s3, s7, 0x31));
}
#endif

// The block size of `d` when it is a dense float32 tensor of 3 to 5 dims
// with its channels (axis 1) in blocks of 8 or 16 innermost (nCw8c,
// nChw16c, ...; the last block may be padded), else 0.
int64_t ChannelBlockOf(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& m = d.data;
  const dnnl_blocking_desc_t& b = m.format_desc.blocking;
  if (m.data_type != dnnl_f32 || m.format_kind != dnnl_blocked || m.ndims < 3 || m.ndims > 5 ||
      m.offset0 != 0 || m.extra.flags != 0 || b.inner_nblks != 1 || b.inner_idxs[0] != 1 ||
      (b.inner_blks[0] != 8 && b.inner_blks[0] != 16)) {
    return 0;
  }
  const int64_t blk = b.inner_blks[0];
  for (int i = 0; i < m.ndims; ++i) {
    const int64_t padded = i == 1 ? (m.dims[1] + blk - 1) / blk * blk : m.dims[i];
    if (m.dims[i] <= 0 || m.padded_dims[i] != padded || m.padded_offsets[i] != 0) return 0;
  }
  // Dense: spatial axes row-major inside, then the channel blocks, then N.
  int64_t expected = blk;
  for (int i = m.ndims; i-- > 2;) {
    if (m.dims[i] != 1 && b.strides[i] != expected) return 0;
    expected *= m.dims[i];
  }
  if (b.strides[1] != expected) return 0;
  expected *= m.padded_dims[1] / blk;
  if (m.dims[0] != 1 && b.strides[0] != expected) return 0;
  return blk;
}

// Whether `d` is a dense row-major float32 tensor of 3 to 5 dims (one
// channel or one pixel included, unlike ArrangementOf).
bool IsDensePlain(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& m = d.data;
  if (m.data_type != dnnl_f32 || m.format_kind != dnnl_blocked || m.ndims < 3 || m.ndims > 5 ||
      m.offset0 != 0 || m.extra.flags != 0 || m.format_desc.blocking.inner_nblks != 0) {
    return false;
  }
  int64_t expected = 1;
  for (int i = m.ndims; i-- > 0;) {
    if (m.dims[i] <= 0 || m.padded_dims[i] != m.dims[i] || m.padded_offsets[i] != 0) return false;
    if (m.dims[i] != 1 && m.format_desc.blocking.strides[i] != expected) return false;
    expected *= m.dims[i];
  }
  return true;
}

// One block of 8 channels between plain rows (`pixels` apart) and its
// pixels x 8 blocked form, through 8 x 8 tiles with the blocked side's
// stride (8) a constant: TransposeMatrix's loop without its variable
// strides and a call per block, 20-30% faster on 13 x 13 and 27 x 27
// planes (squeezenet1_1's).
void Block8ToRows(const float* block, int64_t pixels, float* rows) {
  int64_t p = 0;
#if defined(__AVX__)
  for (; p + 8 <= pixels; p += 8) Transpose8x8(block + p * 8, 8, rows + p, pixels);
#endif
  for (; p < pixels; ++p) {
    for (int64_t c = 0; c < 8; ++c) rows[c * pixels + p] = block[p * 8 + c];
  }
}

void RowsToBlock8(const float* rows, int64_t pixels, float* block) {
  int64_t p = 0;
#if defined(__AVX__)
  for (; p + 8 <= pixels; p += 8) Transpose8x8(rows + p, pixels, block + p * 8, 8);
#endif
  for (; p < pixels; ++p) {
    for (int64_t c = 0; c < 8; ++c) block[p * 8 + c] = rows[c * pixels + p];
  }
}

// Plain <-> blocked (ChannelsTranspose with `block` set).
void RunBlocked(const ChannelsTranspose& t, const float* src, float* dst) {
  const int64_t pixels = t.cols, blk = t.block;
  const int64_t plain_item = t.channels * pixels, blocked_item = t.rows * pixels;
  for (int64_t n = 0; n < t.batch; ++n) {
    const float* s = src + n * (t.to_blocked ? plain_item : blocked_item);
    float* d = dst + n * (t.to_blocked ? blocked_item : plain_item);
    for (int64_t c0 = 0; c0 < t.rows; c0 += blk) {
      const int64_t real = std::min(blk, t.channels - c0);
      if (blk == 8 && real == 8) {
        if (t.to_blocked) {
          RowsToBlock8(s + c0 * pixels, pixels, d + c0 * pixels);
        } else {
          Block8ToRows(s + c0 * pixels, pixels, d + c0 * pixels);
        }
      } else if (t.to_blocked) {
        // Block c0 / blk is a pixels x blk matrix at d + c0 * pixels.
        float* block = d + c0 * pixels;
        TransposeMatrix(s + c0 * pixels, real, pixels, pixels, block, blk);
        for (int64_t p = 0; real < blk && p < pixels; ++p) {
          std::fill(block + p * blk + real, block + (p + 1) * blk, 0.f);
        }
      } else {
        TransposeMatrix(s + c0 * pixels, pixels, real, blk, d + c0 * pixels, pixels);
      }
    }
  }
}

}  // namespace

void TransposeMatrix(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst,
                     int64_t ldd) {
#if defined(__AVX__)
  // 8 x 8 blocks. The inner loop walks the shorter side, so the cache
  // lines it touches on the other (8 per block) stay in L1: a 168 x 1000
  // matrix took 147 us walking its 1000 columns inside, 60 us walking its
  // 168 rows inside; a 1000 x 168 one 20 and 47 us.
  const int64_t full_rows = rows / 8 * 8, full_cols = cols / 8 * 8;
  if (cols <= rows) {
    for (int64_t i = 0; i < full_rows; i += 8) {
      for (int64_t j = 0; j < full_cols; j += 8) {
        Transpose8x8(src + i * lds + j, lds, dst + j * ldd + i, ldd);
      }
    }
  } else {
    for (int64_t j = 0; j < full_cols; j += 8) {
      for (int64_t i = 0; i < full_rows; i += 8) {
        Transpose8x8(src + i * lds + j, lds, dst + j * ldd + i, ldd);
      }
    }
  }
  // The columns right of the blocks, then the rows below them, only when
  // there are some: with the empty calls in, a 64 x 55 x 55 nChw8c tensor
  // took 166 us to convert back to NCHW, without them 32 us (its 8-column
  // blocks have no right remainder; squeezenet1_1's region outputs).
  if (cols > full_cols) {
    TransposeScalar(src + full_cols, full_rows, cols - full_cols, lds, dst + full_cols * ldd, ldd);
  }
  if (rows > full_rows) {
    TransposeScalar(src + full_rows * lds, rows - full_rows, cols, lds, dst + full_rows, ldd);
  }
#else
  TransposeScalar(src, rows, cols, lds, dst, ldd);
#endif
}

void ChannelsTranspose::Run(const float* src, float* dst) const {
  if (block > 0) {
    RunBlocked(*this, src, dst);
    return;
  }
  const int64_t item = rows * cols;
  for (int64_t n = 0; n < batch; ++n) {
    TransposeMatrix(src + n * item, rows, cols, cols, dst + n * item, rows);
  }
}

std::optional<ChannelsTranspose> PlanChannelsTranspose(const dnnl::memory::desc& from,
                                                       const dnnl::memory::desc& to) {
  if (from.dims() != to.dims()) return std::nullopt;
  const int64_t from_block = ChannelBlockOf(from), to_block = ChannelBlockOf(to);
  if ((from_block > 0) != (to_block > 0) &&
      IsDensePlain(from_block > 0 ? to : from)) {
    const dnnl::memory::dims dims = from.dims();
    ChannelsTranspose t;
    t.batch = dims[0];
    t.block = std::max(from_block, to_block);
    t.channels = dims[1];
    t.rows = (dims[1] + t.block - 1) / t.block * t.block;
    t.cols = 1;
    for (size_t i = 2; i < dims.size(); ++i) t.cols *= dims[i];
    t.to_blocked = to_block > 0;
    return t;
  }
  const Arrangement a = ArrangementOf(from), b = ArrangementOf(to);
  if (a == Arrangement::kOther || b == Arrangement::kOther || a == b) return std::nullopt;
  const dnnl::memory::dims dims = from.dims();
  int64_t spatial = 1;
  for (size_t i = 2; i < dims.size(); ++i) spatial *= dims[i];
  // Under 8 channels or pixels the 8 x 8 blocks do not apply, and the
  // scalar loop is slower than oneDNN (1x3x48x192 to NHWC: 7.5 against
  // 4.2 us).
  if (dims[1] < 8 || spatial < 8) return std::nullopt;
  ChannelsTranspose t;
  t.batch = dims[0];
  // Plain to channels-last transposes C x S; the way back S x C.
  t.rows = a == Arrangement::kPlain ? dims[1] : spatial;
  t.cols = a == Arrangement::kPlain ? spatial : dims[1];
  return t;
}

}  // namespace carve::dnnl_backend
