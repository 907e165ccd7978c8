// A map keyed by node address, tuned for graph traversals (internal to the
// traversal helpers of ir/visit.h and to passes' memo tables).
//
// Nodes live in arenas and are allocated in roughly the order a traversal
// meets them, so their addresses increase along a walk. A general-purpose
// hash table scatters consecutive nodes over the whole table: on a
// million-node graph every lookup misses the caches. This table is instead a
// sparse array over the address space: a 2 KB page of addresses owns a block
// of 64 slots, one per 32 bytes (keys are addresses of distinct nodes, every
// node is at least 32 bytes, so no two keys share a slot and there is no
// probing; keys closer than that go to an overflow table);
// a small table finds a page's block, and the last block is remembered. A
// walk touches the blocks in address order, sequentially.
//
// A slot does not store its key: the block's page and the slot's position
// give the key up to its offset inside the 32 bytes, so a one-byte tag (the
// offset plus one; zero when empty) completes it. Tags and values live in
// separate arrays of the block. A map of bytes costs 2 bytes per 32 bytes of
// arena (it cost 16 with the key in every slot), a map of pointers 9: at 1M
// ops the BYOC passes' tables were most of their first-touched memory.
// Blocks are allocated in chunks that never move (no doubling copy), 16
// blocks first and doubling up to about 256 KB: few large allocations,
// which do not fragment the heap between the arena's blocks.
//
// (An earlier version folded addresses into one linear-probing table; on the
// graphs the BYOC passes build, nodes of different arena pages folded onto
// the same slots and filled the gaps between each other, so lookups probed
// long runs: hundreds of instructions each.)
//
// Maps start as a small linear-probing table (mutators are also made per
// composite body, a handful of nodes) and switch to pages past
// kSmallLimit entries. No erase. Pointers to values are valid until the next
// insertion. It is carve's one address-keyed map: the passes' memo tables,
// the pattern graphs' node numbering and the printer's slots use it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace carve {

template <typename V>
class AddressMap {
 public:
  explicit AddressMap(size_t expected = 0) {
    if (expected > kSmallLimit) {
      paged_ = true;
      pages_.assign(PageTableCapacity(expected), PageEntry{});
    } else {
      small_.assign(kSmallMin, Slot_{});
    }
  }

  // The value of `key`, or nullptr.
  V* Find(const void* key) {
    if (!paged_) return SmallFind(key);
    Block* block = BlockOf(Page(key));
    if (block == nullptr) return nullptr;
    size_t u = Unit(key);
    uint8_t tag = block->tag[u];
    if (tag == Tag(key)) return &block->value[u];
    if (tag == 0 || overflow_.empty()) return nullptr;
    auto it = overflow_.find(key);
    return it == overflow_.end() ? nullptr : &it->second;
  }
  const V* Find(const void* key) const { return const_cast<AddressMap*>(this)->Find(key); }
  bool Contains(const void* key) const { return Find(key) != nullptr; }

  // Inserts key -> value unless present; returns the stored value and
  // whether it was inserted.
  std::pair<V*, bool> TryEmplace(const void* key, V value) {
    if (!paged_) {
      if (size_ + 1 > kSmallLimit) {
        ToPaged();
      } else {
        return SmallEmplace(key, std::move(value));
      }
    }
    Block* block = MakeBlock(Page(key));
    size_t u = Unit(key);
    uint8_t tag = Tag(key);
    if (block->tag[u] == tag) return {&block->value[u], false};
    if (block->tag[u] != 0) {  // two keys closer than 32 bytes: not nodes, but allowed
      auto [it, inserted] = overflow_.try_emplace(key, std::move(value));
      size_ += inserted;
      return {&it->second, inserted};
    }
    block->tag[u] = tag;
    block->value[u] = std::move(value);
    ++size_;
    return {&block->value[u], true};
  }

  // The value of `key`, default-constructed when absent.
  V& operator[](const void* key) { return *TryEmplace(key, V{}).first; }

  size_t size() const { return size_; }
  void Reserve(size_t expected) {
    if (expected > kSmallLimit && !paged_) ToPaged();
  }

 private:
  struct Slot_ {
    const void* key = nullptr;
    V value{};
  };
  static constexpr unsigned kPageBits = 11;  // 2 KB of addresses per block
  static constexpr unsigned kUnitBits = 5;   // 32 bytes per slot
  static constexpr size_t kBlockSlots = size_t{1} << (kPageBits - kUnitBits);
  static constexpr size_t kSmallMin = 16;
  static constexpr size_t kSmallLimit = 128;  // entries; the small table has <= 256 slots
  // A block: tag[u] is 0 when slot u is empty, else 1 + the key's offset
  // inside its 32 bytes.
  struct Block {
    uint8_t tag[kBlockSlots] = {};
    V value[kBlockSlots] = {};
  };
  // Blocks per chunk: 16 in the first, doubling up to about 256 KB.
  static constexpr size_t kFirstChunkBlocks = 16;
  static constexpr size_t kMaxChunkBlocks =
      sizeof(Block) * 16 >= (size_t{256} << 10) ? 16 : (size_t{256} << 10) / sizeof(Block);
  struct PageEntry {
    uintptr_t page = 0;   // 0: empty (page 0 holds no node)
    Block* block = nullptr;
  };

