#include "tools/cli/backend_names.h"

#include <algorithm>

#include "backends/specs.h"
#include "fmt/format.h"
#include "passes/byoc/target.h"
#include "support/edit_distance.h"
#include "tools/cli/args.h"

namespace carve::cli {

std::vector<std::string> UserBackendNames() {
  std::vector<std::string> names;
  for (std::string_view name : BuiltinBackendNames()) names.emplace_back(name);
  const TargetRegistry& registry = TargetRegistry::Global();
  for (const std::string& name : registry.Names()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

absl::Status CheckBackendNames(std::string_view list) {
  const std::vector<std::string> known = UserBackendNames();
  const std::string known_text = fmt::format("{}", fmt::join(known, ", "));
  std::vector<std::string> seen;
  for (const std::string& name : SplitNameList(list)) {
    if (name.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("'{}' has an empty backend name (known: {})", list, known_text));
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      return absl::InvalidArgumentError(
          fmt::format("backend '{}' is named twice in '{}'", name, list));
    }
    seen.push_back(name);
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string near = NearestName(name, known);
    return absl::InvalidArgumentError(fmt::format(
        "unknown backend '{}' ({}known: {})", name,
        near.empty() ? "" : fmt::format("did you mean '{}'?; ", near), known_text));
  }
  return absl::OkStatus();
}

}  // namespace carve::cli
