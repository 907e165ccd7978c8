// The parser's memo of recently matched texts: a memoised construct (a tensor
// type, an op call's attributes, an op name) found again by comparing bytes
// where it starts, instead of scanning the text for its end and hashing it.
// Not a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace carve::parser_internal {

// At most this many bytes of a text (its key bytes, chosen by the caller
// the same way for Match and Remember) place it in a RecentTexts table.
// Positions closer than this to the end of the text are never looked at.
inline constexpr size_t kRecentKey = 16;

// A small set-associative table of texts, each with a tag (the op the text
// belongs to, or null) and a value, placed by the first kPrefix bytes of the
// text. A large graph repeats a few types and attribute texts thousands of
// times; hashing each occurrence whole (30-60 bytes) after a bracket scan is
// what this saves. A hit is exact: the text at the position starts with the
// remembered bytes (the caller checks what must follow them).
template <typename Value>
class RecentTexts {
 public:
  static constexpr size_t kPrefix = kRecentKey;

  struct Entry {
    const char* text = nullptr;
    uint32_t size = 0;
    const void* tag = nullptr;
    Value value{};
  };

  // Whether nothing was remembered yet.
  bool empty() const { return empty_; }

  // The remembered entry for `tag` whose text the bytes at `p` begin with,
  // or nullptr. The first `key` (<= kPrefix) bytes at `p` place it; `end`
  // is the end of the text `p` points into.
  const Entry* Match(const char* p, size_t key, const char* end, const void* tag) const {
    if (end - p < static_cast<std::ptrdiff_t>(kPrefix)) return nullptr;
    const Entry* set = sets_[SetOf(p, key, tag)];
    for (size_t way = 0; way < kWays; ++way) {
      const Entry& e = set[way];
      if (e.text != nullptr && e.tag == tag && size_t(end - p) >= e.size &&
          std::memcmp(p, e.text, e.size) == 0) {
        return &e;
      }
    }
    return nullptr;
  }

  // Remembers `text`, which must lie in a text ending at `end` and outlive
  // the table, placed by its first `key` bytes, as the most recent entry of
  // its set; the least recent entry of the set is dropped. A text shorter
  // than its key bytes is not remembered (they would not be its own).
  void Remember(std::string_view text, size_t key, const char* end, const void* tag, Value value) {
    if (end - text.data() < static_cast<std::ptrdiff_t>(kPrefix) || text.size() < key ||
        text.size() > UINT32_MAX) {
      return;
    }
    Entry* set = sets_[SetOf(text.data(), key, tag)];
    // Already the most recent entry (a hit the caller could not use, read
    // again by the general path): keep the other way's entry.
    if (set[0].text != nullptr && set[0].tag == tag && set[0].size == text.size() &&
        std::memcmp(set[0].text, text.data(), text.size()) == 0) {
      return;
    }
    for (size_t way = kWays - 1; way > 0; --way) set[way] = set[way - 1];
    set[0] = Entry{text.data(), static_cast<uint32_t>(text.size()), tag, value};
    empty_ = false;
  }

 private:
  static constexpr size_t kSets = 64;
  static constexpr size_t kWays = 2;

  // `p` has kPrefix readable bytes; the first `key` of them count.
  static size_t SetOf(const char* p, size_t key, const void* tag) {
    uint64_t a;
    uint64_t b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    if (key < 16) {
      b = key <= 8 ? 0 : b & ((uint64_t{1} << (8 * (key - 8))) - 1);
      if (key < 8) a &= (uint64_t{1} << (8 * key)) - 1;
    }
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ reinterpret_cast<uintptr_t>(tag)) *
                 0xD6E8FEB86659FD93ull;
    return static_cast<size_t>(h >> 58);
  }
  static_assert(kSets == 64, "SetOf keeps 6 bits");

  Entry sets_[kSets][kWays];
  bool empty_ = true;
};

}  // namespace carve::parser_internal
