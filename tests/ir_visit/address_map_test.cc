// AddressMap (ir/address_map.h), carve's one address-keyed map, and
// RecentCache (ir/recent_cache.h), the small cache of recent results in
// front of slower lookups: checked against absl's hash map.
#include "ir/address_map.h"

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"
#include "ir/recent_cache.h"

namespace carve {
namespace {

// Keys 32 bytes apart, as nodes are, in one buffer (address order), plus a
// stride that puts keys on different pages.
std::vector<const void*> Keys(const std::vector<char>& buffer, size_t stride, size_t n) {
  std::vector<const void*> keys;
  for (size_t i = 0; i < n; ++i) keys.push_back(buffer.data() + i * stride);
  return keys;
}

void ExpectSameAsHashMap(size_t n, size_t stride, size_t expected) {
  std::vector<char> buffer(n * stride + 64);
  std::vector<const void*> keys = Keys(buffer, stride, n);
  AddressMap<uint32_t> map(expected);
  absl::flat_hash_map<const void*, uint32_t> reference;
  for (size_t i = 0; i < n; ++i) {
    // Every third key inserted twice: the first value stays.
    auto [value, inserted] = map.TryEmplace(keys[i], static_cast<uint32_t>(i));
    EXPECT_TRUE(inserted);
    EXPECT_EQ(*value, i);
    reference.emplace(keys[i], static_cast<uint32_t>(i));
    if (i % 3 == 0) {
      auto [again, fresh] = map.TryEmplace(keys[i], 12345);
      EXPECT_FALSE(fresh);
      EXPECT_EQ(*again, i);
    }
  }
  EXPECT_EQ(map.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const uint32_t* found = map.Find(key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
  // Addresses between keys, and past them, are absent.
  EXPECT_EQ(map.Find(buffer.data() + n * stride + 32), nullptr);
  if (stride >= 64) EXPECT_EQ(map.Find(buffer.data() + 32), nullptr);
}

TEST(AddressMap, SmallTable) { ExpectSameAsHashMap(100, 32, 0); }
TEST(AddressMap, GrowsFromSmallToPaged) { ExpectSameAsHashMap(50'000, 32, 0); }
TEST(AddressMap, PagedFromTheStart) { ExpectSameAsHashMap(50'000, 32, 50'000); }
TEST(AddressMap, SparseKeysOverManyPages) { ExpectSameAsHashMap(20'000, 4096 + 32, 0); }

// Keys closer than 32 bytes share a slot: the overflow table keeps both.
TEST(AddressMap, KeysCloserThanASlot) {
  std::vector<char> buffer(64 * 1024);
  AddressMap<int> map(10'000);  // paged
  for (int i = 0; i < 1000; ++i) {
    map.TryEmplace(buffer.data() + 32 * i, i);
    map.TryEmplace(buffer.data() + 32 * i + 8, -i);
  }
  EXPECT_EQ(map.size(), 2000u);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_NE(map.Find(buffer.data() + 32 * i), nullptr);
    EXPECT_EQ(*map.Find(buffer.data() + 32 * i), i);
    EXPECT_EQ(*map.Find(buffer.data() + 32 * i + 8), -i);
    EXPECT_EQ(map.Find(buffer.data() + 32 * i + 16), nullptr);
  }
}

TEST(RecentCache, RemembersUntilEvicted) {
  std::vector<char> storage(1 << 16);
  // 1 KiB-aligned, so that the 65 keys below share their high address bits.
  auto base = (reinterpret_cast<uintptr_t>(storage.data()) + 1023) & ~uintptr_t{1023};
  struct {
    const char* data() const { return p; }
    const char* p;
  } buffer{reinterpret_cast<const char*>(base)};
  RecentCache<int, 64> cache;
  const void* a = buffer.data();
  EXPECT_EQ(cache.Find(a), nullptr);
  EXPECT_EQ(cache.Find(nullptr), nullptr);
  cache.Put(a, 7);
  ASSERT_NE(cache.Find(a), nullptr);
  EXPECT_EQ(*cache.Find(a), 7);
  cache.Put(a, 8);
  EXPECT_EQ(*cache.Find(a), 8);
  // 64 consecutive 16-byte keys map to 64 distinct slots: all kept.
  for (int i = 0; i < 64; ++i) cache.Put(buffer.data() + 16 * i, i);
  for (int i = 0; i < 64; ++i) {
    ASSERT_NE(cache.Find(buffer.data() + 16 * i), nullptr) << i;
    EXPECT_EQ(*cache.Find(buffer.data() + 16 * i), i);
  }
  // A 65th key evicts the one that shared its slot, and only that one.
  const void* late = buffer.data() + 16 * 64;
  cache.Put(late, 64);
  EXPECT_EQ(*cache.Find(late), 64);
  int kept = 0;
  for (int i = 0; i < 64; ++i) kept += cache.Find(buffer.data() + 16 * i) != nullptr;
  EXPECT_EQ(kept, 63);
}

}  // namespace
}  // namespace carve
