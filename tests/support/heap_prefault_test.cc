// HeapPrefaulter: the memory it maps is the heap the next allocations use,
// and mapping it never changes what the program already wrote there.
#include "support/heap_prefault.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "support/malloc_policy.h"
#include "support/page_faults.h"

namespace carve {
namespace {

constexpr size_t kMB = size_t{1} << 20;

class HeapPrefaulterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { KeepFreedMemoryForReuse(); }
};

TEST_F(HeapPrefaulterTest, ClampScalesTheInputAndCapsAtAQuarterOfMemory) {
  EXPECT_EQ(HeapPrefaulter::Clamp(1000, 16), 16000u);
  EXPECT_EQ(HeapPrefaulter::Clamp(0, 16), 0u);
  size_t capped = HeapPrefaulter::Clamp(uint64_t{1} << 50, 16);
  EXPECT_GT(capped, 0u);
  EXPECT_LT(capped, uint64_t{1} << 50);
}

TEST_F(HeapPrefaulterTest, NextAllocationsFindTheirPagesMapped) {
  HeapPrefaulter prefaulter(64 * kMB);
  prefaulter.Finish();
  long before = MinorPageFaults();
  // 32 MB in arena-sized blocks, written once: 8192 pages.
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 512; ++i) {
    blocks.emplace_back(new char[64 * 1024]);
    std::memset(blocks.back().get(), i, 64 * 1024);
  }
  long faults = MinorPageFaults() - before;
  EXPECT_LT(faults, 800) << "the blocks should come from the prefaulted heap";
}

TEST_F(HeapPrefaulterTest, MappingKeepsWhatTheProgramWrote) {
  // Allocations race the prefaulter over the same pages.
  HeapPrefaulter prefaulter(96 * kMB);
  std::vector<std::unique_ptr<uint32_t[]>> blocks;
  constexpr size_t kWords = 16 * 1024;
  for (uint32_t i = 0; i < 1024; ++i) {
    blocks.emplace_back(new uint32_t[kWords]);
    for (size_t w = 0; w < kWords; ++w) blocks.back()[w] = i * 7919u + static_cast<uint32_t>(w);
  }
  prefaulter.Finish();
  for (uint32_t i = 0; i < 1024; ++i) {
    for (size_t w = 0; w < kWords; w += 97) {
      ASSERT_EQ(blocks[i][w], i * 7919u + static_cast<uint32_t>(w)) << "block " << i;
    }
  }
}

TEST_F(HeapPrefaulterTest, NothingToDoForZeroBytes) {
  HeapPrefaulter prefaulter(0);
  prefaulter.Finish();
}

}  // namespace
}  // namespace carve
