#include "tools/repl/repro.h"

#include "fmt/format.h"
#include "grammar/printer.h"
#include "tools/repl/commands.h"

namespace carve::repl {
namespace {

constexpr std::string_view kHeader =
    "// carve repl reproduction: replay with `carve opt --replay FILE` or `carve repl FILE`\n";
constexpr std::string_view kReplay = "// replay: ";

bool Replayable(std::string_view command) {
  for (std::string_view name : {"patterns ", "pass ", "partition ", "goto "}) {
    if (command.starts_with(name)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> ReplayCommands(const Session& session) {
  std::vector<std::string> commands;
  for (const std::string& file : session.pattern_files()) {
    commands.push_back(fmt::format("patterns {}", file));
  }
  const History& h = session.history();
  size_t replayed = 0;  // the step the commands so far end at
  int last_id = h.at(0).command_id;
  for (size_t i = 1; i <= h.current(); ++i) {
    if (h.at(i).command_id == last_id) continue;
    last_id = h.at(i).command_id;
    commands.push_back(h.at(i).command);
    // The command made every step that carries its id.
    replayed = i;
    while (replayed + 1 < h.size() && h.at(replayed + 1).command_id == last_id) ++replayed;
  }
  if (replayed != h.current()) commands.push_back(fmt::format("goto {}", h.current()));
  return commands;
}

std::string ReproText(Session& session) {
  std::string out(kHeader);
  for (const std::string& c : ReplayCommands(session)) out += fmt::format("{}{}\n", kReplay, c);
  PrintOptions options;
  options.meta_attrs = session.history().at(0).module.meta_compiler_attrs();
  return out + PrintModule(session.history().at(0).module, options);
}

std::vector<std::string> ReadReplayHeader(std::string_view text) {
  std::vector<std::string> commands;
  while (text.starts_with("//")) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (line.starts_with(kReplay)) commands.emplace_back(line.substr(kReplay.size()));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return commands;
}

absl::Status Replay(Session& session, const std::vector<std::string>& commands,
                    const std::string& file) {
  for (const std::string& command : commands) {
    absl::Status s = Replayable(command)
                         ? RunCommandLine(session, command)
                         : absl::InvalidArgumentError("not a command a reproduction replays");
    if (!s.ok()) {
      return absl::Status(
          s.code(), fmt::format("{}: replaying '{}': {}", file, command, std::string(s.message())));
    }
  }
  return absl::OkStatus();
}

}  // namespace carve::repl
