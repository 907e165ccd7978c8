#include "passes/byoc/partition_report_rows.h"

#include <algorithm>
#include <cctype>

#include "fmt/format.h"

namespace carve {
namespace {

// A reason split at its numbers: "static cost 92 below the minimum 4096"
// is {"static cost ", " below the minimum ", ""} and {"92", "4096"}. A
// number is a run of digits that is not part of a name (conv2d, %12).
struct NumberedText {
  std::vector<std::string> text;     // one more than numbers
  std::vector<std::string> numbers;
};

NumberedText SplitNumbers(const std::string& s) {
  NumberedText out{{""}, {}};
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    bool number = j > i && (i == 0 || (!is_name(s[i - 1]) && s[i - 1] != '%' && s[i - 1] != '.')) &&
                  (j == s.size() || (!is_name(s[j])));
    if (!number) {
      out.text.back() += s.substr(i, std::max<size_t>(j - i, 1));
      i = std::max(j, i + 1);
      continue;
    }
    out.numbers.push_back(s.substr(i, j - i));
    out.text.push_back("");
    i = j;
  }
  return out;
}

}  // namespace

std::vector<HostRow> MergeByNumbers(const std::map<std::pair<std::string, std::string>, int>& rows) {
  std::vector<HostRow> out;
  // (op, reason with its numbers masked) -> the rows, in the map's order.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<NumberedText, int>>> groups;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& [key, n] : rows) {
    NumberedText t = SplitNumbers(key.second);
    std::string masked = fmt::format("{}", fmt::join(t.text, "#"));
    auto& g = groups[{key.first, masked}];
    if (g.empty()) order.push_back({key.first, masked});
    g.push_back({std::move(t), n});
  }
  for (const auto& key : order) {
    const auto& g = groups[key];
    // The slot whose value differs between the rows: merged only when it is
    // the one.
    int slot = -1, differing = 0;
    for (size_t k = 0; k < g[0].first.numbers.size(); ++k) {
      for (const auto& row : g) {
        if (row.first.numbers[k] == g[0].first.numbers[k]) continue;
        slot = static_cast<int>(k);
        ++differing;
        break;
      }
    }
    if (g.size() == 1 || differing != 1) {
      for (const auto& [t, n] : g) {
        std::string reason = t.text[0];
        for (size_t k = 0; k < t.numbers.size(); ++k) reason += t.numbers[k] + t.text[k + 1];
        out.push_back({key.first, n, reason});
      }
      continue;
    }
    std::vector<std::pair<std::string, int>> values;
    int total = 0;
    for (const auto& [t, n] : g) {
      values.push_back({t.numbers[slot], n});
      total += n;
    }
    std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
      return a.first.size() != b.first.size() ? a.first.size() < b.first.size() : a < b;
    });
    std::string list;
    for (size_t v = 0; v < values.size(); ++v) {
      list += v == 0 ? "" : v + 1 == values.size() ? " or " : ", ";
      list += values[v].first;
      if (values[v].second > 1) list += fmt::format(" (x{})", values[v].second);
    }
    const NumberedText& t = g[0].first;
    std::string reason = t.text[0];
    for (size_t k = 0; k < t.numbers.size(); ++k) {
      reason += (static_cast<int>(k) == slot ? list : t.numbers[k]) + t.text[k + 1];
    }
    out.push_back({key.first, total, reason});
  }
  return out;
}

}  // namespace carve
