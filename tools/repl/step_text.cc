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

uint32_t StepText::IdOf(std::string_view name, bool add) const {
  // `%N`: 2N, so the ids of a module's N bindings are dense.
  uint64_t n = 0;
  bool numeric = name.size() > 1 && name.size() < 10;
  for (size_t i = 1; numeric && i < name.size(); ++i) {
    numeric = name[i] >= '0' && name[i] <= '9';
    n = n * 10 + uint64_t(name[i] - '0');
  }
  if (numeric) return uint32_t(2 * n);
  auto it = other_names_.find(name);
  if (it != other_names_.end()) return it->second;
  if (!add) return kNoName;
  uint32_t id = uint32_t(2 * other_names_.size() + 1);
  other_names_.emplace(name, id);
  return id;
}

uint32_t StepText::NameId(std::string_view name) const {
  Lines();
  uint32_t id = IdOf(name, false);
  return id < binding_.size() ? id : kNoName;
}

size_t StepText::BindingLine(uint32_t id) const {
  Lines();
  if (id >= binding_.size() || binding_[id] == UINT32_MAX) return SIZE_MAX;
  return binding_[id];
}

std::span<const uint32_t> StepText::Readers(uint32_t id) const {
  Lines();
  if (id + 1 >= reader_offsets_.size()) return {};
  return std::span<const uint32_t>(readers_).subspan(reader_offsets_[id],
                                                     reader_offsets_[id + 1] - reader_offsets_[id]);
}

void StepText::BuildIndex() const {
  indexed_ = true;
  lines_.resize(num_lines());
  uint32_t max_id = 0;
  std::vector<uint32_t> open;  // lines of `... {` bindings whose `}` is pending
  for (size_t i = 0; i < num_lines(); ++i) {
    std::string_view line = Line(i);
    LineInfo& info = lines_[i];
    info.end = uint32_t(i + 1);
    size_t indent = Indent(line);
    // A line starting with `}` at the indent of an open binding closes it.
    if (!open.empty() && Trimmed(line).starts_with('}') && !Trimmed(line).starts_with("} else") &&
        Indent(Line(open.back())) == indent) {
      lines_[open.back()].end = uint32_t(i + 1);
      open.pop_back();
    }
    info.binds = BoundName(Trimmed(line));
    size_t skip = indent + (line.substr(indent).starts_with("let ") ? 4 : 0);
    if (!info.binds.empty()) {
      info.binds_id = IdOf(info.binds, true);
      max_id = std::max(max_id, info.binds_id);
      // `%5 = fn (...) {` binds through its closing `};` at the same indent.
      if (line.ends_with('{')) open.push_back(uint32_t(i));
    }
    info.reads_begin = uint32_t(reads_.size());
    for (size_t p = line.find('%'); p != std::string_view::npos; p = line.find('%', p + 1)) {
      std::string_view name = NameAt(line.substr(p));
      if (name.empty() || (p == skip && name == info.binds)) continue;
      uint32_t id = IdOf(name, true);
      max_id = std::max(max_id, id);
      reads_.push_back(id);
    }
    info.reads_end = uint32_t(reads_.size());
  }
  binding_.assign(size_t(max_id) + 1, UINT32_MAX);
  reader_offsets_.assign(size_t(max_id) + 2, 0);
  for (size_t i = 0; i < lines_.size(); ++i) {
    const LineInfo& info = lines_[i];
    if (info.binds_id != kNoName && binding_[info.binds_id] == UINT32_MAX) {
      binding_[info.binds_id] = uint32_t(i);
    }
    // Each line counts once per name it reads (a name read twice on a line
    // is adjacent or not; duplicates are dropped when filling).
    for (uint32_t k = info.reads_begin; k < info.reads_end; ++k) ++reader_offsets_[reads_[k] + 1];
  }
  for (size_t id = 1; id < reader_offsets_.size(); ++id) {
    reader_offsets_[id] += reader_offsets_[id - 1];
  }
  readers_.assign(reads_.size(), 0);
  std::vector<uint32_t> fill(reader_offsets_.begin(), reader_offsets_.end() - 1);
  for (size_t i = 0; i < lines_.size(); ++i) {
    for (uint32_t k = lines_[i].reads_begin; k < lines_[i].reads_end; ++k) {
      readers_[fill[reads_[k]]++] = uint32_t(i);
    }
  }
}

absl::StatusOr<std::string> Neighbourhood(const StepText& text, std::string_view name, int depth) {
  const auto& lines = text.Lines();
  const auto& reads = text.ReadIds();
  uint32_t id = text.NameId(name);
  size_t def = id == StepText::kNoName ? SIZE_MAX : text.BindingLine(id);
  if (id == StepText::kNoName || (def == SIZE_MAX && text.Readers(id).empty())) {
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
      for (uint32_t k = lines[l].reads_begin; k < lines[l].reads_end; ++k) {
        size_t b = text.BindingLine(reads[k]);
        if (b != SIZE_MAX && shown.insert(b).second) next.push_back(b);
      }
    }
    frontier = std::move(next);
  }
  std::vector<uint32_t> names = {id};
  for (int d = 0; d < depth && !names.empty(); ++d) {
    std::vector<uint32_t> next;
    for (uint32_t n : names) {
      for (uint32_t l : text.Readers(n)) {
        // A reader inside the binding's own extent (a composite's body
        // reading its parameters) is part of it, not a consumer.
        if (def != SIZE_MAX && l > def && l < lines[def].end) continue;
        if (shown.insert(l).second && lines[l].binds_id != StepText::kNoName) {
          next.push_back(lines[l].binds_id);
        }
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
