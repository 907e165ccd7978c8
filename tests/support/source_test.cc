// SourceText: a text owned as a string or mapped from a file, read as a
// stream where it cannot be mapped (pipes, empty files), with the same
// errors as before for missing files and a clear one for directories.
#include "support/source.h"
#include "support/source_pages.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace carve {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/carve_source_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(SourceTextTest, OwnsAString) {
  SourceText text(std::string("abc"));
  EXPECT_FALSE(text.mapped());
  EXPECT_EQ(text.view(), "abc");
  SourceText moved(std::move(text));
  EXPECT_EQ(moved.view(), "abc");
}

TEST(SourceTextTest, MapsARegularFile) {
  std::string path = WriteTemp("regular", "line one\nline two\n");
  absl::StatusOr<SourceText> text = SourceText::FromFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_TRUE(text->mapped());
  EXPECT_EQ(text->view(), "line one\nline two\n");
  // Moving keeps the mapping (and only the new holder unmaps it).
  SourceText moved(*std::move(text));
  EXPECT_TRUE(moved.mapped());
  EXPECT_EQ(moved.view(), "line one\nline two\n");
  SourceText assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.view(), "line one\nline two\n");
  std::remove(path.c_str());
}

TEST(SourceTextTest, EmptyFileIsReadNotMapped) {
  std::string path = WriteTemp("empty", "");
  absl::StatusOr<SourceText> text = SourceText::FromFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_FALSE(text->mapped());
  EXPECT_EQ(text->view(), "");
  std::remove(path.c_str());
}

TEST(SourceTextTest, PipeIsReadAsAStream) {
  // A pipe has no size to query: it must be read to its end (this failed
  // with "Illegal seek" when the reader asked for the size first).
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string payload(300000, 'x');  // more than a pipe buffer holds
  payload += "end";
  std::thread writer([&] {
    size_t done = 0;
    while (done < payload.size()) {
      ssize_t n = ::write(fds[1], payload.data() + done, payload.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  absl::StatusOr<SourceText> text = SourceText::FromFile("/proc/self/fd/" + std::to_string(fds[0]));
  writer.join();
  ::close(fds[0]);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_FALSE(text->mapped());
  EXPECT_EQ(text->view(), payload);
}

TEST(SourceTextTest, ReadFileCopiesWithoutMapping) {
  std::string path = WriteTemp("copied", "abc\n");
  absl::StatusOr<std::string> text = SourceText::ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "abc\n");
  std::remove(path.c_str());
}

TEST(SourceTextTest, ReadStreamReadsFromTheCurrentOffset) {
  std::string path = WriteTemp("offset", "0123456789");
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::lseek(fd, 4, SEEK_SET), 4);
  absl::StatusOr<std::string> text = SourceText::ReadStream(fd, path);
  ::close(fd);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "456789");
  std::remove(path.c_str());
}

TEST(SourceTextTest, MissingFileAndDirectoryAreErrors) {
  absl::StatusOr<SourceText> missing = SourceText::FromFile("/nonexistent/carve.relay");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "cannot read '/nonexistent/carve.relay': No such file or directory");
  absl::StatusOr<std::string> dir = SourceText::ReadFile(::testing::TempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(),
            "cannot read '" + ::testing::TempDir() + "': Is a directory");
  EXPECT_FALSE(SourceText::FromFile(::testing::TempDir()).ok());
}

TEST(SourceManagerTest, ResolvesLinesOfAMappedText) {
  std::string path = WriteTemp("lines", "ab\ncd\r\nef");
  absl::StatusOr<SourceText> text = SourceText::FromFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  uint32_t id = SourceManager::Global().Add("lines.relay", *std::move(text));
  const SourceFile* file = SourceManager::Global().Get(id);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->text(), "ab\ncd\r\nef");
  LineCol lc = file->Resolve(4);
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 2u);
  EXPECT_EQ(file->Line(2), "cd");
  EXPECT_EQ(file->Line(3), "ef");
  // An offset at the very end resolves without reading past the text.
  lc = file->Resolve(9);
  EXPECT_EQ(lc.line, 3u);
  EXPECT_EQ(lc.column, 3u);
  std::remove(path.c_str());
}

// The resident KiB of the mapping that starts at `start` (/proc/self/smaps),
// or -1 when there is none.
long MappingRssKb(const void* start) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in = false;
  const uintptr_t want = reinterpret_cast<uintptr_t>(start);
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      in = lo == want;
      continue;
    }
    long kb = 0;
    if (in && std::sscanf(line.c_str(), "Rss: %ld kB", &kb) == 1) return kb;
  }
  return -1;
}

