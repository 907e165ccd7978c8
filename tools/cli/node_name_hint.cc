#include "tools/cli/node_name_hint.h"

#include <vector>

namespace carve::cli {

std::string SuggestNodeName(std::string_view at,
                            const std::function<bool(const std::string&)>& exists) {
  if (at.empty()) return "";
  std::vector<std::string> candidates;
  if (at[0] == '%' || at[0] == '@') {
    // The other sigil: `%main` for `@main`, `@3` for `%3`.
    std::string_view rest = at.substr(1);
    if (!rest.empty()) candidates.push_back(std::string(at[0] == '%' ? "@" : "%") + std::string(rest));
  } else {
    // No sigil: a shell user often leaves it out (`--at 3`).
    candidates.push_back("%" + std::string(at));
    candidates.push_back("@" + std::string(at));
  }
  for (const std::string& c : candidates) {
    if (exists(c)) return c;
  }
  return "";
}

}  // namespace carve::cli
