#include "tools/cli/args.h"

#include <algorithm>

#include "fmt/format.h"

namespace carve::cli {

std::optional<std::string> ParsedArgs::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::string ParsedArgs::GetOr(const std::string& name, const std::string& fallback) const {
  return Get(name).value_or(fallback);
}

std::vector<std::string> ParsedArgs::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> ParsedArgs::Given() const {
  std::vector<std::string> out;
  for (const auto& [name, values] : values_) out.push_back(name);
  return out;
}

namespace {

bool AppliesIn(const OptionSpec& spec, const std::string& mode) {
  return spec.modes.empty() ||
         std::find(spec.modes.begin(), spec.modes.end(), mode) != spec.modes.end();
}

// "--a or --b": the selectors of the modes `spec` applies in (or, with
// `applies` false, of those it does not), skipping the default mode's.
std::string Selectors(const OptionSpec& spec, const std::vector<CommandMode>& modes,
                      bool applies) {
  std::string out;
  for (const CommandMode& m : modes) {
    if (m.selector.empty() || AppliesIn(spec, m.name) != applies) continue;
    out += (out.empty() ? "" : " or ") + m.selector;
  }
  return out;
}

bool AppliesInDefault(const OptionSpec& spec, const std::vector<CommandMode>& modes) {
  for (const CommandMode& m : modes) {
    if (m.selector.empty()) return AppliesIn(spec, m.name);
  }
  return false;
}

}  // namespace

std::string SelectedMode(const ParsedArgs& args, const std::vector<CommandMode>& modes) {
  for (const CommandMode& m : modes) {
    if (!m.selector.empty() && args.Has(m.selector)) return m.name;
  }
  for (const CommandMode& m : modes) {
    if (m.selector.empty()) return m.name;
  }
  return "";
}

absl::Status CheckOptionsApply(const ParsedArgs& args, const std::vector<OptionSpec>& specs,
                               const std::vector<CommandMode>& modes) {
  if (modes.empty()) return absl::OkStatus();
  const std::string mode = SelectedMode(args, modes);
  const CommandMode* selected = nullptr;
  for (const CommandMode& m : modes) {
    if (m.name == mode) selected = &m;
  }
  for (const std::string& name : args.Given()) {
    for (const OptionSpec& spec : specs) {
      if (spec.name != name || AppliesIn(spec, mode)) continue;
      if (selected != nullptr && !selected->selector.empty()) {
        return absl::InvalidArgumentError(
            fmt::format("option '{}' does not apply with {}", name, selected->selector));
      }
      return absl::InvalidArgumentError(
          fmt::format("option '{}' applies only with {}", name, Selectors(spec, modes, true)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<OptionSpec>& specs) {
  ParsedArgs out;
  auto find = [&](const std::string& name) -> const OptionSpec* {
    for (const OptionSpec& s : specs) {
      if (s.name == name || (!s.alias.empty() && s.alias == name)) return &s;
    }
    return nullptr;
  };
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_done || a == "-" || a.empty() || a[0] != '-') {
      out.positional_.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    std::string name = a;
    std::optional<std::string> value;
    size_t eq = a.find('=');
    if (a.starts_with("--") && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
    }
    const OptionSpec* spec = find(name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(fmt::format("unknown option '{}'", name));
    }
    if (spec->takes_value) {
      if (!value.has_value()) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(fmt::format("option '{}' needs a value", name));
        }
        value = args[++i];
      }
    } else if (value.has_value() && !spec->optional_value) {
      return absl::InvalidArgumentError(fmt::format("option '{}' takes no value", name));
    }
    auto& slot = out.values_[spec->name];
    // An option that takes one value given twice with different values
    // (`-o a.relay -o b.relay`) is ambiguous: one of them would be ignored.
    if (!spec->repeated && !slot.empty()) {
      if (slot.front() == value.value_or("")) continue;
      return absl::InvalidArgumentError(fmt::format("option '{}' given twice ('{}' and '{}')",
                                                    spec->name, slot.front(), value.value_or("")));
    }
    slot.push_back(value.value_or(""));
  }
  return out;
}

std::string FormatOptions(const std::vector<OptionSpec>& specs,
                          const std::vector<CommandMode>& modes) {
  std::string out;
  for (const OptionSpec& s : specs) {
    std::string lhs = s.name;
    if (!s.alias.empty()) lhs = s.alias + ", " + lhs;
    if (s.takes_value) lhs += " VALUE";
    if (s.optional_value) lhs += "[=VALUE]";
    std::string where;
    if (!s.modes.empty() && !modes.empty()) {
      where = AppliesInDefault(s, modes) ? fmt::format(" (not with {})", Selectors(s, modes, false))
                                         : fmt::format(" (only with {})", Selectors(s, modes, true));
    }
    out += fmt::format("  {:<28} {}{}\n", lhs, s.help, where);
  }
  return out;
}

}  // namespace carve::cli
