#include "tools/cli/unknown_name.h"

#include "fmt/format.h"
#include "support/edit_distance.h"

namespace carve::cli {

std::string UnknownNameMessage(std::string_view what, std::string_view name, std::string_view kind,
                               std::span<const std::string> known, std::string_view shown) {
  constexpr size_t kShown = 24;
  std::string list;
  for (size_t i = 0; i < known.size() && i < kShown; ++i) list += (i ? ", " : "") + known[i];
  if (known.size() > kShown) list += fmt::format(", ... ({} in all)", known.size());
  if (known.empty()) list = "none";
  std::string nearest = NearestName(name, known);
  std::string hint = nearest.empty() ? "" : fmt::format("did you mean '{}'?; ", nearest);
  return fmt::format("{} '{}' names no {} ({}known: {})", what, shown.empty() ? name : shown, kind,
                     hint, list);
}

std::vector<std::string> ParamNames(const Function& fn) {
  std::vector<std::string> names;
  for (const Var* p : fn.params()) names.emplace_back(p->name());
  return names;
}

}  // namespace carve::cli