// ReleaseSourcePages drops the whole pages inside the bytes from the resident set
// and the text reads the same afterwards (the pages come back from the
// file); bytes of an owned text or of no registered text are left alone.
TEST(SourceManagerTest, ReleasePagesDropsResidentPagesAndKeepsTheText) {
  std::string content;
  for (int i = 0; content.size() < (1 << 20); ++i) content += std::to_string(i) + ",";
  std::string path = WriteTemp("release", content);
  absl::StatusOr<SourceText> text = SourceText::FromFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  uint32_t id = SourceManager::Global().Add("release.relay", *std::move(text));
  std::string_view view = SourceManager::Global().Get(id)->text();
  ASSERT_EQ(view, content);  // every page read
  const long before = MappingRssKb(view.data());
  ASSERT_GE(before, 1000);
  // Half the text, not starting on a page boundary: the pages wholly inside.
  ReleaseSourcePages(view.substr(100, view.size() / 2));
  const long half = MappingRssKb(view.data());
  EXPECT_LT(half, before - 400);
  EXPECT_GT(half, before - 600);
  ReleaseSourcePages(view);
  EXPECT_EQ(MappingRssKb(view.data()), 0);
  EXPECT_EQ(view, content);  // faulted back in from the file
  EXPECT_GE(MappingRssKb(view.data()), 1000);

  std::string owned_text = content;
  uint32_t owned = SourceManager::Global().Add("owned.relay", std::move(owned_text));
  std::string_view owned_view = SourceManager::Global().Get(owned)->text();
  ReleaseSourcePages(owned_view);
  EXPECT_EQ(owned_view, content);
  ReleaseSourcePages(content);  // not registered: nothing happens
  EXPECT_EQ(owned_view, content);
  std::remove(path.c_str());
}

// A Scope drops exactly the texts registered while it lived; ids are never
// reused, so a stale span finds no text rather than another one.
TEST(SourceManagerTest, ScopeDropsItsTextsAndNeverReusesIds) {
  SourceManager m;
  uint32_t kept = m.Add("kept.relay", std::string("kept"));
  uint32_t inner = 0, nested = 0;
  {
    SourceManager::Scope scope(m);
    inner = m.Add("inner.relay", std::string("inner"));
    {
      SourceManager::Scope nested_scope(m);
      nested = m.Add("nested.relay", std::string("nested"));
    }
    EXPECT_EQ(m.Get(nested), nullptr);
    ASSERT_NE(m.Get(inner), nullptr);
    EXPECT_EQ(m.Get(inner)->text(), "inner");
    EXPECT_EQ(m.size(), 2u);
  }
  EXPECT_EQ(m.Get(inner), nullptr);
  EXPECT_EQ(m.size(), 1u);
  ASSERT_NE(m.Get(kept), nullptr);
  EXPECT_EQ(m.Get(kept)->text(), "kept");
  uint32_t later = m.Add("later.relay", std::string("later"));
  EXPECT_GT(later, nested);
  EXPECT_EQ(m.Get(inner), nullptr);
  EXPECT_EQ(m.Get(later)->name(), "later.relay");
}

// A leading UTF-8 byte order mark is not part of line 1: the lexers skip
// it, so a column counted from the file's first byte was 3 too high.
TEST(SourceManagerTest, ALeadingByteOrderMarkIsNotCountedInLineOne) {
  SourceManager m;
  uint32_t id = m.Add("bom.relay", std::string("\xEF\xBB\xBF" "abc\ndef"));
  const SourceFile* file = m.Get(id);
  ASSERT_NE(file, nullptr);
  LineCol lc = file->Resolve(3);  // 'a'
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 1u);
  lc = file->Resolve(5);  // 'c'
  EXPECT_EQ(lc.column, 3u);
  lc = file->Resolve(0);  // inside the mark: the start of the line
  EXPECT_EQ(lc.column, 1u);
  EXPECT_EQ(file->Line(1), "abc");
  lc = file->Resolve(8);  // 'e': other lines are unchanged
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 2u);
  EXPECT_EQ(file->Line(2), "def");
  // A text that is only the mark.
  uint32_t only = m.Add("only.relay", std::string("\xEF\xBB\xBF"));
  EXPECT_EQ(m.Get(only)->Resolve(3).column, 1u);
  EXPECT_EQ(m.Get(only)->Line(1), "");
}

}  // namespace
}  // namespace carve
