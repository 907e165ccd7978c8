#include "tools/repl/step_text.h"

#include <algorithm>
#include <set>

#include "fmt/format.h"

namespace carve::repl {
namespace {

bool IsNameChar(char c) {
  return !(c == ' ' || c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == ':' ||
           c == ';' || c == '{' || c == '}' || c == '=' || c == '\n' || c == '"' || c == '/' ||
           c == '*');
}

std::string_view Trimmed(std::string_view line) {
  size_t b = line.find_first_not_of(' ');
  return b == std::string_view::npos ? std::string_view() : line.substr(b);
}

size_t Indent(std::string_view line) {
  size_t b = line.find_first_not_of(' ');
  return b == std::string_view::npos ? line.size() : b;
}

// `%name` at the start of `s` (s[0] == '%'), or "".
std::string_view NameAt(std::string_view s) {
  size_t n = 1;
  while (n < s.size() && IsNameChar(s[n])) ++n;
  return n > 1 ? s.substr(0, n) : std::string_view();
}

// The name a line binds: `%5 = ...` or `let %x... = ...`.
std::string_view BoundName(std::string_view trimmed) {
  if (trimmed.starts_with("let ")) trimmed.remove_prefix(4);
  if (!trimmed.starts_with('%')) return {};
  std::string_view name = NameAt(trimmed);
  std::string_view rest = trimmed.substr(name.size());
  if (rest.starts_with(" = ") || rest.starts_with(": ")) return name;
  return {};
}

}  // namespace

std::string_view StepText::Line(size_t i) const {
  size_t b = line_starts[i];
  size_t e = i + 1 < line_starts.size() ? line_starts[i + 1] - 1 : text.size();
  if (e > b && text[e - 1] == '\n') --e;
  return std::string_view(text).substr(b, e - b);
}

const StepText::Block* StepText::FindBlock(std::string_view name) const {
  for (const Block& b : blocks) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

const StepText::Block* StepText::BlockOf(size_t i) const {
  for (const Block& b : blocks) {
    if (i >= b.first && i < b.end) return &b;
  }
  return nullptr;
}

std::shared_ptr<StepText> MakeStepText(const Module& mod, const PrintOptions& options) {
  auto t = std::make_shared<StepText>();
  t->text = PrintModule(mod, options);
  std::string_view text = t->text;
  for (size_t pos = 0; pos < text.size();) {
    t->line_starts.push_back(pos);
    size_t nl = text.find('\n', pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  StepText::Block* open = nullptr;
  for (size_t i = 0; i < t->num_lines(); ++i) {
    std::string_view line = t->Line(i);
    if (line.starts_with("def @")) {
      size_t paren = line.find('(');
      t->blocks.push_back({std::string(line.substr(4, paren - 4)), i, i + 1});
      open = &t->blocks.back();
    } else if (line.starts_with("#[metadata]")) {
      t->blocks.push_back({"#[metadata]", i, t->num_lines()});
      break;
    } else if (open != nullptr) {
      open->end = i + 1;
      if (line == "}") open = nullptr;
    }
  }
  return t;
}

const std::vector<StepText::LineInfo>& StepText::Lines() const {
  if (!indexed_) BuildIndex();
  return lines_;
}

size_t StepText::BindingLine(std::string_view name) const {
  Lines();
  auto it = binding_.find(name);
  return it == binding_.end() ? SIZE_MAX : it->second;
}

const std::vector<uint32_t>& StepText::Readers(std::string_view name) const {
  static const std::vector<uint32_t> kNone;
  Lines();
  auto it = readers_.find(name);
  return it == readers_.end() ? kNone : it->second;
}

void StepText::BuildIndex() const {
  indexed_ = true;
  lines_.resize(num_lines());
  for (size_t i = 0; i < num_lines(); ++i) {
    std::string_view line = Line(i);
    LineInfo& info = lines_[i];
    info.end = i + 1;
    info.binds = BoundName(Trimmed(line));
    if (!info.binds.empty()) {
      binding_.try_emplace(info.binds, i);
      // `%5 = fn (...) {` binds through its closing `};` at the same indent.
      if (line.ends_with('{')) {
        size_t indent = Indent(line);
        for (size_t j = i + 1; j < num_lines(); ++j) {
          std::string_view l = Line(j);
          if (Indent(l) == indent && Trimmed(l).starts_with('}')) {
            info.end = j + 1;
            break;
          }
        }
      }
    }
    size_t skip = line.size() - Trimmed(line).size() + (line.find("let ") == Indent(line) ? 4 : 0);
    for (size_t p = line.find('%'); p != std::string_view::npos; p = line.find('%', p + 1)) {
      std::string_view name = NameAt(line.substr(p));
      if (name.empty() || (p == skip && name == info.binds)) continue;
      info.reads.push_back(name);
      std::vector<uint32_t>& readers = readers_[name];
      if (readers.empty() || readers.back() != i) readers.push_back(uint32_t(i));
    }
  }
}

absl::StatusOr<std::string> Neighbourhood(const StepText& text, std::string_view name, int depth) {
  const auto& lines = text.Lines();
  size_t def = text.BindingLine(name);
  if (def == SIZE_MAX && text.Readers(name).empty()) {
    return absl::NotFoundError(fmt::format("no node named '{}' in this step", name));
  }
  // Lines shown: the binding, producers (bindings of what a shown producer
  // reads) and consumers (lines reading what a shown consumer binds).
  std::set<size_t> shown;
  if (def != SIZE_MAX) shown.insert(def);
  std::vector<size_t> frontier = {def};
  for (int d = 0; d < depth && def != SIZE_MAX; ++d) {
    std::vector<size_t> next;
    for (size_t l : frontier) {
      for (std::string_view r : lines[l].reads) {
        size_t b = text.BindingLine(r);
        if (b != SIZE_MAX && shown.insert(b).second) next.push_back(b);
      }
    }
    frontier = std::move(next);
  }
  std::vector<std::string_view> names = {name};
  for (int d = 0; d < depth && !names.empty(); ++d) {
    std::vector<std::string_view> next;
    for (std::string_view n : names) {
      for (uint32_t l : text.Readers(n)) {
        // A reader inside the binding's own extent (a composite's body
        // reading its parameters) is part of it, not a consumer.
        if (l > def && def != SIZE_MAX && l < lines[def].end) continue;
        if (shown.insert(l).second && !lines[l].binds.empty()) next.push_back(lines[l].binds);
      }
    }
    names = std::move(next);
  }
  // Lines in text order; a binding spanning lines prints whole when short.
  constexpr size_t kLongBinding = 8;
  std::string out;
  size_t next_line = SIZE_MAX;
  for (size_t l : shown) {
    if (l < next_line && next_line != SIZE_MAX) continue;  // inside a shown extent
    if (next_line != SIZE_MAX && l != next_line) out += "  ...\n";
    size_t end = lines[l].end;
    if (end - l > kLongBinding) {
      out += fmt::format("{}\n  ...\n{}\n", text.Line(l), text.Line(end - 1));
    } else {
      for (size_t i = l; i < end; ++i) out += fmt::format("{}\n", text.Line(i));
    }
    next_line = end;
  }
  return out;
}

}  // namespace carve::repl
