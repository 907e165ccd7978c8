#include "tools/repl/completion.h"

#include <algorithm>
#include <filesystem>

#include "fmt/format.h"
#include "ir/op.h"
#include "passes/pass_registry.h"
#include "passes/byoc/target.h"
#include "tools/cli/backend_names.h"
#include "tools/repl/commands.h"

namespace carve::repl {
namespace {

void AddIf(std::vector<Candidate>& out, std::string_view prefix, std::string text,
           std::string display = "") {
  if (!std::string_view(text).starts_with(prefix)) return;
  if (display.empty()) display = text;
  out.push_back({std::move(text), std::move(display)});
}

void Finish(std::vector<Candidate>& c) {
  std::sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
    return a.text != b.text ? a.text < b.text : a.display < b.display;
  });
  c.erase(std::unique(c.begin(), c.end(),
                      [](const Candidate& a, const Candidate& b) { return a.text == b.text; }),
          c.end());
}

void Commands(std::vector<Candidate>& out, std::string_view prefix) {
  for (const ReplCommand& c : ReplCommands()) AddIf(out, prefix, c.name, c.usage);
}

void Passes(std::vector<Candidate>& out, std::string_view prefix) {
  for (const PassInfo* info : PassRegistry::Global().All()) {
    AddIf(out, prefix, info->name, SignatureText(*info));
  }
}

// The backends `partition`, `compare` and `report` take (tools/cli/backend_names.h).
void Backends(std::vector<Candidate>& out, std::string_view prefix) {
  for (const std::string& name : cli::UserBackendNames()) AddIf(out, prefix, name);
}

// The targets a pass argument may name (`MergeComposite(byoc_target)`): the
// registry's, which include targets that are not backends.
void Targets(std::vector<Candidate>& out, std::string_view prefix) {
  Backends(out, prefix);
  for (const std::string& name : TargetRegistry::Global().Names()) AddIf(out, prefix, name);
}

void Ops(std::vector<Candidate>& out, std::string_view prefix) {
  for (const OpInfo* op : AllOps()) AddIf(out, prefix, std::string(op->name));
}

void PatternNames(Session& s, std::vector<Candidate>& out, std::string_view prefix) {
  for (const auto& lib : s.libraries()) {
    for (const NamedPattern& p : lib->patterns()) AddIf(out, prefix, p.name);
    for (const RuleSpec& r : lib->rules()) AddIf(out, prefix, r.name);
    for (const BackendSpec& b : lib->backends()) {
      for (const NamedPattern& c : b.composites) AddIf(out, prefix, c.name);
    }
  }
}

// `@function` and `%name` of the current step.
void NodeNamesOf(Session& s, std::vector<Candidate>& out, std::string_view prefix) {
  if (s.history().empty()) return;
  const Module& mod = s.history().Current().module;
  if (prefix.starts_with('@')) {
    for (const auto& [gv, fn] : mod.Functions()) AddIf(out, prefix, fmt::format("@{}", gv->name()));
    return;
  }
  const StepText& text = s.Text(s.history().current());
  for (const StepText::LineInfo& line : text.Lines()) {
    if (!line.binds.empty()) AddIf(out, prefix, std::string(line.binds));
  }
}

void Steps(Session& s, std::vector<Candidate>& out, std::string_view prefix) {
  for (size_t i = 0; i < s.history().size(); ++i) AddIf(out, prefix, std::to_string(i));
}

void Files(std::vector<Candidate>& out, std::string_view word) {
  namespace fs = std::filesystem;
  size_t slash = word.rfind('/');
  std::string dir = slash == std::string_view::npos ? "" : std::string(word.substr(0, slash + 1));
  std::string_view base = slash == std::string_view::npos ? word : word.substr(slash + 1);
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!std::string_view(name).starts_with(base)) continue;
    if (name.starts_with('.') && !base.starts_with('.')) continue;
    bool is_dir = it->is_directory(ec);
    AddIf(out, word, dir + name + (is_dir ? "/" : ""), name + (is_dir ? "/" : ""));
  }
}

// Where the word under completion starts: after the last of `separators`.
size_t WordStart(std::string_view line, std::string_view separators) {
  size_t p = line.find_last_of(separators);
  return p == std::string_view::npos ? 0 : p + 1;
}

