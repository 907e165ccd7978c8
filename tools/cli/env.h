// The world a carve command runs in: its streams and file access. The CLI
// binary uses the real file system; the golden-test runner substitutes
// in-memory inputs and captures the outputs, so tests run in process.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/source.h"

namespace carve {
struct CompareReport;  // backends/compare.h
}  // namespace carve

namespace carve::cli {

// Receives consecutive pieces of a text being written.
using ChunkWriter = std::function<void(std::string_view)>;
// Produces a text by calling its argument with consecutive pieces.
using ChunkProducer = std::function<void(const ChunkWriter&)>;

struct Env {
  std::istream* in = nullptr;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  // Reads a whole file ("-" reads `in`).
  std::function<absl::StatusOr<std::string>(const std::string& path)> read_file;
  // Writes a whole file ("-" writes `out`).
  std::function<absl::Status(const std::string& path, const std::string& text)> write_file;
  // Writes a file (never "-") piece by piece as `produce` makes it; when
  // unset, WriteOutputChunks collects the text and calls write_file.
  std::function<absl::Status(const std::string& path, const ChunkProducer& produce)>
      write_file_chunks;
  // Prepares the heap for a run that reads `path` and needs about
  // `heap_per_input_byte` bytes of heap per byte of it (see
  // support/heap_prefault.h); unset in tests, which run in process.
  std::function<void(const std::string& path, size_t heap_per_input_byte)> prefault_heap;
  // Called with each `run --compare` report before it is printed, so that an
  // in-process caller (carve-random) reads its facts, such as GrewInHostOps,
  // rather than the text; unset in RealEnv.
  std::function<void(const CompareReport& report)> on_compare_report;
};

// An Env on the process's streams and file system.
Env RealEnv();

// Reads `path` through `env` ("-" = standard input).
absl::StatusOr<std::string> ReadInput(const Env& env, const std::string& path);
// Reads `path` to be parsed and kept for diagnostics. While env.read_file is
// RealEnv's, a regular file is mapped rather than copied into the heap
// (SourceText::FromFile); any other read_file (the golden runner's in-memory
// inputs, tests) is called and its string kept.
absl::StatusOr<SourceText> ReadSourceInput(const Env& env, const std::string& path);

// Writes the text `produce` makes to `path` ("-" = env.out) without holding
// all of it: the pieces go to env.out or env.write_file_chunks as they come.
absl::Status WriteOutputChunks(const Env& env, const std::string& path,
                               const ChunkProducer& produce);

}  // namespace carve::cli
