#include "tools/cli/env.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fmt/format.h"
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
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  return SourceText::ReadFile(path);
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
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) {
      return absl::PermissionDeniedError(
          fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
    f << text;
    f.close();
    if (!f) return absl::DataLossError(fmt::format("error writing '{}'", path));
    return absl::OkStatus();
  };
  env.write_file_chunks = [](const std::string& path,
                             const ChunkProducer& produce) -> absl::Status {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      return absl::PermissionDeniedError(
          fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
    BackgroundWriter writer(fd);
    produce([&writer](std::string_view piece) { writer.Write(piece); });
    bool failed = !writer.Finish();
    if (::close(fd) != 0) failed = true;
    if (failed) return absl::DataLossError(fmt::format("error writing '{}'", path));
    return absl::OkStatus();
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
    produce([&env](std::string_view piece) {
      env.out->write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    return absl::OkStatus();
  }
  if (env.write_file_chunks) return env.write_file_chunks(path, produce);
  std::string text;
  produce([&text](std::string_view piece) { text.append(piece); });
  return env.write_file(path, text);
}

}  // namespace carve::cli
