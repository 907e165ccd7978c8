// power(x, 2) for float32 with exactly the bits of powf(x, 2.0f), without
// calling powf for almost every element.
//
// The reference computes power with powf (std::pow on floats). The square
// rounded once, (float)((double)x * x) (the double product of two floats is
// exact), is not the same function: glibc's powf is not correctly rounded,
// and over all 2^32 inputs it differs from the correctly rounded square on
// 1,548,806 of them (glibc 2.36, x86-64 FMA variant; e.g. squares that
// round to a subnormal, and 6,061 mantissas per binade whose square lies
// within 888,704 / 2^29 of a float ulp from the midpoint between two
// floats). Away from a midpoint any powf within half an ulp plus that
// margin rounds the same way, so:
//
//   - the square is taken when it is a normal float and its exact value is
//     at least kMidpointWindow / 2^29 ulp away from a rounding midpoint
//     (the double's 29 bits below float precision tell that distance);
//   - every other element (near a midpoint, zero, subnormal, overflowing,
//     infinite or NaN: 0.8% of the normal range) calls powf.
//
// kMidpointWindow is 2^21, over twice the largest distance seen. Checked
// against powf exhaustively by hand (all 2^32 inputs) and in
// tests/interpreter_kernels/square_like_powf_test.cc (every mantissa of two
// binades, the subnormal, overflow and special ranges, a stride over the
// rest), so a libm whose powf rounds differently fails that test rather
// than changing results silently.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace carve::nn_kernels {

inline constexpr uint64_t kMidpointWindow = uint64_t{1} << 21;

// Nonzero when (float)((double)x * x) may differ from powf(x, 2): the
// square is not a normal float (zero, subnormal, overflowing, infinite or
// NaN: its biased double exponent is outside [1023 - 126, 1023 + 127]) or
// lies within kMidpointWindow of a midpoint. Integer operations only, no
// branches, so that the blocked loop below vectorises.
inline uint64_t SquareNeedsPowf(float x) {
  const uint64_t bits = std::bit_cast<uint64_t>(double(x) * double(x));
  const uint64_t exponent = ((bits >> 52) & 0x7FF) - (1023 - 126);  // wraps below 2^-126
  const int64_t dist = int64_t(bits & ((uint64_t{1} << 29) - 1)) - (int64_t{1} << 28);
  const uint64_t abs_dist = uint64_t(dist < 0 ? -dist : dist);
  return uint64_t(exponent >= 254) | uint64_t(abs_dist < kMidpointWindow);
}

// powf with an exponent the compiler cannot see: GCC folds pow(x, 2.0f)
// into x * x, which is the function this file exists to tell apart.
inline float OpaquePow(float x, float y) {
  volatile float e = y;
  return std::pow(x, float(e));
}

// out[i] = powf(in[i], 2.0f) for i < n, bit for bit. `out` may be `in`.
inline void SquareLikePowf(const float* in, float* out, int64_t n) {
  constexpr int kBlock = 16;
  int64_t i = 0;
#if defined(__AVX512F__)
  // The loop below in AVX-512 (GCC unrolls it into scalar code when it is
  // inlined into the kernel): the float square is the double square
  // rounded once, the test is SquareNeedsPowf's on 8 doubles at a time.
  const __m512i exp_mask = _mm512_set1_epi64(0x7FF);
  const __m512i exp_bias = _mm512_set1_epi64(1023 - 126);
  const __m512i exp_span = _mm512_set1_epi64(254);
  const __m512i low_mask = _mm512_set1_epi64((int64_t{1} << 29) - 1);
  const __m512i half = _mm512_set1_epi64(int64_t{1} << 28);
  const __m512i window = _mm512_set1_epi64(int64_t(kMidpointWindow));
  auto needs_powf = [&](__m256 x8) -> __mmask8 {
    const __m512d d = _mm512_cvtps_pd(x8);
    const __m512i bits = _mm512_castpd_si512(_mm512_mul_pd(d, d));
    const __m512i exponent =
        _mm512_sub_epi64(_mm512_and_si512(_mm512_srli_epi64(bits, 52), exp_mask), exp_bias);
    const __m512i dist = _mm512_abs_epi64(_mm512_sub_epi64(_mm512_and_si512(bits, low_mask), half));
    return __mmask8(_mm512_cmpge_epu64_mask(exponent, exp_span) |
                    _mm512_cmplt_epu64_mask(dist, window));
  };
  for (; i + kBlock <= n; i += kBlock) {
    const __m512 x = _mm512_loadu_ps(in + i);
    const __m256 lo = _mm512_castps512_ps256(x);
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
    const unsigned slow = unsigned(needs_powf(lo)) | (unsigned(needs_powf(hi)) << 8);
    if (slow == 0) {
      _mm512_storeu_ps(out + i, _mm512_mul_ps(x, x));
      continue;
    }
    float xs[kBlock];
    _mm512_storeu_ps(xs, x);  // out may alias in
    _mm512_storeu_ps(out + i, _mm512_mul_ps(x, x));
    for (int k = 0; k < kBlock; ++k) {
      if (slow >> k & 1) out[i + k] = OpaquePow(xs[k], 2.0f);
    }
  }
#endif
  for (; i + kBlock <= n; i += kBlock) {
    float x[kBlock];
    std::memcpy(x, in + i, sizeof x);  // out may alias in
    uint64_t slow = 0;
    for (int k = 0; k < kBlock; ++k) {
      out[i + k] = float(double(x[k]) * double(x[k]));
      slow |= SquareNeedsPowf(x[k]);
    }
    if (slow) {
      for (int k = 0; k < kBlock; ++k) {
        if (SquareNeedsPowf(x[k])) out[i + k] = OpaquePow(x[k], 2.0f);
      }
    }
  }
  for (; i < n; ++i) {
    const float x = in[i];
    out[i] = SquareNeedsPowf(x) ? OpaquePow(x, 2.0f) : float(double(x) * double(x));
  }
}

}  // namespace carve::nn_kernels
