// Commands that look at and move in the history: steps, undo, redo, goto,
// print, diff.
#include <algorithm>
#include <charconv>
#include <set>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "grammar/metadata.h"
#include "support/status_macros.h"
#include "tools/repl/commands.h"
#include "tools/repl/diff.h"

namespace carve::repl {
namespace {

absl::StatusOr<size_t> StepNumber(std::string_view text) {
  size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return absl::InvalidArgumentError(fmt::format("expected a step number, got '{}'", text));
  }
  return n;
}

absl::Status NoArgs(std::string_view args, std::string_view name) {
  if (args.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format("{} takes no arguments", name));
}

absl::Status Steps(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(NoArgs(args, "steps"));
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  const History& h = s.history();
  // The pass column fits the names up to kMaxWidth; a longer name (a
  // backend's rewrite described in words) is printed whole on its own row
  // rather than widening every row past the terminal.
  constexpr size_t kMaxWidth = 52;
  size_t width = 4;
  for (size_t i = 0; i < h.size(); ++i) width = std::max(width, h.at(i).pass.size());
  width = std::min(width, kMaxWidth);
  std::string out;
  for (size_t i = 0; i < h.size(); ++i) {
    const Step& st = h.at(i);
    std::string line = fmt::format("{} {:>3}  {:<{}}  {:<9}  {:>3} fn  {:>8} nodes  {:>7} ops",
                                   i == h.current() ? '*' : ' ', i, st.pass, width,
                                   i == 0       ? "loaded"
                                   : st.changed ? "changed"
                                                : "unchanged",
                                   st.functions, st.nodes, st.ops);
    if (s.show_timing) {
      line += st.seconds < 1 ? fmt::format("  {:>8.1f} ms", st.seconds * 1e3)
                             : fmt::format("  {:>9.2f} s", st.seconds);
    }
    out += fmt::format("{}  {}\n", line, st.command);
  }
  s.out() << out;
  return absl::OkStatus();
}

absl::Status Moved(Session& s, absl::Status status) {
  CARVE_RETURN_IF_ERROR(status);
  s.out() << s.StepSummary(s.history().current()) << "\n";
  return absl::OkStatus();
}

absl::Status Undo(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(NoArgs(args, "undo"));
  return Moved(s, s.history().Undo());
}

absl::Status Redo(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(NoArgs(args, "redo"));
  return Moved(s, s.history().Redo());
}

absl::Status Goto(Session& s, std::string_view args) {
  std::vector<std::string> words = SplitArgs(args);
  if (words.size() != 1) return absl::InvalidArgumentError("expected a step number: goto N");
  CARVE_ASSIGN_OR_RETURN(size_t n, StepNumber(words[0]));
  return Moved(s, s.history().Goto(n));
}

absl::Status Print(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  std::vector<std::string> words = SplitArgs(args);
  const StepText& text = s.Text(s.history().current());
  const StepText::Block* meta = text.FindBlock("#[metadata]");
  if (words.empty() && meta == nullptr) {
    s.out() << text.text;
    return absl::OkStatus();
  }
  if (words.empty()) {
    // An imported model's weights fill megabytes of #[metadata] JSON: the
    // functions are what a session reads (TVM's astext(show_meta_data=False)).
    for (size_t i = 0; i < meta->first; ++i) s.out() << text.Line(i) << "\n";
    s.out() << fmt::format(
        "#[metadata] ({} lines of constants left out: `print #[metadata]` shows them, `save "
        "FILE` writes the whole module)\n",
        meta->end - meta->first);
    return absl::OkStatus();
  }
  const std::string& what = words[0];
  if ((what.starts_with('@') || what == "#[metadata]") && words.size() == 1) {
    const StepText::Block* block = text.FindBlock(what);
    if (block == nullptr) {
      return absl::NotFoundError(
          fmt::format("no function {} in step {}", what, s.history().current()));
    }
    for (size_t i = block->first; i < block->end; ++i) s.out() << text.Line(i) << "\n";
    return absl::OkStatus();
  }
  if (what.starts_with('%') && words.size() <= 2) {
    int depth = 1;
    if (words.size() == 2) {
      auto [end, ec] = std::from_chars(words[1].data(), words[1].data() + words[1].size(), depth);
      if (ec != std::errc() || end != words[1].data() + words[1].size() || depth < 0) {
        return absl::InvalidArgumentError(
            fmt::format("expected a depth (0 or more), got '{}'", words[1]));
      }
    }
    absl::StatusOr<std::string> lines = Neighbourhood(text, what, depth);
    if (!lines.ok()) {
      return absl::NotFoundError(
          fmt::format("no node named '{}' in step {}", what, s.history().current()));
    }
    s.out() << *lines;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError("expected: print [@FUNCTION | %N [DEPTH] | #[metadata]]");
}

// The lines of the block `name` of `text` (none when it has no such block).
DiffSide BlockSide(const StepText& text, const std::string& name) {
  DiffSide side;
  if (const StepText::Block* b = text.FindBlock(name)) {
    side.first_line = b->first;
    for (size_t i = b->first; i < b->end; ++i) side.lines.push_back(text.Line(i));
  }
  return side;
}

// The `#[metadata]` section as one line per object, for `diff`: TVM's
// node-graph JSON renumbers every node when one constant goes away, and
// each tensor is one base64 line of up to megabytes, so a textual diff of
// the section buries the change. A constant's line shows its dtype, shape,
// size and a hash of its bytes (a changed value is a changed line); an
// attrs object's line shows its fields.
std::vector<std::string> MetadataSummary(const StepText& text) {
  std::vector<std::string> lines;
  const StepText::Block* b = text.FindBlock("#[metadata]");
  if (b == nullptr) return lines;
  size_t begin = text.line_starts[b->first] + text.Line(b->first).size();
  absl::StatusOr<Metadata> meta = ParseMetadata(std::string_view(text.text).substr(begin));
  if (!meta.ok()) {
    lines.push_back(fmt::format("(unreadable: {})", std::string(meta.status().message())));
    return lines;
  }
  for (size_t i = 0; i < meta->constants.size(); ++i) {
    const NDArray& t = meta->constants[i];
    const auto* bytes = static_cast<const uint8_t*>(t.raw_data());
    uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (size_t k = 0; k < t.nbytes(); ++k) hash = (hash ^ bytes[k]) * 1099511628211ull;
    lines.push_back(fmt::format("meta[relay.Constant][{}]: {} ({}), {} bytes, fnv1a {:016x}", i,
                                t.dtype().ToString(), fmt::join(t.shape(), ", "), t.nbytes(),
                                hash));
  }
  for (const auto& [key, objects] : meta->attrs) {
    for (size_t i = 0; i < objects.size(); ++i) {
      std::vector<std::string> fields;
      for (const auto& [name, value] : objects[i].fields) {
        fields.push_back(fmt::format("{}={}", name, AttrValueToString(value)));
      }
      lines.push_back(fmt::format("meta[{}][{}]: {}", key, i, fmt::join(fields, ", ")));
    }
  }
  return lines;
}

DiffSide LinesSide(const std::vector<std::string>& lines) {
  DiffSide side;
  for (const std::string& line : lines) side.lines.push_back(line);
  return side;
}

std::string Colour(std::string_view hunks) {
  std::string out;
  size_t pos = 0;
  while (pos < hunks.size()) {
    size_t nl = hunks.find('\n', pos);
    std::string_view line = hunks.substr(pos, nl - pos);
    const char* colour = line.starts_with('-')   ? "\033[31m"
                         : line.starts_with('+') ? "\033[32m"
                         : line.starts_with('@') ? "\033[36m"
                                                 : nullptr;
    out += colour ? fmt::format("{}{}\033[0m\n", colour, line) : fmt::format("{}\n", line);
    pos = nl + 1;
  }
  return out;
}

absl::Status Diff(Session& s, std::string_view args) {
  CARVE_RETURN_IF_ERROR(s.RequireModule());
  const History& h = s.history();
  std::vector<std::string> words = SplitArgs(args);
  if (words.size() > 2) return absl::InvalidArgumentError("expected: diff [A] [B]");
  size_t b = h.current();
  size_t a = b == 0 ? 0 : b - 1;
  if (words.empty() && b == 0) {
    return absl::FailedPreconditionError("step 0 has no previous step: diff A [B]");
  }
  if (!words.empty()) {
    CARVE_ASSIGN_OR_RETURN(a, StepNumber(words[0]));
  }
  if (words.size() == 2) {
    CARVE_ASSIGN_OR_RETURN(b, StepNumber(words[1]));
  }
  for (size_t n : {a, b}) {
    if (n >= h.size()) {
      return absl::OutOfRangeError(
          fmt::format("no step {} (the history has steps 0-{})", n, h.size() - 1));
    }
  }
  const Module& ma = h.at(a).module;
  const Module& mb = h.at(b).module;
  // Functions are immutable: the same pointer is the same function, and
  // is left out without printing anything.
  std::set<std::string> changed;
  for (const auto& [gv, fn] : ma.Functions()) {
    if (mb.Lookup(gv->name()) != fn) changed.insert(fmt::format("@{}", gv->name()));
  }
  for (const auto& [gv, fn] : mb.Functions()) {
    if (ma.Lookup(gv->name()) != fn) changed.insert(fmt::format("@{}", gv->name()));
  }
  std::string hunks;
  if (!changed.empty()) {
    const StepText& ta = s.Text(a);
    const StepText& tb = s.Text(b);
    for (const std::string& name : changed) {
      hunks += UnifiedDiff(BlockSide(ta, name), BlockSide(tb, name), s.diff_context, "def " + name);
    }
    std::vector<std::string> meta_a = MetadataSummary(ta), meta_b = MetadataSummary(tb);
    hunks += UnifiedDiff(LinesSide(meta_a), LinesSide(meta_b), s.diff_context,
                         "#[metadata], one line per object");
  }
  if (hunks.empty()) {
    s.out() << fmt::format("no changes between step {} and step {}\n", a, b);
    return absl::OkStatus();
  }
  std::string out =
      fmt::format("--- step {}: {}\n+++ step {}: {}\n", a, h.at(a).pass, b, h.at(b).pass) + hunks;
  s.out() << (s.colour ? Colour(out) : out);
  return absl::OkStatus();
}

}  // namespace

void AddHistoryCommands(std::vector<ReplCommand>& commands) {
  commands.push_back({"steps", "steps",
                      "the history: step, pass, whether it changed the module, counts, time",
                      "`*` marks the current step. Counts are global functions, expression\n"
                      "nodes and operator calls; the last column is the command.\n",
                      ArgKind::kNone, Steps});
  commands.push_back({"print", "print [@FUNCTION | %N [DEPTH]]",
                      "the current module, one function, or the neighbourhood of %N",
                      "`print %N DEPTH` shows the lines of %N, of the nodes it reads and of\n"
                      "the nodes reading it, up to DEPTH edges away (default 1). `print`\n"
                      "leaves the #[metadata] section (the constants) out; `print #[metadata]`\n"
                      "shows it.\n",
                      ArgKind::kNode, Print});
  commands.push_back({"diff", "diff [A] [B]",
                      "unified diff of the printed modules of steps A and B",
                      "Default: the previous and the current step; `diff A` compares A with\n"
                      "the current step. Functions that did not change are left out. In the\n"
                      "#[metadata] section each object is one line: a constant's dtype, shape,\n"
                      "size and a hash of its bytes, an attrs object's fields (`print\n"
                      "#[metadata]` shows the section itself).\n",
                      ArgKind::kStep, Diff});
  commands.push_back({"undo", "undo", "go back one step", "", ArgKind::kNone, Undo});
  commands.push_back({"redo", "redo", "go forward one step after undo", "", ArgKind::kNone, Redo});
  commands.push_back({"goto", "goto N", "make step N the current step",
                      "Later steps stay in the history until a command makes a new step.\n",
                      ArgKind::kStep, Goto});
}

}  // namespace carve::repl
