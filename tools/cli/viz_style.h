// Colours of `carve viz`: one per target, in the order the backends were
// given (targets found only in the module follow, sorted), grey for the host.
#pragma once

#include <string>
#include <vector>

#include "tools/cli/viz_graph.h"

namespace carve::viz {

class Palette {
 public:
  explicit Palette(const Graph& g);
  // Node fill colour of `target` ("" = host).
  std::string Fill(const std::string& target) const;
  // The paler shade used for region backgrounds.
  std::string Light(const std::string& target) const;
  // Targets in colour order, for legends.
  const std::vector<std::string>& targets() const { return targets_; }

 private:
  int Index(const std::string& target) const;
  std::vector<std::string> targets_;
};

}  // namespace carve::viz
