#include "support/source.h"

#include <algorithm>

namespace carve {

Span Span::Merge(const Span& other) const {
  if (!valid()) return other;
  if (!other.valid() || other.file != file) return *this;
  return Span{file, std::min(begin, other.begin), std::max(end, other.end)};
}

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {}

void SourceFile::BuildLineTable() const {
  std::call_once(lines_once_, [this] {
    line_starts_.push_back(0);
    for (uint32_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
    }
  });
}

LineCol SourceFile::Resolve(uint32_t offset) const {
  BuildLineTable();
  offset = std::min<uint32_t>(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  return LineCol{line, offset - line_starts_[line - 1] + 1};
}

std::string_view SourceFile::Line(uint32_t line) const {
  BuildLineTable();
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] : text_.size();
  std::string_view s(text_.data() + begin, end - begin);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

SourceManager& SourceManager::Global() {
  static SourceManager* manager = new SourceManager();
  return *manager;
}

uint32_t SourceManager::Add(std::string name, std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  files_.push_back(std::make_unique<SourceFile>(std::move(name), std::move(text)));
  return static_cast<uint32_t>(files_.size());
}

const SourceFile* SourceManager::Get(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (id == 0 || id > files_.size()) return nullptr;
  return files_[id - 1].get();
}

}  // namespace carve
