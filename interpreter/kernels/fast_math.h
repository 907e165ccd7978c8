// TVM's FastMath approximations (the ops fast_exp, fast_tanh, fast_erf and
// nn.fast_softmax that the FastMath pass substitutes at opt level 4),
// evaluated the way TOPI defines them for float32, so a module rewritten by
// FastMath computes what TVM computes rather than the exact function:
//
//   fast_exp  (topi fast_exp_float32): clamp to +-88.376, split
//             x = n ln2 + f with n = floor(x log2e + 1/2), a degree-7
//             polynomial for e^f, 2^n built in the exponent bits; the
//             result is max(that, x) (it keeps +inf and NaN ordering).
//   fast_tanh (topi fast_tanh_float, Eigen's rational form): clamp to
//             [-9, 9], odd degree-13 numerator over even degree-6
//             denominator.
//   fast_erf  (tir fast_erf_float_expr, Eigen's rational form): clamp to
//             [-4, 4], odd degree-13 numerator over even degree-8
//             denominator.
//
// Only float32 takes these paths in TVM (fast_erf also float16, which carve
// evaluates in float32 and rounds once); other dtypes use the exact
// function. TVM compiles these with LLVM's FP contraction, so single
// results may differ from carve's in the last bit.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace carve::fast_math {

inline float FastExp(float in) {
  if (std::isnan(in)) return in;  // the int conversion below needs a number
  const float x = std::max(std::min(in, 88.3762626647950f), -88.3762626647949f);
  const float n = std::floor(x * 1.44269504088896341f + 0.5f);
  const float f = x - n * 0.6931471805599453f;
  const float y = (((((1.9875691500E-4f * f + 1.3981999507E-3f) * f + 8.3334519073E-3f) * f +
                     4.1665795894E-2f) *
                        f +
                    1.6666665459E-1f) *
                       f +
                   5.0000001201E-1f) *
                      f * f +
                  f + 1.0f;
  // 2^n: n + 127 in the exponent field (n is within [-127, 128] after the
  // clamp). The shift is done on the unsigned pattern, as the int32 shift
  // TVM emits wraps the same way.
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n + 127.0f)) << 23;
  const float scale = std::bit_cast<float>(bits);
  return std::max(scale * y, in);
}

inline float FastTanh(float in) {
  const float x = std::max(-9.0f, std::min(9.0f, in));
  const float x2 = x * x;
  float p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
  p = x2 * p + -8.60467152213735e-11f;
  p = x2 * p + 5.12229709037114e-08f;
  p = x2 * p + 1.48572235717979e-05f;
  p = x2 * p + 6.37261928875436e-04f;
  p = x2 * p + 4.89352455891786e-03f;
  p = x * p;
  float q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
  q = x2 * q + 2.26843463243900e-03f;
  q = x2 * q + 4.89352518554385e-03f;
  return p / q;
}

inline float FastErf(float in) {
  const float x = std::max(std::min(in, 4.0f), -4.0f);
  const float x2 = x * x;
  float p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
  p = x2 * p + -2.10102402082508e-06f;
  p = x2 * p + -5.69250639462346e-05f;
  p = x2 * p + -7.34990630326855e-04f;
  p = x2 * p + -2.95459980854025e-03f;
  p = x2 * p + -1.60960333262415e-02f;
  p = x * p;
  float q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
  q = x2 * q + -1.68282697438203e-03f;
  q = x2 * q + -7.37332916720468e-03f;
  q = x2 * q + -1.42647390514189e-02f;
  return p / q;
}

}  // namespace carve::fast_math
