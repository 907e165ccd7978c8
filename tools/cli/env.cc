#include "tools/cli/env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "fmt/format.h"
#include "support/cancellation.h"
#include "support/heap_prefault.h"
#include "tools/cli/background_writer.h"

namespace carve::cli {

namespace {

// One prefaulter per process, started by the first command that asks (the
// tool runs one command) and joined at exit. CARVE_PREFAULT=0 turns it off
// (to measure without it).
void PrefaultHeapFor(const std::string& path, size_t heap_per_input_byte) {
  static std::unique_ptr<HeapPrefaulter> prefaulter;
  if (prefaulter != nullptr || path == "-") return;
  if (const char* flag = std::getenv("CARVE_PREFAULT"); flag && std::string_view(flag) == "0") {
    return;
  }
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return;  // reading it will report the problem
  prefaulter = std::make_unique<HeapPrefaulter>(HeapPrefaulter::Clamp(size, heap_per_input_byte));
}

absl::StatusOr<std::string> ReadRealFile(const std::string& path) {
  if (path == "-") {
    // Standard input is one input: read once and kept, so that two readers
    // of the same `-` argument (`--patterns -` is read for its backends and
    // again by Rewrite for its rules) see the same text, not the rest of a
    // consumed stream. `carve` checks that the user names it once.
    static std::optional<std::string> stdin_text;
    if (stdin_text.has_value()) return *stdin_text;
    // A Ctrl-C while a cancellable command waits here ends the read early
    // (the SIGINT handler is installed without SA_RESTART): what was read
    // is a truncated input, never to be parsed as if it were complete.
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    if (CancellationRequested()) {
      return absl::CancelledError("interrupted while reading standard input");
    }
    stdin_text = ss.str();
    return *stdin_text;
  }
  return SourceText::ReadFile(path);
}

// Writes `path` through a temporary file in the same folder renamed over it
// once complete, so a failed write or a Ctrl-C (support/cancellation.h)
// never leaves a partial file. A path that names something other than a
// regular file (`/dev/null`, a FIFO, a symlink) is written in place.
// `write` returns 0, or the errno of the write that failed: the error names
// the reason ("No space left on device"), which a user can act on.
absl::Status WriteWhole(const std::string& path, const std::function<int(int fd)>& write) {
  struct stat st = {};
  bool in_place = lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  std::string target = in_place ? path : fmt::format("{}.carve-tmp-{}", path, getpid());
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  }
  int error = write(fd);
  // close(2) reports a delayed write error (NFS, a full quota).
  if (::close(fd) != 0 && error == 0) error = errno;
  const bool failed = error != 0;
  auto write_error = [&] {
    return absl::DataLossError(
        fmt::format("error writing '{}': {}", path, std::strerror(error)));
  };
  if (in_place) {
    if (failed) return write_error();
    return absl::OkStatus();
  }
  if (failed || CancellationRequested()) {
    ::unlink(target.c_str());
    if (failed) return write_error();
    return absl::CancelledError(fmt::format("interrupted; '{}' was not written", path));
  }
  if (::rename(target.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(target.c_str());
    return absl::PermissionDeniedError(
        fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  }
  return absl::OkStatus();
}

// Writes `text` to `fd` (the same loop as chunked output; EINTR retried);
// 0 or the errno of the failed write.
int WriteText(int fd, std::string_view text) {
  BackgroundWriter writer(fd);
  writer.Write(text);
  return writer.Finish() ? 0 : writer.error();
}

using ReadFileFn = absl::StatusOr<std::string> (*)(const std::string&);

bool ReadsRealFiles(const Env& env) {
  const ReadFileFn* fn = env.read_file.target<ReadFileFn>();
  return fn != nullptr && *fn == &ReadRealFile;
}

}  // namespace

Env RealEnv() {
  Env env;
  env.prefault_heap = PrefaultHeapFor;
  env.in = &std::cin;
  env.out = &std::cout;
  env.err = &std::cerr;
  env.read_file = ReadRealFile;
  env.write_file = [](const std::string& path, const std::string& text) -> absl::Status {
    if (path == "-") {
      std::cout << text;
      return absl::OkStatus();
    }
    return WriteWhole(path, [&text](int fd) { return WriteText(fd, text); });
  };
  env.write_file_chunks = [](const std::string& path,
                             const ChunkProducer& produce) -> absl::Status {
    return WriteWhole(path, [&produce](int fd) {
      BackgroundWriter writer(fd);
      produce([&writer](std::string_view piece) { writer.Write(piece); });
      return writer.Finish() ? 0 : writer.error();
    });
  };
  return env;
}

absl::StatusOr<std::string> ReadInput(const Env& env, const std::string& path) {
  return env.read_file(path);
}

absl::StatusOr<SourceText> ReadSourceInput(const Env& env, const std::string& path) {
  if (path != "-" && ReadsRealFiles(env)) return SourceText::FromFile(path);
  absl::StatusOr<std::string> text = env.read_file(path);
  if (!text.ok()) return text.status();
  return SourceText(*std::move(text));
}

absl::Status WriteOutputChunks(const Env& env, const std::string& path,
                               const ChunkProducer& produce) {
  if (path == "-") {
    // After a Ctrl-C the rest of the text is dropped: the command stops
    // printing and reports the interruption (a file is never half written:
    // WriteWhole).
    bool interrupted = false;
    produce([&env, &interrupted](std::string_view piece) {
      if (interrupted || (interrupted = CancellationRequested())) return;
      env.out->write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    if (interrupted) return absl::CancelledError("interrupted; the output is incomplete");
    return absl::OkStatus();
  }
  if (env.write_file_chunks) return env.write_file_chunks(path, produce);
  std::string text;
  produce([&text](std::string_view piece) { text.append(piece); });
  return env.write_file(path, text);
}

}  // namespace carve::cli
