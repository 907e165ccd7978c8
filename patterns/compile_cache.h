// A process-wide memo of CompilePattern with the default options, for the
// passes that compile the same patterns on every call (MergeComposite
// compiles each composite of a backend each time it runs: 40% of the CPU
// of partitioning a small module, measured on the BYOC fuzz target).
// Patterns are immutable, so a pattern node compiles to the same result
// every time; the memo holds the pattern it was asked about, so the node's
// address cannot be reused while its entry lives. Thread-safe. Bounded:
// past kMaxEntries the memo starts over (user .pat files loaded again and
// again, in the REPL or the Python module, do not grow it without bound).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "patterns/compile.h"

namespace carve {

// CompilePattern(pattern) with its result memoized (errors too).
absl::StatusOr<std::shared_ptr<const CompiledPattern>> CompilePatternCached(const Pattern& pattern);

}  // namespace carve
