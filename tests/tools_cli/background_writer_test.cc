// BackgroundWriter: the file gets every piece in order, and a failed write
// is reported by Finish.
#include "tools/cli/background_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace carve::cli {
namespace {

TEST(BackgroundWriter, WritesEveryPieceInOrder) {
  char path[] = "/tmp/carve_bgwriter_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string expected;
  {
    BackgroundWriter writer(fd);
    for (int i = 0; i < 200; ++i) {
      // Pieces of varied sizes, some larger than the others combined.
      std::string piece(static_cast<size_t>((i * 7919) % 70000), static_cast<char>('a' + i % 26));
      piece += std::to_string(i);
      expected += piece;
      writer.Write(piece);
    }
    writer.Write("");
    EXPECT_TRUE(writer.Finish());
  }
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  EXPECT_EQ(text.str().size(), expected.size());
  EXPECT_TRUE(text.str() == expected);
}

TEST(BackgroundWriter, FinishReportsAFailedWrite) {
  int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  BackgroundWriter writer(fd);
  for (int i = 0; i < 10; ++i) writer.Write(std::string(1 << 20, 'x'));
  EXPECT_FALSE(writer.Finish());
  EXPECT_EQ(writer.error(), ENOSPC);  // the reason the error message gives
  ::close(fd);
}

TEST(BackgroundWriter, NothingWrittenIsASuccess) {
  BackgroundWriter writer(-1);
  EXPECT_TRUE(writer.Finish());
  EXPECT_EQ(writer.error(), 0);
}

}  // namespace
}  // namespace carve::cli
