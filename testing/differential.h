// The random-program differential test: each generated program goes
// through `carve check`, then for every built-in backend `carve partition
// --verify-each` (whose output must re-parse and type-check) and `carve run
// --compare`, in process but in a forked child, so a crash or a hang is a
// finding, not the end of the run.
#pragma once

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "testing/random_program.h"

namespace carve::testing {

// One failed stage of one program.
struct DiffFailure {
  std::string backend;  // "" for the stage before the backends (check)
  std::string stage;    // check, partition, reparse, compare
  std::string symptom;  // "exit 1: <first line of stderr>", "signal 8", "timeout"
  std::string command;  // the carve command line that shows it (FILE = program)
  // The failure class: stage, backend and the symptom with numbers and
  // names blurred, so that 100 instances of one bug count once.
  std::string Signature() const;
};

struct DiffOptions {
  std::vector<std::string> backends;  // empty = every built-in backend
  double timeout_seconds = 30;        // per program, all backends together
  std::string work_dir;               // where program and input files go
};

// Runs `program` (written to work_dir) through every stage; returns the
// failures (empty = every stage passed).
std::vector<DiffFailure> RunDifferential(const RandomProgram& program, const DiffOptions& options);

// Keeps a failing program (its text) and the inputs of its `?`-shaped
// parameters (the in_NAME.npy files the harness wrote to `work_dir`) as
// DIR/SEED.relay and DIR/SEED.in_NAME.npy, since the work directory is reused
// by the next program; returns `command` rewritten to the kept files, so that
// it reproduces after the run (carve-random --keep).
std::string KeepFailingProgram(const std::string& dir, uint64_t seed, const std::string& work_dir,
                               const std::string& program_text, const std::string& command);

// A checked-in list of known failure classes (tests/random/known_failures.txt):
// one `regex  # why` per line, matched against DiffFailure::Signature().
struct KnownFailure {
  std::string pattern;
  std::regex regex;
  int hits = 0;
};
absl::StatusOr<std::vector<KnownFailure>> ReadKnownFailures(const std::string& path);
// The known class `f` falls into, or nullptr.
KnownFailure* MatchKnown(std::vector<KnownFailure>& known, const DiffFailure& f);

}  // namespace carve::testing
