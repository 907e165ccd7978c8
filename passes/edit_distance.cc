#include "passes/edit_distance.h"

#include <algorithm>
#include <vector>

namespace carve {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string NearestName(std::string_view name, std::span<const std::string> candidates) {
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(name, c);
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  if (best == nullptr || best_distance > std::max<size_t>(2, name.size() / 3)) return "";
  return *best;
}

}  // namespace carve
