// A map from expression nodes to dense indices, tuned for graph traversals.
//
// Nodes live in arenas and are allocated in roughly the order a traversal
// meets them, so their addresses increase along a walk. A general-purpose
// hash table scatters consecutive nodes over the whole table: on a
// million-node graph every lookup misses the caches. This table keeps the
// address order instead (slot = address / 16, folded into a power-of-two
// table), so a walk touches the table almost sequentially. Open addressing
// with linear probing at a load factor of at most 1/2 (consecutive nodes
// fill runs of slots, so fuller tables cluster); the high address bits are
// folded in to spread distant regions that would otherwise share slots.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ir/expr.h"

namespace carve {

class NodeIndexMap {
 public:
  static constexpr uint32_t kAbsent = ~0u;

  explicit NodeIndexMap(size_t expected = 0) { Rehash(Capacity(expected)); }

  // The index of `e`, or kAbsent.
  uint32_t Find(const Expr* e) const {
    for (size_t s = Slot(e);; s = (s + 1) & mask_) {
      if (keys_[s] == e) return values_[s];
      if (keys_[s] == nullptr) return kAbsent;
    }
  }

  // Inserts e -> index unless present; returns the stored index.
  uint32_t Insert(const Expr* e, uint32_t index) {
    if (2 * (size_ + 1) > keys_.size()) Rehash(keys_.size() * 2);
    for (size_t s = Slot(e);; s = (s + 1) & mask_) {
      if (keys_[s] == e) return values_[s];
      if (keys_[s] == nullptr) {
        keys_[s] = e;
        values_[s] = index;
        ++size_;
        return index;
      }
    }
  }

  size_t size() const { return size_; }

 private:
  static size_t Capacity(size_t expected) {
    size_t c = 1024;
    while (c < 2 * expected) c *= 2;
    return c;
  }

  size_t Slot(const Expr* e) const {
    uintptr_t a = reinterpret_cast<uintptr_t>(e) >> 4;
    return (a ^ (a >> shift_)) & mask_;
  }

  void Rehash(size_t capacity) {
    std::vector<const Expr*> old_keys = std::move(keys_);
    std::vector<uint32_t> old_values = std::move(values_);
    keys_.assign(capacity, nullptr);
    values_.assign(capacity, 0);
    mask_ = capacity - 1;
    shift_ = 0;
    while ((size_t{1} << shift_) < capacity) ++shift_;
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_keys[i] != nullptr) Insert(old_keys[i], old_values[i]);
    }
  }

  std::vector<const Expr*> keys_;
  std::vector<uint32_t> values_;
  size_t mask_ = 0;
  unsigned shift_ = 0;
  size_t size_ = 0;
};

}  // namespace carve
