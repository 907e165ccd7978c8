#include "backends/json/composite_body.h"

#include <cstdlib>

#include "fmt/format.h"

namespace carve {
namespace {

absl::Status Bad(const JsonNode& node, const std::string& entry, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("composite '{}': body entry '{}' {}", node.name, entry, why));
}

}  // namespace

absl::StatusOr<std::vector<BodyEntry>> ParseCompositeBody(const JsonNode& node) {
  const std::vector<std::string>* body = node.FindAttr("body");
  if (body == nullptr || body->empty()) {
    return absl::InvalidArgumentError(fmt::format("composite '{}' has no body attribute", node.name));
  }
  std::vector<BodyEntry> entries;
  for (const std::string& text : *body) {
    size_t open = text.find('(');
    if (open == std::string::npos || open == 0 || text.back() != ')') {
      return Bad(node, text, "is not HEAD(ARGS)");
    }
    BodyEntry entry;
    entry.head = text.substr(0, open);
    std::string args = text.substr(open + 1, text.size() - open - 2);
    size_t pos = 0;
    while (pos < args.size()) {
      size_t comma = args.find(',', pos);
      if (comma == std::string::npos) comma = args.size();
      std::string ref = args.substr(pos, comma - pos);
      pos = comma + 1;
      if (ref.size() < 2 || (ref[0] != 'i' && ref[0] != '#')) return Bad(node, text, "has a bad reference");
      char* end = nullptr;
      unsigned long index = std::strtoul(ref.c_str() + 1, &end, 10);
      if (*end != '\0') return Bad(node, text, "has a bad reference");
      BodyRef r{ref[0] == 'i', index};
      if (r.is_input ? index >= node.inputs.size() : index >= entries.size()) {
        return Bad(node, text, fmt::format("refers to missing {}", ref));
      }
      entry.args.push_back(r);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace carve
