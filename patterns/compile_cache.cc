#include "patterns/compile_cache.h"

#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace carve {
namespace {

constexpr size_t kMaxEntries = 4096;

struct Entry {
  Pattern pattern;  // keeps the key's node alive
  absl::StatusOr<std::shared_ptr<const CompiledPattern>> compiled;
};

struct Memo {
  std::mutex mu;
  absl::flat_hash_map<const PatternNode*, Entry> entries;
};

Memo& TheMemo() {
  static auto* memo = new Memo();
  return *memo;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const CompiledPattern>> CompilePatternCached(const Pattern& pattern) {
  if (pattern.get() == nullptr) return CompilePattern(pattern);  // an error, not a node
  Memo& memo = TheMemo();
  {
    std::lock_guard<std::mutex> lock(memo.mu);
    if (auto it = memo.entries.find(pattern.get()); it != memo.entries.end()) {
      return it->second.compiled;
    }
  }
  // Compiled outside the lock: two threads may compile the same pattern
  // once each; either result is the same.
  absl::StatusOr<std::shared_ptr<const CompiledPattern>> compiled = CompilePattern(pattern);
  std::lock_guard<std::mutex> lock(memo.mu);
  if (memo.entries.size() >= kMaxEntries) memo.entries.clear();
  memo.entries.try_emplace(pattern.get(), Entry{pattern, compiled});
  return compiled;
}

}  // namespace carve
