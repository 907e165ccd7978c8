#include "tools/repl/commands.h"

#include "fmt/format.h"
#include "support/edit_distance.h"

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

namespace {

// A word of a command line and where it was typed.
struct Word {
  std::string text;
  size_t begin = 0, end = 0;  // bytes of `text` in the line, quotes included
  bool quoted = false;        // any part of it was quoted
};

std::vector<Word> SplitWords(std::string_view text) {
  std::vector<Word> words;
  Word cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        cur.text.push_back(c);
      }
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (in_word) {
        cur.end = i;
        words.push_back(std::move(cur));
      }
      cur = Word{};
      in_word = false;
      continue;
    }
    if (!in_word) cur.begin = i;
    in_word = true;
    if (c == '\'' || c == '"') {
      quote = c;
      cur.quoted = true;
    } else {
      cur.text.push_back(c);
    }
  }
  if (in_word) {
    cur.end = text.size();
    words.push_back(std::move(cur));
  }
  return words;
}

}  // namespace

absl::StatusOr<PathAndOptions> SplitPathAndOptions(std::string_view text,
                                                   const std::vector<PathCommandOption>& known,
                                                   std::string_view usage) {
  PathAndOptions out;
  std::vector<Word> words = SplitWords(text);
  std::vector<const Word*> path_words;
  bool path_closed = false;  // an option came after the path's first word
  for (size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    if (!w.quoted && w.text.starts_with('-') && w.text != "-") {
      const PathCommandOption* option = nullptr;
      for (const PathCommandOption& k : known) {
        if (w.text == k.name || (k.takes_value && w.text.starts_with(k.name) &&
                                 w.text.size() > k.name.size() && w.text[k.name.size()] == '=')) {
          option = &k;
        }
      }
      if (option == nullptr) {
        return absl::InvalidArgumentError(
            fmt::format("unknown option '{}' (expected: {})", w.text, usage));
      }
      out.options.push_back(w.text);
      if (option->takes_value && w.text == option->name) {
        if (i + 1 == words.size()) {
          return absl::InvalidArgumentError(
              fmt::format("option '{}' needs a value (expected: {})", w.text, usage));
        }
        out.options.push_back(words[++i].text);
      }
      path_closed = !path_words.empty();
      continue;
    }
    if (path_closed) {
      return absl::InvalidArgumentError(fmt::format("expected one file: {}", usage));
    }
    path_words.push_back(&w);
  }
  if (path_words.size() == 1) {
    out.path = path_words[0]->text;
  } else if (path_words.size() > 1) {
    for (const Word* w : path_words) {
      if (w->quoted) {
        return absl::InvalidArgumentError(fmt::format(
            "expected one file: {} (quote the whole path, or none of it)", usage));
      }
    }
    out.path = std::string(
        text.substr(path_words.front()->begin, path_words.back()->end - path_words.front()->begin));
  }
  return out;
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
