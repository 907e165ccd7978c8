// Source files and spans. Every IR node carries a Span (file id and byte
// range); line and column are computed only when a message is printed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

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

// The bytes of a source text: an owned string, or a read-only private
// mapping of a regular file. Mapping a large input costs no heap and no
// copy: its pages come from the page cache as they are read. The text is
// not NUL-terminated (a mapping whose size is a multiple of the page size
// has no byte after it), so readers must stay within view().
//
// As with any mapped input, a file truncated by another process while it is
// mapped makes later reads of the lost pages fault (SIGBUS).
class SourceText {
 public:
  SourceText() = default;
  explicit SourceText(std::string text) : owned_(std::move(text)) {}
  SourceText(SourceText&& other) noexcept;
  SourceText& operator=(SourceText&& other) noexcept;
  SourceText(const SourceText&) = delete;
  SourceText& operator=(const SourceText&) = delete;
  ~SourceText();

  // The file at `path`: mapped when it is a non-empty regular file, else (a
  // pipe, a character device, an empty file, or when mapping fails) read as
  // a stream to its end. Errors: NotFound "cannot read 'path': reason" when
  // it cannot be opened or is a directory, DataLoss on a read error.
  static absl::StatusOr<SourceText> FromFile(const std::string& path);
  // The file at `path` read into a string (never mapped), with the errors
  // of FromFile.
  static absl::StatusOr<std::string> ReadFile(const std::string& path);
  // Reads the rest of the open descriptor `fd` as a stream (no size query,
  // so pipes work); `path` names it in errors.
  static absl::StatusOr<std::string> ReadStream(int fd, const std::string& path);

  std::string_view view() const {
    return mapped_ != nullptr ? std::string_view(mapped_, mapped_size_) : std::string_view(owned_);
  }
  bool mapped() const { return mapped_ != nullptr; }

 private:
  void Unmap();
  std::string owned_;
  const char* mapped_ = nullptr;
  size_t mapped_size_ = 0;
};

// One source text with a lazily built line table.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  SourceFile(std::string name, SourceText text);
  const std::string& name() const { return name_; }
  std::string_view text() const { return text_.view(); }
  LineCol Resolve(uint32_t offset) const;
  // The text of the 1-based line, without its newline.
  std::string_view Line(uint32_t line) const;

 private:
  void BuildLineTable() const;
  std::string name_;
  SourceText text_;
  mutable std::once_flag lines_once_;
  mutable std::vector<uint32_t> line_starts_;
};

// Process-wide registry of source texts, so that a Span can be rendered from
// anywhere (including from a Status that travelled up the stack). A text is
// kept for the life of the process unless a Scope drops it.
class SourceManager {
 public:
  static SourceManager& Global();
  // Registers a text and returns its file id (>= 1). Ids are never reused.
  uint32_t Add(std::string name, std::string text);
  uint32_t Add(std::string name, SourceText text);
  // nullptr for id 0, unknown ids and dropped texts.
  const SourceFile* Get(uint32_t id) const;
  // How many texts are registered now.
  size_t size() const;

  // Drops, when it ends, every text registered while it lived: for a
  // process that handles many independent inputs one after another (a fuzz
  // target), whose memory then stays flat. Nothing that refers to those
  // texts may outlive the scope: parsed modules hold views into them (a
  // variable's name, a span). Meant for one parsing thread: texts that
  // other threads register meanwhile are dropped too. Scopes nest.
  class Scope {
   public:
    explicit Scope(SourceManager& manager = Global());
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    SourceManager& manager_;
    uint32_t first_;  // the id the first text of this scope gets
  };

 private:
  mutable std::mutex mu_;
  // By id. A map rather than a vector indexed by id so that dropped texts
  // leave no slot behind.
  std::map<uint32_t, std::unique_ptr<SourceFile>> files_;
  uint32_t next_id_ = 1;
};

}  // namespace carve
