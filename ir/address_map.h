// A map keyed by node address, tuned for graph traversals (internal to the
// traversal helpers of ir/visit.h and to passes' memo tables).
//
// Nodes live in arenas and are allocated in roughly the order a traversal
// meets them, so their addresses increase along a walk. A general-purpose
// hash table scatters consecutive nodes over the whole table: on a
// million-node graph every lookup misses the caches. This table keeps the
// address order instead (slot = address / 16, with the high bits folded in),
// so a walk touches it almost sequentially; keys and values share a slot, so
// a lookup is one cache line. Open addressing with linear probing, load at
// most 1/2. No erase. (patterns/node_index_map.h is the same idea for
// uint32 indices.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace carve {

template <typename V>
class AddressMap {
 public:
  explicit AddressMap(size_t expected = 0) { Rehash(Capacity(expected)); }

  // The value of `key`, or nullptr.
  V* Find(const void* key) {
    for (size_t s = Slot(key);; s = (s + 1) & mask_) {
      if (slots_[s].key == key) return &slots_[s].value;
      if (slots_[s].key == nullptr) return nullptr;
    }
  }
  const V* Find(const void* key) const { return const_cast<AddressMap*>(this)->Find(key); }
  bool Contains(const void* key) const { return Find(key) != nullptr; }

  // Inserts key -> value unless present; returns the stored value and
  // whether it was inserted. The pointer is valid until the next insertion.
  std::pair<V*, bool> TryEmplace(const void* key, V value) {
    if (2 * (size_ + 1) > slots_.size()) Rehash(slots_.size() * 2);
    for (size_t s = Slot(key);; s = (s + 1) & mask_) {
      if (slots_[s].key == key) return {&slots_[s].value, false};
      if (slots_[s].key == nullptr) {
        slots_[s].key = key;
        slots_[s].value = std::move(value);
        ++size_;
        return {&slots_[s].value, true};
      }
    }
  }

  // The value of `key`, default-constructed when absent.
  V& operator[](const void* key) { return *TryEmplace(key, V{}).first; }

  size_t size() const { return size_; }
  void Reserve(size_t expected) {
    if (Capacity(expected) > slots_.size()) Rehash(Capacity(expected));
  }

 private:
  struct Slot_ {
    const void* key = nullptr;
    V value{};
  };

  static size_t Capacity(size_t expected) {
    size_t c = 16;  // small: mutators are also made per composite body
    while (c < 2 * expected) c *= 2;
    return c;
  }

  size_t Slot(const void* key) const {
    uintptr_t a = reinterpret_cast<uintptr_t>(key) >> 4;
    return (a ^ (a >> shift_)) & mask_;
  }

  void Rehash(size_t capacity) {
    std::vector<Slot_> old = std::move(slots_);
    slots_.assign(capacity, Slot_{});
    mask_ = capacity - 1;
    shift_ = 0;
    while ((size_t{1} << shift_) < capacity) ++shift_;
    size_ = 0;
    for (Slot_& s : old) {
      if (s.key != nullptr) TryEmplace(s.key, std::move(s.value));
    }
  }

  std::vector<Slot_> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 0;
  size_t size_ = 0;
};

}  // namespace carve
