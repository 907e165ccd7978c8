// Source files and spans. Every IR node carries a Span (file id and byte
// range); line and column are computed only when a message is printed.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace carve {

// A byte range in a registered source file. file == 0 means "no location".
struct Span {
  uint32_t file = 0;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != 0; }
  // The smallest span covering both (when in the same file).
  Span Merge(const Span& other) const;
};

struct LineCol {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in bytes
};

// One source text with a lazily built line table.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }
  LineCol Resolve(uint32_t offset) const;
  // The text of the 1-based line, without its newline.
  std::string_view Line(uint32_t line) const;

 private:
  void BuildLineTable() const;
  std::string name_;
  std::string text_;
  mutable std::once_flag lines_once_;
  mutable std::vector<uint32_t> line_starts_;
};

// Process-wide registry of source texts, so that a Span can be rendered from
// anywhere (including from a Status that travelled up the stack).
class SourceManager {
 public:
  static SourceManager& Global();
  // Registers a text and returns its file id (>= 1).
  uint32_t Add(std::string name, std::string text);
  // nullptr for id 0 or unknown ids.
  const SourceFile* Get(uint32_t id) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<SourceFile>> files_;
};

}  // namespace carve
