#include "support/edit_distance.h"

#include <algorithm>
#include <vector>

namespace carve {

// Built without libFuzzer's coverage callbacks (scripts/fuzz.sh builds with
// clang): every unknown name a fuzzer invents is compared with each of
// hundreds of op names, and the callbacks on the table's comparisons were a
// third of fuzz_relay's time while telling the fuzzer nothing about the
// input's structure (docs/fuzzing.md, session 19). Still ASan/UBSan-checked.
#if defined(__clang__)
#define CARVE_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define CARVE_NO_COVERAGE
#endif

CARVE_NO_COVERAGE size_t EditDistance(std::string_view a, std::string_view b, size_t limit) {
  // The length difference bounds the distance from below.
  size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (gap > limit) return limit + 1;
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    size_t row_min = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
      row_min = std::min(row_min, cur[j]);
    }
    // Every later row is at least this row's minimum.
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], limit + 1);
}

std::string NearestName(std::string_view name, std::span<const std::string> candidates) {
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  const std::string* best = nullptr;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    if (best_distance == 0) break;
    size_t d = EditDistance(name, c, best_distance - 1);
    if (d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  return best == nullptr ? "" : *best;
}

}  // namespace carve
