// A small cache of recent results keyed by address: a direct-mapped table of
// N entries in front of a slower lookup (a hash map, a search), for walks
// that ask about the same few nodes or types again shortly after (a residual
// connection met a few nodes after its producer, the type of the previous
// node). A miss costs one compare; a new entry evicts whatever shared its
// slot. The cache only remembers: callers keep the authoritative answer
// elsewhere, so its hit rate never changes a result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace carve {

template <typename V, size_t N>
class RecentCache {
  static_assert(N > 0 && (N & (N - 1)) == 0, "N must be a power of two");

 public:
  RecentCache() : entries_(N) {}

  // The value last put for `key`, unless evicted since; else nullptr.
  const V* Find(const void* key) const {
    const Entry& e = entries_[Slot(key)];
    return key != nullptr && e.key == key ? &e.value : nullptr;
  }

  void Put(const void* key, V value) { entries_[Slot(key)] = {key, std::move(value)}; }

 private:
  struct Entry {
    const void* key = nullptr;
    V value{};
  };

  // Nodes and types are at least 16-byte aligned and allocated close
  // together: drop the low bits, fold the high ones in.
  static size_t Slot(const void* key) {
    auto a = reinterpret_cast<uintptr_t>(key) >> 4;
    return (a ^ (a >> 12)) & (N - 1);
  }

  std::vector<Entry> entries_;
};

}  // namespace carve