void CompletePipeline(std::vector<Candidate>& out, std::string_view args, std::string_view word) {
  // Inside an argument list the words are targets (pattern tables).
  int depth = 0;
  for (char c : args) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
  if (depth > 0) {
    Targets(out, word);
  } else {
    Passes(out, word);
  }
}

// A pattern argument: a node name where the word starts like one, else a
// pattern, rule or composite name or an op.
void PatternArg(Session& s, std::vector<Candidate>& out, std::string_view word) {
  if (word.starts_with('%') || word.starts_with('@')) {
    NodeNamesOf(s, out, word);
    return;
  }
  PatternNames(s, out, word);
  Ops(out, word);
}

// `set NAME VALUE`: the settings, then on/off for those that take it.
void SettingArg(std::vector<Candidate>& out, std::string_view word, std::string_view args,
                bool first_arg) {
  if (first_arg) {
    for (const char* k : {"types", "timing", "diff-context"}) AddIf(out, word, k);
  } else if (!args.starts_with("diff-context")) {
    for (const char* v : {"on", "off"}) AddIf(out, word, v);
  }
}

// A file argument, or one of the command's options.
void FileArg(const ReplCommand& cmd, std::vector<Candidate>& out, std::string_view word) {
  if (!word.starts_with('-')) {
    Files(out, word);
    return;
  }
  for (const char* o : {"--repro", "--input", "--seed"}) {
    if (cmd.usage.find(o) != std::string::npos) AddIf(out, word, o);
  }
}

// Adds the candidates for the word being typed in `cmd`'s arguments `args`
// (the rest of `line`); returns where that word starts in `line`.
size_t CompleteArgs(Session& s, const ReplCommand& cmd, std::string_view line,
                    std::string_view args, std::vector<Candidate>& out) {
  bool first_arg = args.find_first_of(" \t") == std::string_view::npos;
  size_t start = 0;
  switch (cmd.args) {
    case ArgKind::kPipeline:
      start = WordStart(line, " \t,(=[");
      CompletePipeline(out, args, line.substr(start));
      break;
    case ArgKind::kBackends:
      start = WordStart(line, " \t,");
      Backends(out, line.substr(start));
      break;
    case ArgKind::kPattern:
      start = WordStart(line, " \t(,");
      PatternArg(s, out, line.substr(start));
      break;
    case ArgKind::kNode:
      start = WordStart(line, " \t");
      if (first_arg) NodeNamesOf(s, out, line.substr(start));
      break;
    case ArgKind::kStep:
      start = WordStart(line, " \t");
      Steps(s, out, line.substr(start));
      break;
    case ArgKind::kCommand:
      start = WordStart(line, " \t");
      if (first_arg) Commands(out, line.substr(start));
      break;
    case ArgKind::kSetting:
      start = WordStart(line, " \t");
      SettingArg(out, line.substr(start), args, first_arg);
      break;
    case ArgKind::kFile:
      start = WordStart(line, " \t=");
      FileArg(cmd, out, line.substr(start));
      break;
    case ArgKind::kNone:
      break;
  }
  return start;
}

}  // namespace

std::string CommonPrefix(const std::vector<Candidate>& candidates) {
  if (candidates.empty()) return "";
  std::string prefix = candidates[0].text;
  for (const Candidate& c : candidates) {
    size_t n = 0;
    while (n < prefix.size() && n < c.text.size() && prefix[n] == c.text[n]) ++n;
    prefix.resize(n);
  }
  return prefix;
}

Completion Complete(Session& s, std::string_view line) {
  Completion result;
  size_t lead = line.find_first_not_of(" \t");
  if (lead == std::string_view::npos) lead = line.size();
  size_t space = line.find_first_of(" \t", lead);
  if (space == std::string_view::npos) {
    result.start = lead;
    Commands(result.candidates, line.substr(lead));
    Finish(result.candidates);
    return result;
  }
  std::string_view name = line.substr(lead, space - lead);
  const ReplCommand* cmd = FindReplCommand(name);
  if (cmd == nullptr) return result;
  result.start = CompleteArgs(s, *cmd, line, line.substr(space + 1), result.candidates);
  Finish(result.candidates);
  return result;
}

}  // namespace carve::repl
