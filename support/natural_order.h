// Natural order of names that carry numbers: "main_2" before "main_10", as
// a reader expects from a list of partitions (tvmgen_default_dnnl_main_0,
// _1, _2, ..., _105) rather than text order (_0, _1, _105, _2).
#pragma once

#include <cstddef>
#include <string_view>

namespace carve {

// Strict weak order: runs of decimal digits compare by value (then, equal
// in value, the run with fewer leading zeros first), other characters by
// their byte values; a total order, so sorting by it is deterministic.
inline bool NaturalLess(std::string_view a, std::string_view b) {
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (!is_digit(a[i]) || !is_digit(b[j])) {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i, ++j;
      continue;
    }
    size_t ai = i, bj = j;
    while (i < a.size() && is_digit(a[i])) ++i;
    while (j < b.size() && is_digit(b[j])) ++j;
    std::string_view x = a.substr(ai, i - ai), y = b.substr(bj, j - bj);
    size_t xz = x.find_first_not_of('0'), yz = y.find_first_not_of('0');
    std::string_view xv = xz == x.npos ? "" : x.substr(xz), yv = yz == y.npos ? "" : y.substr(yz);
    if (xv.size() != yv.size()) return xv.size() < yv.size();
    if (xv != yv) return xv < yv;
    if (x.size() != y.size()) return x.size() < y.size();
  }
  return a.size() - i < b.size() - j;
}

}  // namespace carve
