// Writes a text to a file descriptor on a second thread, piece by piece, so
// that the kernel's copy of each piece into the page cache (about 0.4 ms per
// MB here) overlaps the printing of the next one instead of following it.
// Pieces are copied into a few recycled buffers; Write blocks while all of
// them wait for the disk, which bounds the memory to kMaxQueued pieces.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace carve::cli {

class BackgroundWriter {
 public:
  // Does not own `fd`.
  explicit BackgroundWriter(int fd) : fd_(fd) {}
  ~BackgroundWriter() { Finish(); }
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Queues a copy of `piece`.
  void Write(std::string_view piece);
  // Waits until everything queued is written; false when a write failed.
  bool Finish();
  // After Finish: the errno of the failed write (ENOSPC on a full disk), 0
  // when none failed. errno itself is the writing thread's, so it is kept.
  int error() const { return error_; }

 private:
  static constexpr size_t kMaxQueued = 3;
  void Drain();
  // Writes all of `text`; 0, or the errno of the failed write.
  int WriteAll(std::string_view text) const;

  const int fd_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::string> queued_;
  std::vector<std::string> spare_;
  bool closing_ = false;
  bool failed_ = false;
  int error_ = 0;  // with failed_
  std::thread thread_;
};

}  // namespace carve::cli
