#include "tools/cli/args.h"

#include <algorithm>
#include <string_view>

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

// What an option's value is, by the option's name: a name means the same
// thing in every command, so the table is kept here once rather than in
// every command's options.
enum class ValueKind {
  kText,
  kNameList,   // NAME[,NAME...]: every item a name, none empty
  kNameSet,    // kNameList, or "" for the empty set (`--disabled-pass ''`: disable nothing)
  kFile,       // a file to read; `-` is standard input
  kNamedFile,  // NAME=FILE, FILE as kFile
};

ValueKind KindOf(std::string_view option) {
  for (std::string_view list : {"--backend", "--compare", "--bind", "--check-prefix"}) {
    if (option == list) return ValueKind::kNameList;
  }
  if (option == "--disabled-pass") return ValueKind::kNameSet;
  for (std::string_view file : {"--patterns", "--replay", "--script"}) {
    if (option == file) return ValueKind::kFile;
  }
  return option == "--input" ? ValueKind::kNamedFile : ValueKind::kText;
}

// An empty value (`--out ''`, `--stderr-contains ''`, a variable that
// expanded to nothing) was read as "not given" or as a condition that always
// holds. `--backend dnnl,` or `--bind ,`: an empty item is a typo (a name
// lost in editing); skipping it would run with a list the user did not write.
// A name given twice (`--compare dnnl,dnnl`, or again in a repeated option's
// `earlier` values) would run or bind it once: a list the user did not write
// either.
absl::Status CheckValue(const std::string& option, const std::string& value,
                        const std::vector<std::string>& earlier) {
  const ValueKind kind = KindOf(option);
  if (value.empty()) {
    if (kind == ValueKind::kNameSet) return absl::OkStatus();
    return absl::InvalidArgumentError(fmt::format("option '{}' has an empty value", option));
  }
  if (kind != ValueKind::kNameList && kind != ValueKind::kNameSet) return absl::OkStatus();
  std::vector<std::string> seen;
  for (const std::string& e : earlier) {
    for (std::string& name : SplitNameList(e)) seen.push_back(std::move(name));
  }
  for (std::string& name : SplitNameList(value)) {
    if (name.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("option '{}': empty name in '{}' (NAME[,NAME...])", option, value));
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      return absl::InvalidArgumentError(
          fmt::format("option '{}': '{}' is named twice", option, name));
    }
    seen.push_back(std::move(name));
  }
  return absl::OkStatus();
}

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

std::vector<std::string> SplitNameList(std::string_view list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = std::min(list.find(',', start), list.size());
    names.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

int StdinUses(const ParsedArgs& args) {
  int uses = std::count(args.positional().begin(), args.positional().end(), "-");
  for (const std::string& name : args.Given()) {
    const ValueKind kind = KindOf(name);
    for (const std::string& value : args.GetAll(name)) {
      if (kind == ValueKind::kFile && value == "-") ++uses;
      if (kind == ValueKind::kNamedFile && value.ends_with("=-")) ++uses;
    }
  }
  return uses;
}

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
    // An option that is not repeatable given twice (`-o a.relay -o b.relay`,
    // `--threads 2 --threads 3`) is ambiguous: one of them would be ignored.
    // Given twice alike it is a slip (an edited command line, a variable
    // expanded twice), so it is an error too: one rule, no "last one wins".
    if (!spec->repeated && !slot.empty()) {
      if (!spec->takes_value && !spec->optional_value) {
        return absl::InvalidArgumentError(fmt::format("option '{}' given twice", spec->name));
      }
      return absl::InvalidArgumentError(fmt::format("option '{}' given twice ('{}' and '{}')",
                                                    spec->name, slot.front(), value.value_or("")));
    }
    if (spec->takes_value) {
      if (absl::Status ok = CheckValue(spec->name, *value, slot); !ok.ok()) return ok;
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
    // Only these may be given more than once (ParseArgs).
    if (s.repeated) where += " (repeatable)";
    out += fmt::format("  {:<28} {}{}\n", lhs, s.help, where);
  }
  return out;
}

}  // namespace carve::cli
