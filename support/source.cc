#include "support/source.h"
#include "support/source_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace carve {

namespace {

absl::Status CannotRead(const std::string& path, int error) {
  return absl::NotFoundError(fmt::format("cannot read '{}': {}", path, std::strerror(error)));
}

// Closes a descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// Opens `path` for reading and describes it in `st`; a directory is an error
// here (reading one fails only later, and less clearly).
// A device read to its end never ends (/dev/zero, /dev/urandom: the heap
// grows until the machine runs out) or is not text (a disk). A terminal
// (/dev/stdin at a prompt, ended by Ctrl-D) and /dev/null (empty) are read.
bool EndlessDevice(int fd, const struct stat& st) {
  if (S_ISBLK(st.st_mode)) return true;
  if (!S_ISCHR(st.st_mode) || ::isatty(fd)) return false;
  constexpr unsigned kMemoryDevices = 1, kNull = 3;  // Linux: /dev/null is 1:3
  return !(major(st.st_rdev) == kMemoryDevices && minor(st.st_rdev) == kNull);
}

absl::StatusOr<int> OpenForReading(const std::string& path, struct stat* st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return CannotRead(path, errno);
  int error = ::fstat(fd, st) != 0 ? errno : S_ISDIR(st->st_mode) ? EISDIR : 0;
  if (error != 0) {
    ::close(fd);
    return CannotRead(path, error);
  }
  if (EndlessDevice(fd, *st)) {
    ::close(fd);
    return absl::InvalidArgumentError(
        fmt::format("cannot read '{}': a device, not a file (read to its end, it may never end)",
                    path));
  }
  return fd;
}

// One read(2) into `buffer`: the count, 0 at the end, -1 on an error
// (retrying when a signal interrupted it).
ssize_t ReadSome(int fd, char* buffer, size_t size) {
  for (;;) {
    ssize_t n = ::read(fd, buffer, size);
    if (n >= 0 || errno != EINTR) return n;
  }
}

// Reads the rest of `fd` into `text`: the first `expected` bytes straight
// into one buffer of that size, then whatever follows in chunks to the end.
bool ReadToEnd(int fd, size_t expected, std::string& text) {
  text.resize(expected);
  size_t got = 0;
  while (got < expected) {
    ssize_t n = ReadSome(fd, text.data() + got, expected - got);
    if (n < 0) return false;
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  if (got < expected) return true;  // the end came early
  char chunk[64 << 10];
  for (;;) {
    ssize_t n = ReadSome(fd, chunk, sizeof(chunk));
    if (n <= 0) return n == 0;
    text.append(chunk, static_cast<size_t>(n));
  }
}

// The mapped texts alive now (start address -> size), for
// ReleaseSourcePages: only their pages may be dropped.
struct MappedTexts {
  std::mutex mu;
  std::map<uintptr_t, size_t> ranges;
};

MappedTexts& Mapped() {
  static MappedTexts* mapped = new MappedTexts();
  return *mapped;
}

}  // namespace

void ReleaseSourcePages(std::string_view bytes) {
  if (bytes.empty()) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(bytes.data());
  const uintptr_t end = begin + bytes.size();
  MappedTexts& mapped = Mapped();
  // Held while advising, so that the text cannot be unmapped meanwhile.
  std::lock_guard<std::mutex> lock(mapped.mu);
  auto it = mapped.ranges.upper_bound(begin);
  if (it == mapped.ranges.begin()) return;
  --it;
  const uintptr_t base = it->first, limit = base + it->second;
  if (end > limit) return;
  // Only whole pages inside `bytes`: the bytes around them may be in use.
  // The mapping's start is page aligned; its last page may be partial (the
  // rest of that page is no part of the file).
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = end == limit ? (end + page - 1) / page * page : end / page * page;
  if (last > first) {
    // A private read-only mapping of a file never written to: its pages
    // are the file's, MADV_DONTNEED unmaps them and a later read maps them
    // again. (On anonymous or written pages it would zero them; never here.)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  }
}

SourceText::SourceText(SourceText&& other) noexcept
    : owned_(std::move(other.owned_)),
      mapped_(std::exchange(other.mapped_, nullptr)),
      mapped_size_(std::exchange(other.mapped_size_, 0)) {}

SourceText& SourceText::operator=(SourceText&& other) noexcept {
  if (this != &other) {
    Unmap();
    owned_ = std::move(other.owned_);
    mapped_ = std::exchange(other.mapped_, nullptr);
    mapped_size_ = std::exchange(other.mapped_size_, 0);
  }
  return *this;
}

SourceText::~SourceText() { Unmap(); }

void SourceText::Unmap() {
  if (mapped_ != nullptr) {
    std::lock_guard<std::mutex> lock(Mapped().mu);
    Mapped().ranges.erase(reinterpret_cast<uintptr_t>(mapped_));
    ::munmap(const_cast<char*>(mapped_), mapped_size_);
  }
  mapped_ = nullptr;
  mapped_size_ = 0;
}

absl::StatusOr<SourceText> SourceText::FromFile(const std::string& path) {
  struct stat st;
  absl::StatusOr<int> fd = OpenForReading(path, &st);
  if (!fd.ok()) return fd.status();
  FdCloser closer{*fd};
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    // The mapping outlives the descriptor. Pages are mapped as they are
    // read (a fault per 64 KiB fault-around block; 7 MB: ~110 faults more
    // than MAP_POPULATE, same time), not all at once: the metadata reader
    // drops the text of the tensors it has decoded (ReleaseSourcePages), and with
    // MAP_POPULATE the whole text would be resident at once alongside the
    // weights (the peak RSS of `carve run` on a model with its weights).
    size_t size = static_cast<size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, *fd, 0);
    if (p != MAP_FAILED) {
      SourceText text;
      text.mapped_ = static_cast<const char*>(p);
      text.mapped_size_ = size;
      std::lock_guard<std::mutex> lock(Mapped().mu);
      Mapped().ranges[reinterpret_cast<uintptr_t>(p)] = size;
      return text;
    }
  }
  absl::StatusOr<std::string> text = ReadStream(*fd, path);
  if (!text.ok()) return text.status();
  return SourceText(*std::move(text));
}

