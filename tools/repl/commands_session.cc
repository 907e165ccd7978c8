// Session commands: set, help, quit.
#include <charconv>

#include "fmt/format.h"
#include "tools/repl/commands.h"

namespace carve::repl {
namespace {

absl::StatusOr<bool> OnOff(std::string_view setting, std::string_view value) {
  if (value == "on") return true;
  if (value == "off") return false;
  return absl::InvalidArgumentError(
      fmt::format("set {} expects on or off, got '{}'", setting, value));
}

absl::Status Set(Session& s, std::string_view args) {
  std::vector<std::string> words = SplitArgs(args);
  if (words.size() != 2) {
    return absl::InvalidArgumentError(
        "expected: set types on|off, set timing on|off or set diff-context N");
  }
  const std::string& key = words[0];
  const std::string& value = words[1];
  if (key == "types" || key == "timing") {
    absl::StatusOr<bool> on = OnOff(key, value);
    if (!on.ok()) return on.status();
    (key == "types" ? s.show_types : s.show_timing) = *on;
    return absl::OkStatus();
  }
  if (key == "diff-context") {
    int n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n < 0) {
      return absl::InvalidArgumentError(
          fmt::format("set diff-context expects a number of lines, got '{}'", value));
    }
    s.diff_context = n;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      fmt::format("unknown setting '{}' (settings: types, timing, diff-context)", key));
}

absl::Status Help(Session& s, std::string_view args) {
  if (args.empty()) {
    std::string out = "commands:\n";
    for (const ReplCommand& c : ReplCommands()) {
      out += fmt::format("  {:<38} {}\n", c.usage, c.summary);
    }
    out += "\n`help COMMAND` says more. Lines starting with # or // are comments.\n";
    s.out() << out;
    return absl::OkStatus();
  }
  const ReplCommand* c = FindReplCommand(args);
  if (c == nullptr) {
    return absl::InvalidArgumentError(fmt::format("no command '{}' (`help` lists them)", args));
  }
  s.out() << fmt::format("usage: {}\n\n{}\n{}{}", c->usage, c->summary, c->help.empty() ? "" : "\n",
                         c->help);
  return absl::OkStatus();
}

absl::Status Quit(Session& s, std::string_view args) {
  if (!args.empty()) return absl::InvalidArgumentError("quit takes no arguments");
  s.quit_requested = true;
  return absl::OkStatus();
}

}  // namespace

void AddSessionCommands(std::vector<ReplCommand>& commands) {
  commands.push_back({"set", "set types|timing|diff-context VALUE", "printing options",
                      "types: print `/* ty=... */` comments (print, diff)\n"
                      "timing: show pass times (pass lines, steps); off for golden scripts\n"
                      "diff-context: lines of context around each diff hunk (default 3)\n",
                      ArgKind::kSetting, Set});
  commands.push_back({"help", "help [COMMAND]", "list the commands, or describe one", "",
                      ArgKind::kCommand, Help});
  commands.push_back({"quit", "quit", "leave the REPL (also Ctrl-D)", "", ArgKind::kNone, Quit});
}

}  // namespace carve::repl
