#include "tools/repl/commands.h"

#include "fmt/format.h"
#include "passes/edit_distance.h"

namespace carve::repl {

const std::vector<ReplCommand>& ReplCommands() {
  static const std::vector<ReplCommand> commands = [] {
    std::vector<ReplCommand> all;
    AddPassCommands(all);
    AddHistoryCommands(all);
    AddQueryCommands(all);
    AddSessionCommands(all);
    return all;
  }();
  return commands;
}

const ReplCommand* FindReplCommand(std::string_view name) {
  for (const ReplCommand& c : ReplCommands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> SplitArgs(std::string_view text) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        cur.push_back(c);
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else {
      cur.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(cur));
  return words;
}

absl::Status RunCommandLine(Session& session, std::string_view line) {
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string_view::npos) return absl::OkStatus();
  line = line.substr(b);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  size_t space = line.find_first_of(" \t");
  std::string_view name = line.substr(0, space);
  std::string_view args;
  if (space != std::string_view::npos) {
    args = line.substr(space);
    args.remove_prefix(args.find_first_not_of(" \t"));
  }
  const ReplCommand* cmd = FindReplCommand(name);
  if (cmd == nullptr) {
    std::vector<std::string> names;
    for (const ReplCommand& c : ReplCommands()) names.push_back(c.name);
    std::string hint = NearestName(name, names);
    return absl::InvalidArgumentError(fmt::format(
        "unknown command '{}' ({})", name,
        hint.empty() ? "`help` lists the commands" : fmt::format("did you mean '{}'?", hint)));
  }
  return cmd->run(session, args);
}

}  // namespace carve::repl
