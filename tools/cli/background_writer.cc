#include "tools/cli/background_writer.h"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace carve::cli {

void BackgroundWriter::Write(std::string_view piece) {
  if (piece.empty()) return;
  std::unique_lock lock(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { Drain(); });
  changed_.wait(lock, [this] { return queued_.size() < kMaxQueued || failed_; });
  if (failed_) return;
  std::string buffer;
  if (!spare_.empty()) {
    buffer = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  buffer.assign(piece);  // the copy outside the lock
  lock.lock();
  queued_.push_back(std::move(buffer));
  changed_.notify_all();
}

bool BackgroundWriter::Finish() {
  std::unique_lock lock(mu_);
  closing_ = true;
  changed_.notify_all();
  lock.unlock();
  if (thread_.joinable()) thread_.join();
  return !failed_;
}

void BackgroundWriter::Drain() {
  std::unique_lock lock(mu_);
  while (true) {
    changed_.wait(lock, [this] { return !queued_.empty() || closing_; });
    if (queued_.empty()) return;  // closing, all written
    std::string buffer = std::move(queued_.front());
    queued_.pop_front();
    lock.unlock();
    int error = WriteAll(buffer);
    lock.lock();
    if (error != 0) {
      failed_ = true;
      error_ = error;
      queued_.clear();
    }
    spare_.push_back(std::move(buffer));
    changed_.notify_all();
  }
}

int BackgroundWriter::WriteAll(std::string_view text) const {
  while (!text.empty()) {
    ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    // write(2) returns 0 for a nonzero count only when nothing more fits.
    if (n == 0) return ENOSPC;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

}  // namespace carve::cli
