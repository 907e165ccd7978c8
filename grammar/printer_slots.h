// Internal to the Relay printer: a map from IR node pointers to dense slot
// numbers, built for walks over graphs of up to millions of nodes.
//
// A hash table scatters the lookups of a walk over the whole table, and on a
// large graph almost every lookup is a cache miss. IR nodes are allocated in
// arena blocks in roughly the order a walk meets them (children just before
// their parents), so this map is a directory of 64 KiB address regions, each a
// flat array indexed by (address within the region) / 8: a walk touches the
// arrays nearly sequentially, and the directory lookup is skipped while the
// walk stays in one region. An entry covers 32 bytes of addresses; objects
// are at least that large, so two never share an entry.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace carve::print_internal {

class SlotMap {
 public:
  // The keys must point to distinct objects of at least this many bytes.
  static constexpr size_t kMinObjectBytes = 32;

  // The slot of `p`, inserting `next` when `p` has none; `second` is true
  // when it was inserted.
  std::pair<uint32_t, bool> Insert(const void* p, uint32_t next);
  // Forgets every pointer (and frees the region arrays).
  void Clear();

 private:
  static constexpr int kRegionBits = 16;
  static constexpr int kGrainBits = 5;
  static_assert(kMinObjectBytes == size_t{1} << kGrainBits);
  static constexpr size_t kEntries = size_t{1} << (kRegionBits - kGrainBits);

  // Entries hold slot + 1; 0 is "no slot".
  uint32_t* Region(uintptr_t region);

  absl::flat_hash_map<uintptr_t, std::unique_ptr<uint32_t[]>> regions_;
  uintptr_t cached_region_ = ~uintptr_t{0};
  uint32_t* cached_entries_ = nullptr;
};

}  // namespace carve::print_internal
