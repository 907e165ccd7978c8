#include "tools/cli/args.h"

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
    } else if (value.has_value()) {
      return absl::InvalidArgumentError(fmt::format("option '{}' takes no value", name));
    }
    auto& slot = out.values_[spec->name];
    if (!spec->repeated) slot.clear();
    slot.push_back(value.value_or(""));
  }
  return out;
}

std::string FormatOptions(const std::vector<OptionSpec>& specs) {
  std::string out;
  for (const OptionSpec& s : specs) {
    std::string lhs = s.name;
    if (!s.alias.empty()) lhs = s.alias + ", " + lhs;
    if (s.takes_value) lhs += " VALUE";
    out += fmt::format("  {:<28} {}\n", lhs, s.help);
  }
  return out;
}

}  // namespace carve::cli
