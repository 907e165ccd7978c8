#include "tools/cli/viz_style.h"

#include <algorithm>
#include <set>

namespace carve::viz {
namespace {

// ColorBrewer Set2-like fills and their pale shades.
constexpr const char* kFill[] = {"#66c2a5", "#fc8d62", "#8da0cb", "#e78ac3",
                                 "#a6d854", "#ffd92f", "#e5c494", "#b3b3b3"};
constexpr const char* kLight[] = {"#e0f3ed", "#fee6dc", "#e3e8f3", "#f9e2ef",
                                  "#edf7dc", "#fff7d5", "#f9f1e6", "#f0f0f0"};
constexpr int kColours = 8;

}  // namespace

Palette::Palette(const Graph& g) : targets_(g.targets) {
  std::set<std::string> extra;
  for (const Cluster& c : g.clusters) extra.insert(c.target);
  for (const Node& n : g.nodes) extra.insert(n.target);
  for (const std::string& t : extra) {
    if (!t.empty() && std::find(targets_.begin(), targets_.end(), t) == targets_.end()) {
      targets_.push_back(t);
    }
  }
}

int Palette::Index(const std::string& target) const {
  auto it = std::find(targets_.begin(), targets_.end(), target);
  return static_cast<int>(it - targets_.begin()) % kColours;
}

std::string Palette::Fill(const std::string& target) const {
  return target.empty() ? "#eeeeee" : kFill[Index(target)];
}

std::string Palette::Light(const std::string& target) const {
  return target.empty() ? "#ffffff" : kLight[Index(target)];
}

}  // namespace carve::viz