  static uintptr_t Page(const void* key) { return reinterpret_cast<uintptr_t>(key) >> kPageBits; }
  static size_t Unit(const void* key) {
    return (reinterpret_cast<uintptr_t>(key) >> kUnitBits) & (kBlockSlots - 1);
  }
  static uint8_t Tag(const void* key) {
    return static_cast<uint8_t>(1 + (reinterpret_cast<uintptr_t>(key) & ((1u << kUnitBits) - 1)));
  }
  static size_t Mix(uintptr_t x, size_t mask) {
    return static_cast<size_t>((static_cast<uint64_t>(x) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  }
  static size_t PageTableCapacity(size_t expected_nodes) {
    size_t c = 64;
    while (c < expected_nodes / 16) c *= 2;
    return c;
  }

  // The block of `page`, or nullptr.
  Block* BlockOf(uintptr_t page) {
    if (page == last_page_) return last_block_;
    size_t mask = pages_.size() - 1;
    for (size_t i = Mix(page, mask);; i = (i + 1) & mask) {
      if (pages_[i].page == page) {
        last_page_ = page;
        last_block_ = pages_[i].block;
        return last_block_;
      }
      if (pages_[i].page == 0) return nullptr;
    }
  }

  // The block of `page`, made when absent.
  Block* MakeBlock(uintptr_t page) {
    if (Block* block = BlockOf(page)) return block;
    if (2 * (num_blocks_ + 1) > pages_.size()) GrowPageTable();
    if (chunk_used_ == chunk_size_) {
      chunk_size_ = chunks_.empty() ? kFirstChunkBlocks : std::min(2 * chunk_size_, kMaxChunkBlocks);
      chunks_.push_back(std::make_unique<Block[]>(chunk_size_));
      chunk_used_ = 0;
    }
    Block* block = &chunks_.back()[chunk_used_++];
    ++num_blocks_;
    InsertPage(page, block);
    last_page_ = page;
    last_block_ = block;
    return block;
  }

  void InsertPage(uintptr_t page, Block* block) {
    size_t mask = pages_.size() - 1;
    size_t i = Mix(page, mask);
    while (pages_[i].page != 0) i = (i + 1) & mask;
    pages_[i] = PageEntry{page, block};
  }

  void GrowPageTable() {
    std::vector<PageEntry> old = std::move(pages_);
    pages_.assign(old.empty() ? 64 : old.size() * 2, PageEntry{});
    for (const PageEntry& e : old) {
      if (e.page != 0) InsertPage(e.page, e.block);
    }
  }

  void ToPaged() {
    std::vector<Slot_> old = std::move(small_);
    small_ = {};
    paged_ = true;
    if (pages_.empty()) pages_.assign(64, PageEntry{});
    size_ = 0;
    for (Slot_& s : old) {
      if (s.key != nullptr) TryEmplace(s.key, std::move(s.value));
    }
  }

  // The small table: linear probing, load at most 1/2.
  V* SmallFind(const void* key) {
    size_t mask = small_.size() - 1;
    for (size_t s = Mix(reinterpret_cast<uintptr_t>(key) >> kUnitBits, mask);; s = (s + 1) & mask) {
      if (small_[s].key == key) return &small_[s].value;
      if (small_[s].key == nullptr) return nullptr;
    }
  }

  std::pair<V*, bool> SmallEmplace(const void* key, V value) {
    if (2 * (size_ + 1) > small_.size()) SmallRehash(small_.size() * 2);
    size_t mask = small_.size() - 1;
    for (size_t s = Mix(reinterpret_cast<uintptr_t>(key) >> kUnitBits, mask);; s = (s + 1) & mask) {
      if (small_[s].key == key) return {&small_[s].value, false};
      if (small_[s].key == nullptr) {
        small_[s].key = key;
        small_[s].value = std::move(value);
        ++size_;
        return {&small_[s].value, true};
      }
    }
  }

  void SmallRehash(size_t capacity) {
    std::vector<Slot_> old = std::move(small_);
    small_.assign(capacity, Slot_{});
    size_ = 0;
    for (Slot_& s : old) {
      if (s.key != nullptr) SmallEmplace(s.key, std::move(s.value));
    }
  }

  bool paged_ = false;
  size_t size_ = 0;
  std::vector<Slot_> small_;
  std::vector<PageEntry> pages_;
  std::vector<std::unique_ptr<Block[]>> chunks_;  // the blocks; the last has chunk_size_
  size_t chunk_size_ = 0;
  size_t chunk_used_ = 0;
  size_t num_blocks_ = 0;
  std::unordered_map<const void*, V> overflow_;
  uintptr_t last_page_ = 0;
  Block* last_block_ = nullptr;
};

}  // namespace carve