absl::StatusOr<std::string> SourceText::ReadFile(const std::string& path) {
  struct stat st;
  absl::StatusOr<int> fd = OpenForReading(path, &st);
  if (!fd.ok()) return fd.status();
  FdCloser closer{*fd};
  return ReadStream(*fd, path);
}

absl::StatusOr<std::string> SourceText::ReadStream(int fd, const std::string& path) {
  std::string text;
  // A regular file is read into one buffer of its size (a growing buffer
  // would hold about twice the text at its peak); whatever the size missed
  // (a file that grew) and every other kind of stream (a pipe, whose size
  // cannot be queried) are read in chunks to the end.
  struct stat st;
  size_t expected = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at >= 0 && at < st.st_size) expected = static_cast<size_t>(st.st_size - at);
  }
  if (!ReadToEnd(fd, expected, text)) return absl::DataLossError(fmt::format("error reading '{}'", path));
  return text;
}

Span Span::Merge(const Span& other) const {
  if (!valid()) return other;
  if (!other.valid() || other.file != file) return *this;
  return Span{file, std::min(begin, other.begin), std::max(end, other.end)};
}

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {}

SourceFile::SourceFile(std::string name, SourceText text)
    : name_(std::move(name)), text_(std::move(text)) {}

void SourceFile::BuildLineTable() const {
  std::call_once(lines_once_, [this] {
    line_starts_.push_back(0);
    std::string_view text = text_.view();
    for (uint32_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') line_starts_.push_back(i + 1);
    }
  });
}

namespace {

// A text may start with the UTF-8 byte order mark, which the lexers skip:
// it is not part of line 1 (its columns and the line shown in a message
// start after it, as an editor shows them).
uint32_t BomSize(std::string_view text) {
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  return text.starts_with(kUtf8Bom) ? static_cast<uint32_t>(kUtf8Bom.size()) : 0;
}

}  // namespace

LineCol SourceFile::Resolve(uint32_t offset) const {
  BuildLineTable();
  offset = std::min<uint32_t>(offset, text().size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  uint32_t begin = line_starts_[line - 1];
  if (line == 1) begin = std::min<uint32_t>(BomSize(text()), offset);
  return LineCol{line, offset - begin + 1};
}

std::string_view SourceFile::Line(uint32_t line) const {
  BuildLineTable();
  if (line == 0 || line > line_starts_.size()) return {};
  std::string_view text = text_.view();
  uint32_t begin = line == 1 ? BomSize(text) : line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] : text.size();
  std::string_view s(text.data() + begin, end - begin);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

SourceManager& SourceManager::Global() {
  static SourceManager* manager = new SourceManager();
  return *manager;
}

uint32_t SourceManager::Add(std::string name, std::string text) {
  return Add(std::move(name), SourceText(std::move(text)));
}

uint32_t SourceManager::Add(std::string name, SourceText text) {
  auto file = std::make_unique<SourceFile>(std::move(name), std::move(text));
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t id = next_id_++;
  files_.emplace(id, std::move(file));
  return id;
}

const SourceFile* SourceManager::Get(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(id);
  return it == files_.end() ? nullptr : it->second.get();
}

size_t SourceManager::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return files_.size();
}

SourceManager::Scope::Scope(SourceManager& manager) : manager_(manager) {
  std::lock_guard<std::mutex> lock(manager_.mu_);
  first_ = manager_.next_id_;
}

// What a Scope drops is everything registered since it began, whoever
// registered it: a process-wide cache that parses lazily (a backend's spec,
// backends/specs.cc) must be filled before the first scope, or its spans
// render without a location later (never with another text's: ids are not
// reused). fuzz/byoc_fuzz.cc warms the backends up for that reason.
SourceManager::Scope::~Scope() {
  // The texts are freed outside the lock: unmapping or freeing a large text
  // need not block other threads' lookups.
  std::map<uint32_t, std::unique_ptr<SourceFile>> dropped;
  {
    std::lock_guard<std::mutex> lock(manager_.mu_);
    auto first = manager_.files_.lower_bound(first_);
    while (first != manager_.files_.end()) {
      dropped.insert(manager_.files_.extract(first++));
    }
  }
}

}  // namespace carve
