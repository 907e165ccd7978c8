#include "passes/pass_gate.h"

#include <algorithm>

#include "fmt/format.h"

namespace carve {

int RegisteredOptLevel(std::string_view name, const PassRegistry& registry) {
  const PassInfo* info = registry.Find(name);
  return info == nullptr ? 0 : info->opt_level;
}

bool PassEnabled(const PassGate& gate, std::string_view name, const PassRegistry& registry) {
  if (std::find(gate.disabled.begin(), gate.disabled.end(), name) != gate.disabled.end()) {
    return false;
  }
  return RegisteredOptLevel(name, registry) <= gate.opt_level;
}

PassPtr GatePipeline(const PassPtr& pipeline, const PassGate& gate,
                     const PassRegistry& registry) {
  std::vector<PassPtr> members = SequenceMembers(*pipeline);
  if (members.empty()) members.push_back(pipeline);
  std::vector<PassPtr> kept;
  for (const PassPtr& member : members) {
    if (PassEnabled(gate, member->name(), registry)) kept.push_back(member);
  }
  return MakeSequential(pipeline->name(), std::move(kept));
}

absl::StatusOr<int> ParseOptLevel(std::string_view text) {
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '4') return text[0] - '0';
  return absl::InvalidArgumentError(
      fmt::format("--opt-level expects 0, 1, 2, 3 or 4 (TVM's levels), got '{}'", text));
}

absl::StatusOr<std::vector<std::string>> ParseDisabledPasses(std::string_view text,
                                                             const PassRegistry& registry) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string name(text.substr(start, comma - start));
    start = comma + 1;
    if (name.empty()) continue;
    if (registry.Find(name) == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "--disabled-pass: unknown pass '{}' (carve opt --list-passes lists them)", name));
    }
    names.push_back(std::move(name));
  }
  return names;
}

std::string DescribeGate(const PassGate& gate) {
  std::string disabled;
  for (const std::string& name : gate.disabled) {
    disabled += (disabled.empty() ? "" : ",") + name;
  }
  return fmt::format("opt_level={}, disabled_pass=[{}]", gate.opt_level, disabled);
}

}  // namespace carve
