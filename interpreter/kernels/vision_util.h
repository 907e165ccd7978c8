// Helpers the vision kernels share: topi's box overlap and the stable
// descending argsort TVM's CPU sort gives (python/tvm/topi/vision at
// v0.16.0, src/runtime/contrib/sort/sort.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "interpreter/kernels/kernel_util.h"

namespace carve::vision_kernels {

// topi's IoU of two boxes given as 4 corner values each (either corner
// order: the min and max of values 0/2 and 1/3 are taken), in float32; 0
// when the union is not positive.
inline float BoxOverlap(const float* a, const float* b) {
  const float a_l = std::min(a[0], a[2]), a_t = std::min(a[1], a[3]);
  const float a_r = std::max(a[0], a[2]), a_b = std::max(a[1], a[3]);
  const float b_l = std::min(b[0], b[2]), b_t = std::min(b[1], b[3]);
  const float b_r = std::max(b[0], b[2]), b_b = std::max(b[1], b[3]);
  const float w = std::max(0.0f, std::min(a_r, b_r) - std::max(a_l, b_l));
  const float h = std::max(0.0f, std::min(a_b, b_b) - std::max(a_t, b_t));
  const float area = h * w;
  const float u = (a_r - a_l) * (a_b - a_t) + (b_r - b_l) * (b_b - b_t) - area;
  return u <= 0.0f ? 0.0f : area / u;
}

// The positions 0..n-1 of `score(i)` in descending order; equal scores keep
// the lower position first (std::stable_sort, as TVM's argsort).
template <typename Score>
std::vector<int32_t> ArgsortDescending(int64_t n, Score score) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return score(a) > score(b); });
  return order;
}

// The numbers of list attribute `key` (sizes, ratios, variances) as
// float32, TVM's FloatImm type for them; `fallback` when absent.
inline std::vector<float> AttrFloatList(const KernelContext& ctx, std::string_view key,
                                        std::vector<float> fallback) {
  const AttrValue* v = ctx.attrs == nullptr ? nullptr : ctx.attrs->Find(key);
  if (v == nullptr || v->kind() != AttrValue::Kind::kArray) return fallback;
  std::vector<float> out;
  for (const AttrValue& item : v->as_array()) out.push_back(float(item.as_float()));
  return out;
}

}  // namespace carve::vision_kernels
